package upserttest

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// kind is the type of a generated column.
type kind int

const (
	kInt8 kind = iota
	kInt16
	kInt32
	kInt64
	kString
	kBinary
	kDate
	kTS    // timestamp(us, UTC)
	kTSNTZ // timestamp(us) without zone
	kDec10 // decimal(10,2)
	kDec38 // decimal(38,10)
	kF32
	kF64
	kBool
)

var kindNames = map[kind]string{
	kInt8: "int8", kInt16: "int16", kInt32: "int32", kInt64: "int64", kString: "string", kBinary: "binary",
	kDate: "date", kTS: "timestamp", kTSNTZ: "timestamp_ntz", kDec10: "decimal10_2", kDec38: "decimal38_10",
	kF32: "float32", kF64: "float64", kBool: "bool",
}

func (k kind) String() string { return kindNames[k] }

func (k kind) arrowType() arrow.DataType {
	switch k {
	case kInt8:
		return arrow.PrimitiveTypes.Int8
	case kInt16:
		return arrow.PrimitiveTypes.Int16
	case kInt32:
		return arrow.PrimitiveTypes.Int32
	case kInt64:
		return arrow.PrimitiveTypes.Int64
	case kString:
		return arrow.BinaryTypes.String
	case kBinary:
		return arrow.BinaryTypes.Binary
	case kDate:
		return arrow.FixedWidthTypes.Date32
	case kTS:
		return &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	case kTSNTZ:
		return &arrow.TimestampType{Unit: arrow.Microsecond}
	case kDec10:
		return &arrow.Decimal128Type{Precision: 10, Scale: 2}
	case kDec38:
		return &arrow.Decimal128Type{Precision: 38, Scale: 10}
	case kF32:
		return arrow.PrimitiveTypes.Float32
	case kF64:
		return arrow.PrimitiveTypes.Float64
	case kBool:
		return arrow.FixedWidthTypes.Boolean
	}
	panic(fmt.Sprintf("kind %d", k))
}

// domain is how many distinct key values keyValue yields.
func (k kind) domain() int {
	switch k {
	case kInt8:
		return 256
	case kBool:
		return 2
	case kInt16:
		return 1 << 16
	case kInt32:
		return 20_000 // × 104729 fits an int32
	case kDate, kDec10:
		return 1 << 16 // dates within years 1..9999, decimals within precision 10
	}
	return 1 << 30
}

// keyValue is the i-th value of the kind's key domain: distinct for
// distinct i (under MERGE's equality: no -0.0 beside 0.0), with edge values
// (empty strings and binaries, NaN, infinities, negative dates and
// timestamps, extreme integers) among the first indices.
func (k kind) keyValue(i int) any {
	switch k {
	case kInt8:
		return int64(i - 128)
	case kInt16:
		return int64(i - 32768)
	case kInt32:
		v := int64(i) * 104729
		if i%2 == 1 {
			v = -v - 1
		}
		return v
	case kInt64:
		switch i {
		case 0:
			return int64(math.MinInt64)
		case 1:
			return int64(math.MaxInt64)
		}
		v := int64(i) * 1_000_003_000_001
		if i%2 == 1 {
			v = -v
		}
		return v
	case kString:
		switch {
		case i == 0:
			return ""
		case i%7 == 0:
			return fmt.Sprintf("ü-%d-ключ", i)
		case i%5 == 0:
			return fmt.Sprintf("k %d 'q\"", i)
		}
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", i*2654435761%(1<<32), i)
	case kBinary:
		if i == 0 {
			return []byte{}
		}
		return []byte{byte(i >> 16), byte(i >> 8), byte(i), 0x00, 0xff}
	case kDate:
		return int64(i)*13 - 400_000
	case kTS, kTSNTZ:
		v := int64(i) * 3_600_000_123
		if i%2 == 1 {
			v = -v
		}
		return v
	case kDec10:
		v := int64(i) * 123_457
		if i%2 == 1 {
			v = -v
		}
		return decimal128.FromI64(v)
	case kDec38:
		n := decimal128.New(int64(i)*1_000_003, uint64(i)*0x9E3779B97F4A7C15)
		if i%2 == 1 {
			n = n.Negate()
		}
		return n
	case kF32, kF64:
		switch i {
		case 0:
			return math.NaN()
		case 1:
			return math.Inf(1)
		case 2:
			return math.Inf(-1)
		case 3:
			return 0.0
		}
		v := 1000.25 + float64(i)*0.5
		if k == kF64 {
			v = 1e-3 + float64(i)*0.125
		}
		if i%2 == 1 {
			v = -v
		}
		return v
	case kBool:
		return i == 1
	}
	panic(fmt.Sprintf("kind %d", k))
}

