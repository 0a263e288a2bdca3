package upsert

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// pruneByStats returns why a file's log statistics prove it holds none of
// the partition's source keys, or "" when it may hold one.
func (c *config) pruneByStats(add *protocol.Add, k *keys) string {
	if k.set.Len() == 0 {
		return "no source key can match (every key has a null)"
	}
	fs := stats.Parse(add.Stats, c.table, c.mode)
	if fs.NumRecords == 0 {
		return "numRecords is 0"
	}
	for j, f := range c.keyFields {
		col := fs.Column(f.Name)
		if fs.NumRecords > 0 && col.NullCount == fs.NumRecords {
			return "key column " + f.Name + " is null in every row"
		}
		if (col.Min.Known() || col.Max.Known()) && !k.values[j].anyIn(col.Min, col.Max) {
			return "no source key of column " + f.Name + " lies within the file's bounds"
		}
	}
	return ""
}

// chunkBounds reads a column chunk's Parquet statistics as bounds in the
// terms of the table column f: the same kinds the log's statistics parse
// to. Unknown bounds come back for anything it cannot read exactly.
func chunkBounds(cc *metadata.ColumnChunkMetaData, descr *pqschema.Column, f *schema.Field) (lo, hi stats.Value, nulls int64) {
	nulls = -1
	st, err := cc.Statistics()
	if err != nil || st == nil {
		return
	}
	if st.HasNullCount() {
		nulls = st.NullCount()
	}
	if !st.HasMinMax() {
		return
	}
	lt := descr.LogicalType()
	switch t := f.Type.(type) {
	case *schema.Decimal:
		dl, ok := lt.(pqschema.DecimalLogicalType)
		if !ok || int(dl.Scale()) != t.Scale {
			return
		}
		var l, h decimal128.Num
		switch s := st.(type) {
		case *metadata.Int32Statistics:
			l, h, ok = decimal128.FromI64(int64(s.Min())), decimal128.FromI64(int64(s.Max())), true
		case *metadata.Int64Statistics:
			l, h, ok = decimal128.FromI64(s.Min()), decimal128.FromI64(s.Max()), true
		case *metadata.FixedLenByteArrayStatistics:
			var ok1, ok2 bool
			l, ok1 = decimalFromBE(s.Min())
			h, ok2 = decimalFromBE(s.Max())
			ok = ok1 && ok2
		case *metadata.ByteArrayStatistics:
			var ok1, ok2 bool
			l, ok1 = decimalFromBE(s.Min())
			h, ok2 = decimalFromBE(s.Max())
			ok = ok1 && ok2
		default:
			ok = false
		}
		if ok {
			lo, hi = stats.Value{Kind: stats.Decimal, Decimal: l}, stats.Value{Kind: stats.Decimal, Decimal: h}
		}
		return
	case *schema.Primitive:
		switch t.Name {
		case schema.Long, schema.Integer, schema.Short, schema.Byte, schema.Date:
			if il, ok := lt.(pqschema.IntLogicalType); ok && !il.IsSigned() {
				return
			}
			switch s := st.(type) {
			case *metadata.Int32Statistics:
				lo, hi = intValue(int64(s.Min())), intValue(int64(s.Max()))
			case *metadata.Int64Statistics:
				lo, hi = intValue(s.Min()), intValue(s.Max())
			}
		case schema.Timestamp, schema.TimestampNTZ:
			tl, ok := lt.(*pqschema.TimestampLogicalType)
			if !ok || tl.TimeUnit() != pqschema.TimeUnitMicros {
				return
			}
			if s, ok := st.(*metadata.Int64Statistics); ok {
				lo, hi = intValue(s.Min()), intValue(s.Max())
			}
		case schema.Float, schema.Double:
			var l, h float64
			switch s := st.(type) {
			case *metadata.Float32Statistics:
				l, h = float64(s.Min()), float64(s.Max())
			case *metadata.Float64Statistics:
				l, h = s.Min(), s.Max()
			default:
				return
			}
			if !math.IsNaN(l) && !math.IsNaN(h) {
				lo, hi = stats.Value{Kind: stats.Float, Float: l}, stats.Value{Kind: stats.Float, Float: h}
			}
		case schema.Boolean:
			if s, ok := st.(*metadata.BooleanStatistics); ok {
				lo, hi = boolValue(s.Min()), boolValue(s.Max())
			}
		case schema.String, schema.Binary:
			if s, ok := st.(*metadata.ByteArrayStatistics); ok {
				lo, hi = stats.Value{Kind: stats.Bytes, Bytes: string(s.Min())}, stats.Value{Kind: stats.Bytes, Bytes: string(s.Max())}
			}
		}
	}
	return
}

func intValue(v int64) stats.Value { return stats.Value{Kind: stats.Int, Int: v} }

func boolValue(b bool) stats.Value {
	if b {
		return stats.Value{Kind: stats.Int, Int: 1}
	}
	return stats.Value{Kind: stats.Int}
}

