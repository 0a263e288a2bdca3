package datafile

import (
	"runtime"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/compress"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// Defaults of the options.
const (
	DefaultMaxUnwrittenBytes = 64 << 20
	DefaultMaxOpenFiles      = 128
	// DefaultMaxRowGroupRows caps a row group whatever its byte size.
	DefaultMaxRowGroupRows = 1 << 20
)

// Options configure a Writer.
type Options struct {
	// Schema is the logical table schema; Write takes batches of its Arrow
	// form (schema.ToArrow with no options), which Conform produces.
	Schema *schema.Struct
	// PartitionColumns name columns of Schema; their values become
	// directories and partitionValues and are not stored in the files.
	PartitionColumns []string
	// ColumnMapping writes physical names and field ids when not none.
	ColumnMapping schema.Mode
	// Properties are the table properties: statistics configuration
	// (delta.dataSkipping*) and delta.targetFileSize.
	Properties protocol.Properties
	// TargetFileSize is the size at which a file is rolled; 0 takes
	// delta.targetFileSize, else 100 MiB.
	TargetFileSize int64
	// Compression is "snappy" (default), "zstd", "gzip", "lz4", "brotli" or
	// "none".
	Compression string
	// MaxUnwrittenBytes bounds the Arrow data buffered, not yet written, over
	// all partitions (default 64 MiB); when it is reached the largest
	// buffers are written as row groups. A row group holds at most half of
	// it (and at most DefaultMaxRowGroupRows rows). Peak memory is about
	// this bound plus the encoded pages of the row group being written
	// (about its Arrow size at most); Go's collector may take twice that
	// from the system.
	MaxUnwrittenBytes int64
	// Expected, when set, tells what the write is expected to store in
	// the partition with the given partitionValues (keyed and rendered as
	// in its add actions; empty for an unpartitioned table; not to be
	// modified). With an expectation, the partition's output is cut into
	// files of about equal size near the target instead of full files and
	// a small tail (see Files in the package doc). The Writer asks each
	// time it decides where a file of the partition ends, on the goroutine
	// calling Write or Close, so an expectation may be refined as the
	// write proceeds.
	Expected func(partitionValues map[string]string) Expectation
	// MaxOpenFiles bounds the data files open at once (default 128); past
	// it the least recently written file is finished early. A file is
	// opened at its first row group, so partitions whose rows fit in the
	// buffer never hold one for long; a write to more partitions than this
	// whose data does not fit in the buffer makes more, smaller files.
	MaxOpenFiles int
	// EncodeWorkers is how many goroutines one Writer encodes with (default
	// GOMAXPROCS): the column chunks of a row group are encoded at once,
	// each into memory, and the row group written when the last is done.
	// With 1 a row group streams to its file page by page and is never held
	// encoded, which costs less CPU and memory; callers that run several
	// Writers at once give each a share of the cores.
	EncodeWorkers int
	// DataChange is copied to every add action.
	DataChange bool
	// ChangeData writes change data files of the change data feed
	// instead of data files: under _change_data/ (then the partition
	// directories), named cdc-NNNNN-<uuid>.c000.<codec>.parquet as Spark
	// names them, without statistics. Close returns them as add actions
	// all the same; the caller commits them as cdc actions.
	ChangeData bool
	// Hidden is how many of Schema's last columns are hidden from readers
	// (row tracking's materialized columns, which the table schema does
	// not name): written like the others, never given statistics.
	Hidden int
	// Allocator allocates Arrow and Parquet buffers (default arrowmem.Default,
	// which reuses the page, dictionary and compression buffers that every
	// column chunk would otherwise take fresh from the Go heap).
	Allocator memory.Allocator
	// Now stamps modificationTime (default time.Now).
	Now func() time.Time
}

// Expectation is what a write is expected to store in one partition.
type Expectation struct {
	// Rows is the rows in all; 0 when unknown.
	Rows int64
	// BytesPerRow is the Parquet bytes a row takes (as the files being
	// rewritten store them, say), for sizes until the Writer has measured
	// its own; 0 when unknown.
	BytesPerRow float64
}

// codec is a Parquet compression codec and the infix of its file names.
type codec struct {
	c   compress.Compression
	ext string
}

var codecs = map[string]codec{
	"":             {compress.Codecs.Snappy, ".snappy"},
	"snappy":       {compress.Codecs.Snappy, ".snappy"},
	"zstd":         {compress.Codecs.Zstd, ".zstd"},
	"gzip":         {compress.Codecs.Gzip, ".gz"},
	"lz4":          {compress.Codecs.Lz4Raw, ".lz4raw"},
	"lz4_raw":      {compress.Codecs.Lz4Raw, ".lz4raw"},
	"brotli":       {compress.Codecs.Brotli, ".br"},
	"none":         {compress.Codecs.Uncompressed, ""},
	"uncompressed": {compress.Codecs.Uncompressed, ""},
}

// settings are the options resolved against defaults and table properties.
type settings struct {
	Options
	codec       codec
	target      int64
	parts       []*schema.Field // partition fields, in PartitionColumns order
	statsConfig statsConfig
}

func resolve(opt Options) (*settings, error) {
	s := &settings{Options: opt}
	bad := func(format string, args ...any) error { return errs.New(errs.InvalidArgument, "", format, args...) }
	if opt.Schema == nil || len(opt.Schema.Fields) == 0 {
		return nil, bad("a write needs a table schema with at least one column")
	}
	if s.ColumnMapping == "" {
		s.ColumnMapping = schema.MappingNone
	}
	if _, err := schema.ParseMode(string(s.ColumnMapping)); err != nil {
		return nil, bad("%v", err)
	}
	c, ok := codecs[strings.ToLower(opt.Compression)]
	if !ok {
		return nil, bad("unknown compression %q (want snappy, zstd, gzip, lz4, brotli or none)", opt.Compression)
	}
	s.codec = c
	s.target = opt.TargetFileSize
	if s.target < 0 {
		return nil, bad("target file size %d is negative", s.target)
	}
	if s.target == 0 {
		t, err := opt.Properties.TargetFileSize()
		if err != nil {
			return nil, bad("%v", err)
		}
		s.target = t
	}
	if s.MaxUnwrittenBytes < 0 || s.MaxOpenFiles < 0 || s.EncodeWorkers < 0 {
		return nil, bad("MaxUnwrittenBytes, MaxOpenFiles and EncodeWorkers must not be negative")
	}
	if s.EncodeWorkers == 0 {
		s.EncodeWorkers = runtime.GOMAXPROCS(0)
	}
	if s.MaxUnwrittenBytes == 0 {
		s.MaxUnwrittenBytes = DefaultMaxUnwrittenBytes
	}
	if s.MaxOpenFiles == 0 {
		s.MaxOpenFiles = DefaultMaxOpenFiles
	}
	if s.Allocator == nil {
		s.Allocator = arrowmem.Default
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	seen := map[*schema.Field]bool{}
	for _, name := range opt.PartitionColumns {
		f := opt.Schema.Field(name)
		if f == nil {
			return nil, bad("partition column %q is not in the schema (%s)", name, opt.Schema)
		}
		if seen[f] {
			return nil, bad("partition column %q is named twice", name)
		}
		seen[f] = true
		if !partitionable(f.Type) {
			return nil, bad("column %q of type %s cannot be a partition column", f.Name, f.Type)
		}
		s.parts = append(s.parts, f)
	}
	if len(s.parts) == len(opt.Schema.Fields) {
		return nil, bad("every column is a partition column: a data file needs at least one other column")
	}
	sc, err := readStatsConfig(opt.Properties)
	if err != nil {
		return nil, err
	}
	s.statsConfig = sc
	return s, nil
}

// partitionable reports whether a column of type t can partition a table:
// primitive types with a text form in partitionValues.
func partitionable(t schema.Type) bool {
	switch t := t.(type) {
	case *schema.Decimal:
		return true
	case *schema.Primitive:
		switch t.Name {
		case schema.Variant, schema.Void:
			return false
		}
		return true
	}
	return false
}

// ChangeDataDir is the folder of a table's change data files.
const ChangeDataDir = "_change_data/"
