package scan

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
)

// int96Column reads a top-level INT96 timestamp column straight to
// microseconds. Arrow's Parquet reader turns INT96 into nanoseconds, which
// cannot hold dates past 2262 such as the 9999-12-31 "end of time" Spark
// tables are full of; microseconds hold them all.
type int96Column struct {
	chunk
	vals []parquet.Int96
	defs []int16
}

const (
	julianUnixEpoch = 2_440_588 // Julian day number of 1970-01-01
	microsPerDay    = 86_400_000_000
)

func (c *int96Column) openRowGroup(pf *file.Reader, rg int) error {
	return c.open(pf, rg, parquet.Types.Int96)
}

// read returns the next n rows, all of them, as timestamp[us] (no zone;
// the conformer sets the table's).
func (c *int96Column) read(mem memory.Allocator, n int, _ []int32) (arrow.Array, bool, error) {
	rdr := c.rdr.(*file.Int96ColumnChunkReader)
	if cap(c.vals) < n {
		c.vals, c.defs = make([]parquet.Int96, n), make([]int16, n)
	}
	vals, defs := c.vals[:n], c.defs[:n]
	levels, nvals := 0, 0
	for levels < n {
		if err := c.ended(levels, n); err != nil {
			return nil, false, err
		}
		var defOut []int16
		if c.maxDef > 0 {
			defOut = defs[levels:]
		}
		total, got, err := rdr.ReadBatch(int64(n-levels), vals[nvals:], defOut, nil)
		if err != nil {
			return nil, false, err
		}
		levels += int(total)
		nvals += got
	}
	data := arrowmem.Uncleared(mem, arrow.Int64Traits.BytesRequired(n)) // every value is written
	defer data.Release()
	out := arrow.Int64Traits.CastFromBytes(data.Bytes())
	var valid *memory.Buffer
	nulls := 0
	if c.maxDef > 0 && nvals < n {
		valid = arrowmem.Zeroed(mem, int(bitutil.BytesForBits(int64(n))))
		defer valid.Release()
		bits := valid.Bytes()
		v := 0
		for i := range n {
			if defs[i] == c.maxDef {
				bitutil.SetBit(bits, i)
				out[i] = int96Micros(vals[v])
				v++
			} else {
				out[i] = 0
				nulls++
			}
		}
	} else {
		for i := range n {
			out[i] = int96Micros(vals[i])
		}
	}
	d := array.NewData(&arrow.TimestampType{Unit: arrow.Microsecond}, n, []*memory.Buffer{valid, data}, nil, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d), false, nil
}

// int96Micros reads an INT96 (nanoseconds of the day, then the Julian day)
// as microseconds since the epoch.
func int96Micros(v parquet.Int96) int64 {
	nanos := binary.LittleEndian.Uint64(v[:8])
	days := int64(binary.LittleEndian.Uint32(v[8:])) - julianUnixEpoch
	return days*microsPerDay + int64(nanos/1000)
}
