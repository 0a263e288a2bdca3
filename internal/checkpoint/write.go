package checkpoint

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// WriteOptions choose the optional columns of a checkpoint. The zero value
// writes no statistics at all; OptionsFor gives the table's own settings.
type WriteOptions struct {
	// WriteStatsAsJSON writes add.stats (delta.checkpoint.writeStatsAsJson,
	// true by default in Delta).
	WriteStatsAsJSON bool
	// WriteStatsAsStruct writes add.stats_parsed and, for a partitioned
	// table, add.partitionValues_parsed (delta.checkpoint.writeStatsAsStruct).
	WriteStatsAsStruct bool
	// Schema, PartitionColumns and ColumnMapping type the *_parsed columns;
	// when Schema is nil they are taken from the metaData action written.
	Schema           *schema.Struct
	PartitionColumns []string
	ColumnMapping    schema.Mode
}

// OptionsFor returns the write options a table's metadata asks for: stats
// as JSON unless delta.checkpoint.writeStatsAsJson is false, as structs when
// delta.checkpoint.writeStatsAsStruct is true, typed by the table schema.
func OptionsFor(md *protocol.Metadata) (WriteOptions, error) {
	if md == nil {
		return WriteOptions{}, errInvalid("no table metadata")
	}
	opt := WriteOptions{
		WriteStatsAsJSON:   !strings.EqualFold(md.Configuration["delta.checkpoint.writeStatsAsJson"], "false"),
		WriteStatsAsStruct: strings.EqualFold(md.Configuration["delta.checkpoint.writeStatsAsStruct"], "true"),
		PartitionColumns:   md.PartitionColumns,
	}
	s, err := schema.Parse(md.SchemaString)
	if err != nil {
		return WriteOptions{}, errInvalid("table schema: %v", err)
	}
	opt.Schema = s
	if opt.ColumnMapping, err = schema.ParseMode(md.Configuration["delta.columnMapping.mode"]); err != nil {
		return WriteOptions{}, errInvalid("%v", err)
	}
	return opt, nil
}

func errInvalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

// named gives an error raised without a file the key of the checkpoint.
func named(err error, key string) error {
	var e *errs.Error
	if errors.As(err, &e) && e.Path == "" {
		e.Path = key
	}
	return err
}

// rowsPerGroup bounds a row group (and the Arrow batch built for it): with
// stats of a few hundred bytes per file, a row group stays in the tens of
// megabytes, which is what readers hold in memory at once.
const rowsPerGroup = 32768

