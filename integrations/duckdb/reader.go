//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"iter"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/scan"
)

// ScanReader streams a scan as an array.RecordReader that DuckDB may call
// from its own threads. The scan runs on a goroutine of its own and hands
// batches over one at a time, so at most two batches are held. (The scan's
// own RecordReader is a coroutine of iter.Pull2, which must not be resumed
// from a cgo callback on another OS thread than the one that made it.)
// Release it when done, also when stopping early.
func ScanReader(ctx context.Context, s *scan.Scan) (array.RecordReader, error) {
	sc, seq, err := s.Records(ctx)
	if err != nil {
		return nil, err
	}
	return pump(sc, seq), nil
}

// goRecordReader is ScanReader for a reader open makes, such as
// Table.Changes' (a coroutine of iter.Pull2 too): open, every Next and
// the Release run on the goroutine, and open's error is returned.
func goRecordReader(open func() (array.RecordReader, error)) (array.RecordReader, error) {
	opened := make(chan error, 1)
	var sc *arrow.Schema
	r := pump(nil, func(yield func(arrow.RecordBatch, error) bool) {
		rr, err := open()
		if err != nil {
			opened <- err
			return
		}
		defer rr.Release()
		sc = rr.Schema()
		opened <- nil
		for rr.Next() {
			if !yield(rr.RecordBatch(), nil) {
				return
			}
		}
		if err := rr.Err(); err != nil {
			yield(nil, err)
		}
	})
	if err := <-opened; err != nil {
		r.Release()
		return nil, err
	}
	r.schema = sc
	return r, nil
}

// pump runs seq on a goroutine of its own and hands its batches over one
// at a time.
func pump(sc *arrow.Schema, seq iter.Seq2[arrow.RecordBatch, error]) *goReader {
	r := &goReader{schema: sc, items: make(chan item), stop: make(chan struct{})}
	r.refs.Store(1)
	go func() {
		defer close(r.items)
		for rec, err := range seq {
			if err != nil {
				select {
				case r.items <- item{err: err}:
				case <-r.stop:
				}
				return
			}
			rec.Retain()
			select {
			case r.items <- item{rec: rec}:
			case <-r.stop:
				rec.Release()
				return
			}
		}
	}()
	return r
}

type item struct {
	rec arrow.RecordBatch
	err error
}

type goReader struct {
	refs     atomic.Int64
	schema   *arrow.Schema
	items    chan item
	stop     chan struct{}
	stopOnce sync.Once
	cur      arrow.RecordBatch
	err      error
}

func (r *goReader) Schema() *arrow.Schema { return r.schema }

func (r *goReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil {
		return false
	}
	it, ok := <-r.items
	if !ok {
		return false
	}
	if it.err != nil {
		r.err = it.err
		return false
	}
	r.cur = it.rec
	return true
}

func (r *goReader) RecordBatch() arrow.RecordBatch { return r.cur }

// Record is RecordBatch under its older name.
//
// Deprecated: use RecordBatch.
func (r *goReader) Record() arrow.RecordBatch { return r.cur }

func (r *goReader) Err() error { return r.err }

func (r *goReader) Retain() { r.refs.Add(1) }

// Release stops the scan once the last reference goes and frees what it
// holds.
func (r *goReader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	r.stopOnce.Do(func() { close(r.stop) })
	for it := range r.items {
		if it.rec != nil {
			it.rec.Release()
		}
	}
}
