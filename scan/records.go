package scan

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Schema is the output schema: the logical Arrow schema of the selected
// columns, in selection order. It does not plan the scan.
func (s *Scan) Schema() (*arrow.Schema, error) {
	b, err := s.bind()
	if err != nil {
		return nil, err
	}
	return b.outSchema, nil
}

// Records plans the scan and returns the output schema (the logical Arrow
// schema of the selected columns) and the batches, in plan file order.
//
// A batch is valid until the loop body returns; Retain it to keep it.
// Breaking out of the loop stops the reads and frees what they hold. An
// error ends the sequence.
func (s *Scan) Records(ctx context.Context) (*arrow.Schema, iter.Seq2[arrow.RecordBatch, error], error) {
	b, err := s.bind()
	if err != nil {
		return nil, nil, err
	}
	e, err := b.plan(ctx)
	if err != nil {
		return nil, nil, err
	}
	return b.outSchema, b.stream(ctx, e.Files), nil
}

// RecordReader is Records as an array.RecordReader. Release it when done,
// also when stopping early.
func (s *Scan) RecordReader(ctx context.Context) (array.RecordReader, error) {
	sc, seq, err := s.Records(ctx)
	if err != nil {
		return nil, err
	}
	return NewRecordReader(sc, seq), nil
}

// NewRecordReader adapts a batch sequence of schema sc, such as Records
// returns, to array.RecordReader: each batch is valid until the next call
// of Next, an error ends the batches (Err), and Release stops the
// sequence. Release it when done, also when stopping early.
func NewRecordReader(sc *arrow.Schema, seq iter.Seq2[arrow.RecordBatch, error]) array.RecordReader {
	next, stop := iter.Pull2(seq)
	r := &recordReader{schema: sc, next: next, stop: stop}
	r.refs.Store(1)
	return r
}

type item struct {
	rec arrow.RecordBatch
	err error
}

// queueDepth is how many batches a file reader may run ahead of the
// consumer.
const queueDepth = 2

// stream reads up to parallelism files at once, each into its own queue,
// and yields the queues in plan order. A file's slot is freed only when the
// consumer has drained it, so at most parallelism files (each with at most
// queueDepth batches) are held at any time.
func (b *bound) stream(parent context.Context, tasks []FileTask) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		if b.limit == 0 || len(tasks) == 0 {
			return
		}
		ctx, cancel := context.WithCancel(parent)
		queues := make([]chan item, len(tasks))
		for i := range queues {
			queues[i] = make(chan item, queueDepth)
		}
		slots := make(chan struct{}, b.parallelism)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, t := range tasks {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					return
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer close(queues[i])
					err := b.readFile(ctx, t, func(rec arrow.RecordBatch) bool {
						select {
						case queues[i] <- item{rec: rec}:
							return true
						case <-ctx.Done():
							rec.Release()
							return false
						}
					})
					if err == nil {
						err = ctx.Err() // a cancelled read stops early without an error of its own
						if err != nil {
							err = errs.Wrap(errs.Canceled, t.Key, err, "reading data file")
						}
					}
					if err != nil {
						select {
						case queues[i] <- item{err: err}:
						case <-ctx.Done():
						}
					}
				}()
			}
		}()
		defer func() {
			cancel()
			wg.Wait()
			for _, q := range queues {
				drain(q)
			}
		}()
		var produced int64
		for i := range tasks {
			for {
				var it item
				var ok bool
				select {
				case it, ok = <-queues[i]:
				case <-ctx.Done():
					yield(nil, errs.Wrap(errs.Canceled, "", ctx.Err(), "scan"))
					return
				}
				if !ok {
					break
				}
				if it.err != nil {
					yield(nil, it.err)
					return
				}
				rec := it.rec
				last := false
				if b.limit > 0 && produced+rec.NumRows() >= b.limit {
					if keep := b.limit - produced; keep < rec.NumRows() {
						cut := rec.NewSlice(0, keep)
						rec.Release()
						rec = cut
					}
					last = true
				}
				produced += rec.NumRows()
				more := yield(rec, nil)
				rec.Release()
				if !more || last {
					return
				}
			}
			<-slots
		}
	}
}

// drain frees whatever a queue still holds once its writer has stopped.
func drain(q chan item) {
	for {
		select {
		case it, ok := <-q:
			if !ok {
				return
			}
			if it.rec != nil {
				it.rec.Release()
			}
		default:
			return
		}
	}
}

// recordReader adapts the pull form of Records to array.RecordReader. The
// current batch belongs to the sequence, which frees it on the next pull.
type recordReader struct {
	refs   atomic.Int64
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	cur    arrow.RecordBatch
	err    error
	done   bool
}

func (r *recordReader) Retain() { r.refs.Add(1) }

func (r *recordReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.cur = nil
		r.stop()
	}
}

func (r *recordReader) Schema() *arrow.Schema { return r.schema }

func (r *recordReader) Next() bool {
	r.cur = nil
	if r.done {
		return false
	}
	rec, err, ok := r.next()
	if !ok || err != nil {
		r.err, r.done = err, true
		r.stop()
		return false
	}
	r.cur = rec
	return true
}

func (r *recordReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch under its deprecated name.
func (r *recordReader) Record() arrow.RecordBatch { return r.cur }

func (r *recordReader) Err() error { return r.err }
