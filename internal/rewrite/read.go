package rewrite

import (
	"context"
	"math"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"golang.org/x/sync/errgroup"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
)

// scanInFlight is how many decoded batches of one file a scan holds at
// most: two queued, one being decoded, one with its consumer.
const scanInFlight = 4

// readerInFlight adds the batch on its way to the writer.
const readerInFlight = scanInFlight + 1

// Bounds of the decoded size of one batch.
const (
	minBatchBytes = 64 << 10
	maxBatchBytes = 8 << 20
)

// firstRatio is the guess of decoded Arrow bytes per stored Parquet byte
// before any batch of the call was measured; a guess that falls short
// makes the first reader grow its reservation.
const firstRatio = 4.0

// reader reads files within the call's budget. It learns the ratio of
// decoded to stored bytes from the batches it sees, so that later files
// get batches of the right size.
type reader struct {
	c     *config
	snap  *snapshot.Snapshot
	rt    *rowTracking  // nil: rows need no identity kept
	ratio atomic.Uint64 // float64 bits; 0 until measured
}

// batchTarget is the decoded size of one batch: the budget shared by every
// reader that may run at once, each holding readerInFlight batches.
func (r *reader) batchTarget() int64 {
	t := r.c.Budget.Config().MaxDecodedBytes / int64(r.c.MaxParallelFiles*readerInFlight)
	return min(max(t, minBatchBytes), maxBatchBytes)
}

// shape is the batch rows and the expected decoded bytes per batch for a
// file, from its size and record count in the log.
func (r *reader) shape(a *protocol.Add) (rows int, per int64) {
	var perRow float64 // decoded bytes of a row; 0 unknown
	if r.c.ReadCost != nil {
		perRow, _ = r.c.ReadCost(a)
	}
	if perRow <= 0 {
		ratio := math.Float64frombits(r.ratio.Load())
		if ratio == 0 {
			ratio = firstRatio
		}
		if fs := stats.Parse(a.Stats, r.snap.Schema(), r.snap.ColumnMapping()); fs != nil && fs.NumRecords > 0 && a.Size > 0 {
			perRow = ratio * float64(a.Size) / float64(fs.NumRecords)
		}
	}
	rows = r.c.ReadBatchSize
	if perRow > 0 {
		rows = min(max(int(float64(r.batchTarget())/perRow), 1), r.c.ReadBatchSize)
		per = int64(perRow * float64(rows))
	}
	return rows, max(per*9/8, minBatchBytes)
}

// learn records the decoded bytes of a batch of rows of a whole-row read
// of file a.
func (r *reader) learn(a *protocol.Add, rows int64, bytes int64) {
	fs := stats.Parse(a.Stats, r.snap.Schema(), r.snap.ColumnMapping())
	if fs == nil || fs.NumRecords <= 0 || a.Size <= 0 || rows <= 0 {
		return
	}
	ratio := float64(bytes) / float64(rows) / (float64(a.Size) / float64(fs.NumRecords))
	for {
		old := r.ratio.Load()
		if math.Float64frombits(old) >= ratio || r.ratio.CompareAndSwap(old, math.Float64bits(ratio)) {
			return
		}
	}
}

// read streams one file through each, holding a file permit and a
// reservation that covers the batches in flight. each owns the batch
// (it is retained for it). A
// whole-row read (no extra options) teaches the reader its batch sizes.
func (r *reader) read(ctx context.Context, a *protocol.Add, each func(rec arrow.RecordBatch) error, extra ...scan.Option) error {
	release, err := r.c.Budget.AcquireFile(ctx)
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "reading %s", a.Path)
	}
	defer release()
	rows, per := r.shape(a)
	var overhead int64
	if r.c.ReadCost != nil {
		_, overhead = r.c.ReadCost(a)
	}
	res, err := r.c.Budget.AcquireBytes(ctx, per*readerInFlight+overhead)
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "reading %s", a.Path)
	}
	defer res.Release()
	opts := append([]scan.Option{scan.WithFiles(a), scan.WithBatchSize(rows), scan.WithParallelism(1),
		scan.WithAllocator(r.c.Allocator)}, extra...)
	_, seq, err := scan.New(r.snap, opts...).Records(ctx)
	if err != nil {
		return err
	}
	measured := false
	for rec, err := range seq {
		if err != nil {
			return err
		}
		got := batchBytes(rec)
		if len(extra) == 0 && !measured && rec.NumRows() == int64(rows) {
			// Only a full batch of every column says what a row costs.
			r.learn(a, rec.NumRows(), got)
			measured = true
		}
		if got > per {
			per = got * 5 / 4 // headroom: growing may wait for the budget
			if err := res.Resize(ctx, per*readerInFlight+overhead); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "reading %s", a.Path)
			}
		}
		rec.Retain() // the scan releases it when the loop body returns
		if err := each(rec); err != nil {
			return err
		}
	}
	return nil
}

// forEach runs fn on every file, MaxParallelFiles at once, and returns the
// first error (after which the others are cancelled). A panic in fn is an
// errs.Internal error naming the file.
func (r *reader) forEach(ctx context.Context, files []*protocol.Add, fn func(ctx context.Context, i int, a *protocol.Add) error) error {
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(r.c.MaxParallelFiles)
	for i, a := range files {
		if gctx.Err() != nil {
			break
		}
		g.Go(func() (err error) {
			defer func() {
				if v := recover(); v != nil {
					err = errs.Recovered(errs.Internal, a.Path, "rewrite", v)
				}
			}()
			return fn(gctx, i, a)
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return errs.Wrap(errs.Canceled, "", err, "rewriting")
	}
	return nil
}

// batchBytes is the decoded size of a batch.
func batchBytes(rec arrow.RecordBatch) int64 {
	var n uint64
	for _, col := range rec.Columns() {
		n += col.Data().SizeInBytes()
	}
	return int64(n)
}
