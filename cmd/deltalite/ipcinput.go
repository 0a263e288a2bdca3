package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// openArrowIPC reads an Arrow IPC file (it starts with the magic ARROW1)
// or stream. The batches are counted first, so that an input of no rows
// commits nothing, as with the other formats; then they stream as written.
func openArrowIPC(f *os.File, name string) (*input, error) {
	var magic [6]byte
	n, _ := io.ReadFull(f, magic[:])
	if err := rewind(f, name); err != nil {
		return nil, err
	}
	if n == len(magic) && string(magic[:]) == "ARROW1" {
		fr, err := ipc.NewFileReader(f, ipc.WithAllocator(memory.DefaultAllocator))
		if err != nil {
			return nil, fmt.Errorf("%s: not a readable Arrow IPC file: %w", name, err)
		}
		rows := int64(0)
		for i := range fr.NumRecords() {
			rec, err := fr.RecordBatch(i)
			if err != nil {
				fr.Close()
				return nil, fmt.Errorf("%s: batch %d: %w", name, i, err)
			}
			rows += rec.NumRows()
		}
		r := &ipcFile{fr: fr, i: -1}
		r.refs.Store(1)
		return &input{RecordReader: r, rows: rows}, nil
	}
	rows, err := countStream(f, name)
	if err != nil {
		return nil, err
	}
	if err := rewind(f, name); err != nil {
		return nil, err
	}
	sr, err := ipc.NewReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return nil, fmt.Errorf("%s: not a readable Arrow IPC stream: %w", name, err)
	}
	return &input{RecordReader: sr, rows: rows}, nil
}

func countStream(f *os.File, name string) (int64, error) {
	sr, err := ipc.NewReader(f, ipc.WithAllocator(memory.DefaultAllocator))
	if err != nil {
		return 0, fmt.Errorf("%s: not a readable Arrow IPC file or stream: %w", name, err)
	}
	defer sr.Release()
	rows := int64(0)
	for sr.Next() {
		rows += sr.RecordBatch().NumRows()
	}
	if err := sr.Err(); err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	return rows, nil
}

// ipcFile streams the batches of an Arrow IPC file in order; each is valid
// until the next call to Next, as a RecordReader's are.
type ipcFile struct {
	refs atomic.Int64
	fr   *ipc.FileReader
	i    int
	cur  arrow.RecordBatch
	err  error
}

func (r *ipcFile) Retain() { r.refs.Add(1) }

func (r *ipcFile) Release() {
	if r.refs.Add(-1) == 0 {
		r.fr.Close()
	}
}

func (r *ipcFile) Schema() *arrow.Schema { return r.fr.Schema() }

func (r *ipcFile) Next() bool {
	r.cur = nil
	if r.err != nil || r.i+1 >= r.fr.NumRecords() {
		return false
	}
	r.i++
	r.cur, r.err = r.fr.RecordBatch(r.i)
	return r.err == nil
}

func (r *ipcFile) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *ipcFile) Record() arrow.RecordBatch      { return r.cur }
func (r *ipcFile) Err() error                     { return r.err }
