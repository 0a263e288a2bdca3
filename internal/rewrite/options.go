package rewrite

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Options configure one rewrite. The zero value is complete.
type Options struct {
	// Schema is the schema of the written rows (default the table's). A
	// caller whose rows change shape (MERGE with schema evolution) names
	// the new one and returns Replace batches of it for every batch.
	Schema *schema.Struct
	// Store receives the data files (default the snapshot's store); pass
	// storage.WithUploads to size cloud uploads.
	Store storage.Store
	// Compression of the written files (datafile.Options.Compression;
	// default snappy).
	Compression string
	// TargetFileSize is the size of written files; 0 takes the table's
	// delta.targetFileSize, else 100 MiB.
	TargetFileSize int64
	// MaxParallelFiles is how many files are read at once (default 4).
	MaxParallelFiles int
	// MaxBufferedBytes bounds the data held in memory (default 64 MiB):
	// half for decoded batches in flight, half for the writer's buffers.
	MaxBufferedBytes int64
	// ReadBatchSize caps the rows of a decoded batch (default 8192); wide
	// rows get smaller batches.
	ReadBatchSize int
	// Budget, when set, is the budget readers draw on instead of one of
	// half of MaxBufferedBytes under Limits: a caller that holds other
	// memory of the same call (MERGE's source) shares one budget.
	Budget *limits.Budget
	// Limits are the process limits a budget of the call's own draws from
	// (default limits.Process()).
	Limits *limits.Limits
	// Append, when set, is called once after every file was read, with a
	// function that writes more rows (the Schema's Arrow form) through the
	// same writer: MERGE's inserted rows. The batches stay the caller's.
	Append func(ctx context.Context, write func(arrow.RecordBatch) error) error
	// AppendUpdates, with ChangeData, marks the appended rows of a batch
	// that are the new values of rows Output.Superseded let go: their
	// change rows are update post-images, the others inserts.
	AppendUpdates func(arrow.RecordBatch) ([]bool, error)
	// Decide, when set, are the only columns the batch function reads and
	// it never Replaces a batch (the upsert's keys): with DeletionVectors
	// and no ChangeData, files are read for these columns only.
	Decide []string
	// ReadCost, when set, gives a file's decoded bytes per row and what a
	// reader of it holds besides its batches (pages, dictionaries), from
	// its footer (the upsert's probe read it); 0, 0 where unknown. Readers
	// reserve by it instead of guessing from the log's sizes.
	ReadCost func(*protocol.Add) (bytesPerRow float64, overhead int64)
	// EncodeWorkers encode a written row group's columns in parallel
	// (datafile.Options.EncodeWorkers; default 1).
	EncodeWorkers int
	// ChangeData also writes the change data feed (a table with
	// delta.enableChangeDataFeed): every row that leaves as a delete, every
	// updated row as its pre- and post-image, every appended row as an
	// insert, into change data files (Result.CDC) beside the data files.
	ChangeData bool
	// DeletionVectors marks the rows that leave a file, and the old rows of
	// updated ones, in the file's deletion vector instead of writing its
	// other rows again: only updated and appended rows are written, and a
	// file keeps its path, re-added with the union of its old and new
	// deletion vectors (a file all of whose rows leave is removed). The
	// table must support deletion vectors (op.Write decides).
	DeletionVectors bool
	// RowTracking keeps the rows' row ids and commit versions in the
	// table's materialized columns (rowtrack.go). The table must have row
	// tracking enabled (op.Write decides).
	RowTracking bool
	// Where, when set, selects the only rows the batch function may change
	// or remove (those for which it IS TRUE), and WhereDeletes says it
	// removes each of them (DELETE). With DeletionVectors a file is then
	// read for Where's columns first, and the function sees only the
	// selected rows (none when WhereDeletes, unless ChangeData needs their
	// values): the cost follows the change, not the file.
	Where        *expr.Bound
	WhereDeletes bool
	// Selected, when set, are by position the only rows of each file the
	// batch function may change or remove; with DeletionVectors only they
	// are read (a file without an entry is left as it is).
	Selected map[*protocol.Add]*dv.Bitmap
	// Rearrange marks the removes and adds dataChange=false: the rows are
	// written again unchanged, only their files change (compaction), so
	// that readers of the change feed and concurrent appends ignore them.
	Rearrange bool
	// Expected, when set, tells the writer what a partition is expected
	// to store, so that its output is cut into files of about equal size
	// (datafile.Options.Expected).
	Expected func(partitionValues map[string]string) datafile.Expectation
	// Allocator allocates every Arrow buffer (default the Go allocator).
	Allocator memory.Allocator
	// Now stamps the remove actions (default time.Now).
	Now func() time.Time
}

// config is Options with defaults applied.
type config struct {
	Options
	writerBuf int64
}

func resolve(snap *snapshot.Snapshot, opt Options) (*config, error) {
	if snap == nil {
		return nil, errs.New(errs.InvalidArgument, "", "a rewrite needs a table snapshot")
	}
	if err := errs.NonNegative("",
		errs.Knob{Name: "MaxParallelFiles", Value: int64(opt.MaxParallelFiles)},
		errs.Knob{Name: "MaxBufferedBytes", Value: opt.MaxBufferedBytes},
		errs.Knob{Name: "ReadBatchSize", Value: int64(opt.ReadBatchSize)},
		errs.Knob{Name: "TargetFileSize", Value: opt.TargetFileSize}); err != nil {
		return nil, err
	}
	c := &config{Options: opt}
	if c.Schema == nil {
		c.Schema = snap.Schema()
	}
	if c.Store == nil {
		c.Store = snap.Store()
	}
	if c.MaxParallelFiles == 0 {
		c.MaxParallelFiles = limits.DefaultMaxParallelFiles
	}
	if c.MaxBufferedBytes == 0 {
		c.MaxBufferedBytes = limits.DefaultMaxBufferedBytes
	}
	if c.ReadBatchSize == 0 {
		c.ReadBatchSize = limits.DefaultReadBatchSize
	}
	if c.Allocator == nil {
		c.Allocator = arrowmem.Default
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Budget == nil {
		c.Budget = c.Limits.NewBudget(limits.CallConfig{
			MaxParallelPartitions: 1,
			MaxParallelFiles:      c.MaxParallelFiles,
			MaxDecodedBytes:       max(c.MaxBufferedBytes/2, 1),
		})
	}
	c.writerBuf = max(c.MaxBufferedBytes/2, 256<<10)
	return c, nil
}

// propertiesOf are the table's configuration as typed properties.
func propertiesOf(snap *snapshot.Snapshot) protocol.Properties {
	return protocol.Properties(snap.Properties())
}

// HeapBound is the heap a rewrite holds with maxBuffered as its
// MaxBufferedBytes (0: the default), for limits.ExpectHeap: its decoded
// batches and its writer's buffers. No encoded row group comes on top: the
// writer streams row groups to the file with one encoder.
func HeapBound(maxBuffered int64) int64 {
	if maxBuffered == 0 {
		return limits.DefaultMaxBufferedBytes
	}
	return maxBuffered
}