// decimalFromBE reads a big-endian two's complement integer of at most 16
// bytes, as Parquet stores decimals in binary columns.
func decimalFromBE(b []byte) (decimal128.Num, bool) {
	if len(b) == 0 || len(b) > 16 {
		return decimal128.Num{}, false
	}
	var buf [16]byte
	if b[0]&0x80 != 0 {
		for i := range buf {
			buf[i] = 0xff
		}
	}
	copy(buf[16-len(b):], b)
	return decimal128.New(int64(binary.BigEndian.Uint64(buf[:8])), binary.BigEndian.Uint64(buf[8:])), true
}

// decimalToBE writes n as a big-endian two's complement integer of width
// bytes; ok is false when it does not fit.
func decimalToBE(n decimal128.Num, width int) ([]byte, bool) {
	var buf [16]byte
	binary.BigEndian.PutUint64(buf[:8], uint64(n.HighBits()))
	binary.BigEndian.PutUint64(buf[8:], n.LowBits())
	if width <= 0 || width > 16 {
		return nil, false
	}
	sign := byte(0)
	if n.Sign() < 0 {
		sign = 0xff
	}
	for i := 0; i < 16-width; i++ {
		if buf[i] != sign {
			return nil, false
		}
	}
	out := append([]byte(nil), buf[16-width:]...)
	if (out[0]&0x80 != 0) != (sign == 0xff) {
		return nil, false
	}
	return out, true
}

// bloomHashes hashes the distinct source values of one key column as a
// Parquet column of the given physical type stores them, for a bloom
// filter's hasher; ok is false when the values cannot be written in that
// type exactly.
func bloomHashes(v *valueSet, descr *pqschema.Column, f *schema.Field, h metadata.Hasher) ([]uint64, bool) {
	if v == nil || v.nan {
		return nil, false
	}
	pt := descr.PhysicalType()
	var out []uint64
	switch v.kind {
	case stats.Int:
		p, ok := f.Type.(*schema.Primitive)
		if !ok || p.Name == schema.Boolean {
			return nil, false
		}
		if p.Name == schema.Timestamp || p.Name == schema.TimestampNTZ {
			tl, ok := descr.LogicalType().(*pqschema.TimestampLogicalType)
			if !ok || tl.TimeUnit() != pqschema.TimeUnitMicros {
				return nil, false
			}
		}
		for _, x := range v.ints {
			switch pt {
			case parquet.Types.Int32:
				if x < math.MinInt32 || x > math.MaxInt32 {
					continue // cannot be in an int32 column at all
				}
				out = append(out, metadata.GetHash(h, int32(x)))
			case parquet.Types.Int64:
				out = append(out, metadata.GetHash(h, x))
			default:
				return nil, false
			}
		}
	case stats.Float:
		for _, x := range v.floats {
			switch pt {
			case parquet.Types.Float:
				out = append(out, metadata.GetHash(h, float32(x)))
			case parquet.Types.Double:
				out = append(out, metadata.GetHash(h, x))
			default:
				return nil, false
			}
			if x == 0 { // the other zero is the same bound but another bit pattern
				if pt == parquet.Types.Float {
					out = append(out, metadata.GetHash(h, float32(-x)))
				} else {
					out = append(out, metadata.GetHash(h, -x))
				}
			}
		}
	case stats.Bytes:
		if pt != parquet.Types.ByteArray {
			return nil, false
		}
		for _, s := range v.strs {
			out = append(out, metadata.GetHash(h, parquet.ByteArray(s)))
		}
	case stats.Decimal:
		t, ok := f.Type.(*schema.Decimal)
		dl, ok2 := descr.LogicalType().(pqschema.DecimalLogicalType)
		if !ok || !ok2 || int(dl.Scale()) != t.Scale {
			return nil, false
		}
		for _, n := range v.decs {
			switch pt {
			case parquet.Types.Int32:
				if !fitsInt64(n) || int64(n.LowBits()) < math.MinInt32 || int64(n.LowBits()) > math.MaxInt32 {
					continue
				}
				out = append(out, metadata.GetHash(h, int32(int64(n.LowBits()))))
			case parquet.Types.Int64:
				if !fitsInt64(n) {
					continue
				}
				out = append(out, metadata.GetHash(h, int64(n.LowBits())))
			case parquet.Types.FixedLenByteArray:
				b, ok := decimalToBE(n, descr.TypeLength())
				if !ok {
					continue
				}
				out = append(out, metadata.GetHash(h, parquet.FixedLenByteArray(b)))
			default:
				return nil, false
			}
		}
	default:
		return nil, false
	}
	return out, true
}

// fitsInt64 reports whether a decimal's unscaled value fits an int64.
func fitsInt64(n decimal128.Num) bool {
	lo := n.LowBits()
	return (n.HighBits() == 0 && lo < 1<<63) || (n.HighBits() == -1 && lo >= 1<<63)
}