// Write writes the classic single-file checkpoint of version from already
// reconciled actions: one protocol, one metaData, the live adds, the
// unexpired removes, the txns and the domainMetadata. commitInfo and cdc
// actions, removed domains and any sidecar or checkpointMetadata passed in
// are left out; when the protocol lists the v2Checkpoint writer feature,
// a checkpointMetadata action is added (a classic-named v2 checkpoint with
// inline file actions). The file's bytes go to w, which the caller stores
// under protocol.CheckpointKey(version); nothing is stored on failure as
// long as the caller discards w then. It returns the _last_checkpoint
// content to store for it.
func Encode(ctx context.Context, w io.Writer, version int64, actions []protocol.Action, opt WriteOptions) (LastCheckpoint, error) {
	key := protocol.CheckpointKey(version)
	if version < 0 {
		return LastCheckpoint{}, errs.New(errs.InvalidArgument, key, "negative version %d", version)
	}
	var proto *protocol.Protocol
	var meta *protocol.Metadata
	for i := range actions {
		if p := actions[i].Protocol; p != nil {
			if proto != nil {
				return LastCheckpoint{}, errs.New(errs.InvalidArgument, key, "more than one protocol action")
			}
			proto = p
		}
		if m := actions[i].Metadata; m != nil {
			if meta != nil {
				return LastCheckpoint{}, errs.New(errs.InvalidArgument, key, "more than one metaData action")
			}
			meta = m
		}
	}
	if proto == nil || meta == nil {
		return LastCheckpoint{}, errs.New(errs.InvalidArgument, key, "a checkpoint needs the protocol and the metaData action")
	}
	var parsed *parsedTypes
	if opt.WriteStatsAsStruct {
		if opt.Schema == nil {
			tableOpt, err := OptionsFor(meta)
			if err != nil {
				return LastCheckpoint{}, named(err, key)
			}
			opt.Schema, opt.PartitionColumns, opt.ColumnMapping = tableOpt.Schema, tableOpt.PartitionColumns, tableOpt.ColumnMapping
		}
		if opt.ColumnMapping == "" {
			opt.ColumnMapping = schema.MappingNone
		}
		var err error
		if parsed, err = newParsedTypes(opt.Schema, opt.PartitionColumns, opt.ColumnMapping); err != nil {
			return LastCheckpoint{}, named(err, key)
		}
	}
	v2 := slices.Contains(proto.WriterFeatures, "v2Checkpoint")
	sc := checkpointSchema(opt.WriteStatsAsJSON, parsed, v2)

	bw := bufio.NewWriterSize(w, 1<<20) // the encoder writes in small pieces
	cw := &countingWriter{w: bw}
	lc, err := writeParquet(ctx, cw, sc, parsed, opt.WriteStatsAsJSON, v2, version, actions)
	if err == nil {
		err = bw.Flush()
	}
	if err != nil {
		return LastCheckpoint{}, errs.Wrap(errs.Internal, key, named(err, key), "writing checkpoint")
	}
	lc.Version = version
	lc.SizeInBytes = cw.n
	b, err := EncodeLastCheckpoint(lc)
	if err != nil {
		return LastCheckpoint{}, err
	}
	return DecodeLastCheckpoint(b)
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeParquet encodes the actions into w, a row group per rowsPerGroup
// rows, and counts what it wrote.
func writeParquet(ctx context.Context, w io.Writer, sc *arrow.Schema, parsed *parsedTypes, stats, v2 bool, version int64, actions []protocol.Action) (lc LastCheckpoint, err error) {
	defer func() {
		// The Arrow builders panic on a type mismatch, which would be a bug
		// here; report it instead of crashing the caller.
		if r := recover(); r != nil {
			err = errs.Recovered(errs.Internal, "", "encoding checkpoint rows", r)
		}
	}()
	mem := memory.DefaultAllocator
	props := parquet.NewWriterProperties(
		parquet.WithAllocator(mem),
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithCreatedBy("deltalite"),
		parquet.WithMaxRowGroupLength(rowsPerGroup),
	)
	fw, err := pqarrow.NewFileWriter(sc, w, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		return lc, err
	}
	defer func() {
		if cerr := fw.Close(); err == nil {
			err = cerr
		}
	}()
	rb := array.NewRecordBuilder(mem, sc)
	defer rb.Release()
	b, err := newRowBuilder(rb, parsed, stats)
	if err != nil {
		return lc, err
	}
	rows := 0
	flush := func() error {
		if rows == 0 {
			return nil
		}
		rec := rb.NewRecordBatch()
		defer rec.Release()
		rows = 0
		return fw.Write(rec)
	}
	add := func(f func() error) error {
		if err := f(); err != nil {
			return err
		}
		lc.Size++
		if rows++; rows == rowsPerGroup {
			if err := ctx.Err(); err != nil {
				return err
			}
			return flush()
		}
		return nil
	}
	if v2 {
		if err := add(func() error { b.checkpointMetadata(version); return nil }); err != nil {
			return lc, err
		}
	}
	for i := range actions {
		a := &actions[i]
		var f func() error
		switch {
		case a.Protocol != nil:
			f = func() error { b.protocol(a.Protocol); return nil }
		case a.Metadata != nil:
			f = func() error { b.metadata(a.Metadata); return nil }
		case a.Txn != nil:
			f = func() error { b.txn(a.Txn); return nil }
		case a.DomainMetadata != nil && !a.DomainMetadata.Removed:
			f = func() error { b.domain(a.DomainMetadata); return nil }
		case a.Add != nil:
			lc.NumOfAddFiles++
			f = func() error { return b.add(a.Add) }
		case a.Remove != nil:
			f = func() error { b.remove(a.Remove); return nil }
		default:
			continue
		}
		if err := add(f); err != nil {
			return lc, err
		}
	}
	return lc, flush()
}