// canon renders a value for identities and messages: floats under MERGE's
// equality (every NaN one value, -0.0 equal to 0.0).
func canon(k kind, v any) string {
	if v == nil {
		return "∅"
	}
	switch k {
	case kBinary:
		return "0x" + hex.EncodeToString(v.([]byte))
	case kDec10, kDec38:
		n := v.(decimal128.Num)
		return n.BigInt().String()
	case kF32, kF64:
		f := v.(float64)
		switch {
		case math.IsNaN(f):
			return "NaN"
		case f == 0:
			return "0"
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// column is a table column of a scenario.
type column struct {
	name string
	kind kind
	// dict makes the engine's source carry the column dictionary-encoded
	// (strings only); the table and MERGE see plain strings.
	dict bool
}

// randomValue is a value column's value: nil about one time in ten.
func randomValue(r *rand.Rand, k kind) any {
	if r.IntN(10) == 0 {
		return nil
	}
	switch k {
	case kString:
		alphabet := []rune("abcxyz019 éü€🎉'\"\\/%")
		n := r.IntN(24)
		var sb strings.Builder
		for range n {
			sb.WriteRune(alphabet[r.IntN(len(alphabet))])
		}
		return sb.String()
	case kF64:
		switch r.IntN(12) {
		case 0:
			return math.NaN()
		case 1:
			return math.Copysign(0, -1)
		}
		return math.Round(r.NormFloat64()*1e6) / 1e3
	}
	return k.keyValue(r.IntN(1 << 20))
}

// appendValue appends v (nil for null) to a builder of the kind's type, or
// of a string dictionary.
func appendValue(b array.Builder, k kind, v any) {
	if v == nil {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.Int8Builder:
		bb.Append(int8(v.(int64)))
	case *array.Int16Builder:
		bb.Append(int16(v.(int64)))
	case *array.Int32Builder:
		bb.Append(int32(v.(int64)))
	case *array.Int64Builder:
		bb.Append(v.(int64))
	case *array.StringBuilder:
		bb.Append(v.(string))
	case *array.BinaryBuilder:
		bb.Append(v.([]byte))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(v.(int64)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(v.(int64)))
	case *array.Decimal128Builder:
		bb.Append(v.(decimal128.Num))
	case *array.Float32Builder:
		bb.Append(float32(v.(float64)))
	case *array.Float64Builder:
		bb.Append(v.(float64))
	case *array.BooleanBuilder:
		bb.Append(v.(bool))
	case *array.BinaryDictionaryBuilder:
		if err := bb.AppendString(v.(string)); err != nil {
			panic(err)
		}
	default:
		panic(fmt.Sprintf("builder %T for %s", b, k))
	}
}

// encoding is how a source presents its columns to the engine.
type encoding struct {
	// dicts encodes dict columns as dictionaries.
	dicts bool
	// widen sends narrow integers as int64 and zoned timestamps in another
	// zone, for the engine to cast to the table's types. (Floats are not
	// narrowed: the engine refuses float64 to float32 whatever the values.)
	widen bool
}

// plain is the table's own types, as MERGE and the table see them.
var plain = encoding{}

// record builds an Arrow record of rows (in cols order) with the columns
// named by pick (indexes into cols), encoded as enc says. extra, when not
// nil, appends a boolean column.
func record(cols []column, pick []int, rows [][]any, enc encoding, extraName string, extra []bool) arrow.RecordBatch {
	fields := make([]arrow.Field, 0, len(pick)+1)
	for _, i := range pick {
		c := cols[i]
		dt := c.kind.arrowType()
		switch {
		case enc.dicts && c.dict:
			dt = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}
		case enc.widen && (c.kind == kInt8 || c.kind == kInt16 || c.kind == kInt32):
			dt = arrow.PrimitiveTypes.Int64
		case enc.widen && c.kind == kTS:
			dt = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Asia/Kolkata"}
		}
		fields = append(fields, arrow.Field{Name: c.name, Type: dt, Nullable: true})
	}
	if extra != nil {
		fields = append(fields, arrow.Field{Name: extraName, Type: arrow.FixedWidthTypes.Boolean, Nullable: true})
	}
	sc := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for r, row := range rows {
		for j, i := range pick {
			appendValue(b.Field(j), cols[i].kind, row[i])
		}
		if extra != nil {
			b.Field(len(pick)).(*array.BooleanBuilder).Append(extra[r])
		}
	}
	return b.NewRecordBatch()
}

func allColumns(cols []column) []int {
	out := make([]int, len(cols))
	for i := range out {
		out[i] = i
	}
	return out
}

// lines renders rows canonically, as arrowrows renders what a table read.
func lines(cols []column, rows [][]any) []string {
	rec := record(cols, allColumns(cols), rows, plain, "", nil)
	defer rec.Release()
	return arrowrows.Rows(rec)
}

// model is the upsert semantics over rows in memory: identity is the
// partition values plus the key values; a null key never matches.
type model struct {
	cols  []column
	keys  []int // indexes of key columns in cols
	parts []int // indexes of partition columns in cols
	rows  map[string][]any
	nulls [][]any
}

func newModel(cols []column, keys, parts []int) *model {
	return &model{cols: cols, keys: keys, parts: parts, rows: map[string][]any{}}
}

// identity of a row; ok is false when a key value is null.
func (m *model) identity(row []any) (string, bool) {
	var sb strings.Builder
	for _, i := range m.parts {
		sb.WriteString(canon(m.cols[i].kind, row[i]))
		sb.WriteByte(0)
	}
	sb.WriteByte(1)
	for _, i := range m.keys {
		if row[i] == nil {
			return "", false
		}
		sb.WriteString(canon(m.cols[i].kind, row[i]))
		sb.WriteByte(0)
	}
	return sb.String(), true
}

// partition is the canonical partition of a row.
func (m *model) partition(row []any) string {
	var sb strings.Builder
	for _, i := range m.parts {
		sb.WriteString(canon(m.cols[i].kind, row[i]))
		sb.WriteByte(0)
	}
	return sb.String()
}

// counts are what one batch does to the model.
type counts struct {
	updated, inserted, deleted, nullKeys int64
}

// apply applies deletes then upserts (whose identities are distinct).
func (m *model) apply(upserts, deletes [][]any) counts {
	var c counts
	for _, row := range deletes {
		if id, ok := m.identity(row); ok {
			if _, found := m.rows[id]; found {
				delete(m.rows, id)
				c.deleted++
			}
		}
	}
	for _, row := range upserts {
		id, ok := m.identity(row)
		switch {
		case !ok:
			m.nulls = append(m.nulls, slices.Clone(row))
			c.inserted++
			c.nullKeys++
		default:
			if _, found := m.rows[id]; found {
				c.updated++
			} else {
				c.inserted++
			}
			m.rows[id] = slices.Clone(row)
		}
	}
	return c
}

func (m *model) all() [][]any {
	out := make([][]any, 0, len(m.rows)+len(m.nulls))
	for _, r := range m.rows {
		out = append(out, r)
	}
	return append(out, m.nulls...)
}

func (m *model) lines() []string { return lines(m.cols, m.all()) }

func (m *model) clone() *model {
	c := newModel(m.cols, m.keys, m.parts)
	for k, v := range m.rows {
		c.rows[k] = v
	}
	c.nulls = slices.Clone(m.nulls)
	return c
}
