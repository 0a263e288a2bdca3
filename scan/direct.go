package scan

import (
	"fmt"
	mbits "math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
)

// directColumn reads one top-level leaf column straight from its column
// chunks instead of through pqarrow, batch by batch in step with it.
type directColumn interface {
	openRowGroup(pf *file.Reader, rg int) error
	// close frees the page buffers of the current row group's reader.
	close()
	// read consumes the next n rows and returns them, or with selected
	// true only the rows at sel (ascending; nil: all of them).
	read(mem memory.Allocator, n int, sel []int32) (a arrow.Array, selected bool, err error)
}

// bytesColumn reads a flat BYTE_ARRAY column (string or binary) and copies
// only the rows a deletion vector keeps. Through pqarrow every value is
// copied into a builder that zeroes its buffers as it grows, and the
// survivors copied again: with 1 KB values that was a third of the CPU of
// a scan after deletions. Here a value goes from the decompressed page to
// its output buffer once; plain values are views of the page, so they are
// copied page by page, before the reader moves on.
type bytesColumn struct {
	chunk
	typ    arrow.DataType // STRING or BINARY, as pqarrow would read it
	vals   []parquet.ByteArray
	defs   []int16
	perRow int // data bytes per output row of the last batch, to size the next
}

// chunk is a directColumn's leaf and the reader of its chunk in the
// current row group.
type chunk struct {
	col    int // leaf column index
	maxDef int16
	rdr    file.ColumnChunkReader
}

func (c *chunk) open(pf *file.Reader, rg int, want parquet.Type) error {
	c.close()
	cr, err := pf.RowGroup(rg).Column(c.col)
	if err != nil {
		return err
	}
	if cr.Type() != want {
		cr.Close()
		return fmt.Errorf("column %d is %s, not %s", c.col, cr.Type(), want)
	}
	c.rdr = cr
	return nil
}

// ended is nil while the chunk has rows left, else why it has none: its
// reader's error, or that it ended after row of the n rows asked for.
func (c *chunk) ended(row, n int) error {
	if c.rdr.HasNext() {
		return nil
	}
	if err := c.rdr.Err(); err != nil {
		return err
	}
	return fmt.Errorf("column %d ends after %d of %d rows", c.col, row, n)
}

func (c *chunk) close() {
	if c.rdr != nil {
		c.rdr.Close()
		c.rdr = nil
	}
}

// directBytes reports whether a leaf column that pqarrow reads as type t
// can be read by a bytesColumn.
func directBytes(descr *schema.Column, t arrow.DataType) bool {
	return descr.PhysicalType() == parquet.Types.ByteArray && descr.MaxRepetitionLevel() == 0 &&
		descr.MaxDefinitionLevel() <= 1 && (t.ID() == arrow.STRING || t.ID() == arrow.BINARY)
}

func (c *bytesColumn) openRowGroup(pf *file.Reader, rg int) error {
	if err := c.open(pf, rg, parquet.Types.ByteArray); err != nil {
		return err
	}
	if c.perRow == 0 { // the file's first batch: estimate from the chunk's size
		if cc, err := pf.MetaData().RowGroup(rg).ColumnChunk(c.col); err == nil && cc.NumValues() > 0 {
			c.perRow = int(cc.TotalUncompressedSize() / cc.NumValues())
		}
	}
	return nil
}

func (c *bytesColumn) read(mem memory.Allocator, n int, sel []int32) (arrow.Array, bool, error) {
	m := n
	if sel != nil {
		m = len(sel)
	}
	rdr := c.rdr.(*file.ByteArrayColumnChunkReader)
	if cap(c.vals) < n {
		c.vals, c.defs = make([]parquet.ByteArray, n), make([]int16, n)
	}
	offsets := arrowmem.Uncleared(mem, (m+1)*4)
	defer offsets.Release()
	off := arrow.Int32Traits.CastFromBytes(offsets.Bytes())
	var valid *memory.Buffer
	var bits []byte
	if c.maxDef > 0 {
		valid = arrowmem.Zeroed(mem, int(bitutil.BytesForBits(int64(m))))
		defer valid.Release()
		bits = valid.Bytes()
	}
	data := arrowmem.Uncleared(mem, coarse(c.perRow*m+m/8))
	defer func() { data.Release() }()
	buf := data.Bytes()
	at, k, nulls := 0, 0, 0 // bytes written, output rows written, nulls among them
	for row := 0; row < n; {
		if err := c.ended(row, n); err != nil {
			return nil, false, err
		}
		var defs []int16
		if c.maxDef > 0 {
			defs = c.defs[:n-row]
		}
		// One page at most: the values are views of it.
		levels, _, err := rdr.ReadBatchInPage(int64(n-row), c.vals[:n-row], defs, nil)
		if err != nil {
			return nil, false, err
		}
		v := 0
		for i := range int(levels) {
			isNull := defs != nil && defs[i] < c.maxDef
			var val parquet.ByteArray
			if !isNull {
				val = c.vals[v]
				v++
			}
			if sel != nil && (k == m || int(sel[k]) != row+i) {
				continue
			}
			off[k] = int32(at)
			if isNull {
				nulls++
			} else {
				if bits != nil {
					bitutil.SetBit(bits, k)
				}
				if at+len(val) > len(buf) {
					data = grow(mem, data, at, at+len(val))
					buf = data.Bytes()
				}
				at += copy(buf[at:], val)
			}
			k++
		}
		row += int(levels)
	}
	if at > 1<<31-1 {
		return nil, false, fmt.Errorf("column %d holds more than 2 GiB in %d rows", c.col, m)
	}
	off[m] = int32(at)
	if m > 0 {
		c.perRow = (at + m - 1) / m
	}
	if nulls == 0 {
		valid = nil
	}
	used := memory.SliceBuffer(data, 0, at) // its length is the bytes the offsets use, as a builder's
	defer used.Release()
	d := array.NewData(c.typ, m, []*memory.Buffer{valid, offsets, used}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), sel != nil, nil
}

// coarse rounds a buffer size up to a quarter of its power of two. Batches
// of varying rows need data buffers of every size; the pool keeps idle
// buffers per size class, and with its finer classes a scan of files whose
// row groups vary held half as much memory again in idle buffers of sizes
// no batch asked for twice.
func coarse(n int) int {
	n = max(n, 64)
	step := 1 << max(mbits.Len(uint(n-1))-3, 0)
	return (n + step - 1) &^ (step - 1)
}

// grow returns a buffer of at least need bytes (half as much again, to
// grow rarely) holding the first used bytes of b, and releases b.
func grow(mem memory.Allocator, b *memory.Buffer, used, need int) *memory.Buffer {
	nb := arrowmem.Uncleared(mem, coarse(need+need/2))
	copy(nb.Bytes(), b.Bytes()[:used])
	b.Release()
	return nb
}
