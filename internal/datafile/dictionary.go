package datafile

import (
	"encoding/binary"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
)

// dictionarySample bounds the values looked at per column when deciding on
// dictionary encoding.
const dictionarySample = 1 << 16

// fileProps returns the Parquet properties for a file whose first rows are
// rows: the Writer's, with dictionary encoding turned off for top-level
// columns where it cannot pay: whose distinct values in those rows already
// exceed the dictionary page limit (the encoder would fill its dictionary
// in every row group, then fall back to plain pages), or that are nearly
// all distinct (keys, random numbers, timestamps: the dictionary holds
// every value and the pages add an index per row). Either way dictionary
// encoding would spend its hashing and copies on more bytes, not fewer;
// hashing distinct int64 and float64 values was a quarter of the CPU of
// writing a table with such columns.
func (w *Writer) fileProps(rows []chunk) *parquet.WriterProperties {
	limit := w.props.DictionaryPageSizeLimit()
	fields := w.fileSchema.Fields()
	plain := make([]bool, len(fields))
	_ = forEach(len(fields), w.EncodeWorkers, func(j int) error { // a panic only leaves the dictionary on
		plain[j] = dictionaryJudged(fields[j].Type) && !dictionaryPays(rows, j, limit)
		return nil
	})
	var off []string
	for j, f := range fields {
		if plain[j] {
			off = append(off, f.Name)
		}
	}
	if len(off) == 0 {
		return w.props
	}
	opts := append([]parquet.WriterProperty(nil), w.propOpts...)
	for _, name := range off {
		opts = append(opts, parquet.WithDictionaryFor(name, false))
	}
	return parquet.NewWriterProperties(opts...)
}

// dictionaryJudged reports whether fileProps samples a column of type t:
// the types whose values valueView sees as bytes, that is byte arrays and
// fixed-width values of whole bytes (not booleans, not nested types).
func dictionaryJudged(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY, arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return true
	}
	fw, ok := t.(arrow.FixedWidthDataType)
	return ok && fw.BitWidth() >= 8 && fw.BitWidth()%8 == 0
}

// minDistinctSample is the fewest values from which a column that is all
// but distinct is judged a key.
const minDistinctSample = 1024

// dictionaryPays reports whether dictionary encoding may help column j,
// judged over at most dictionarySample values of rows: false when their
// distinct values add up to more than limit bytes, or when at least nine in
// ten of them are distinct. Values of up to 8 bytes are told apart as
// integers, which hash several times faster than strings: the check runs
// for every column of every file.
func dictionaryPays(rows []chunk, j int, limit int64) bool {
	if len(rows) == 0 {
		return true
	}
	// Sized for the values to see, the sets never grow by rehashing.
	size := 0
	for _, c := range rows {
		size += int(c.rec.NumRows())
	}
	size = min(size, dictionarySample)
	var words map[uint64]struct{}
	var strs map[string]struct{}
	if fw, ok := rows[0].rec.Column(j).DataType().(arrow.FixedWidthDataType); ok && fw.BitWidth() <= 64 {
		words = make(map[uint64]struct{}, size)
	} else {
		strs = make(map[string]struct{}, size)
	}
	var bytes int64
	n, distinct := 0, 0
	for _, c := range rows {
		col := c.rec.Column(j)
		for i := 0; i < col.Len() && n < dictionarySample; i++ {
			if col.IsNull(i) {
				continue
			}
			n++
			v := valueView(col, i)
			if words != nil {
				var b [8]byte
				copy(b[:], v)
				k := binary.LittleEndian.Uint64(b[:])
				if _, dup := words[k]; dup {
					continue
				}
				words[k] = struct{}{}
			} else {
				if _, dup := strs[v]; dup {
					continue
				}
				strs[v] = struct{}{}
			}
			distinct++
			if bytes += int64(len(v)); bytes > limit {
				return false
			}
		}
	}
	return n < minDistinctSample || distinct*10 < n*9
}

// valueView views value i of an array of a dictionaryJudged type as bytes,
// without copying; the view lives no longer than the array.
func valueView(a arrow.Array, i int) string {
	switch a := a.(type) {
	case *array.String:
		return a.Value(i)
	case *array.LargeString:
		return a.Value(i)
	case *array.Binary:
		b := a.Value(i)
		return unsafe.String(unsafe.SliceData(b), len(b))
	case *array.LargeBinary:
		b := a.Value(i)
		return unsafe.String(unsafe.SliceData(b), len(b))
	}
	d := a.Data()
	width := d.DataType().(arrow.FixedWidthDataType).BitWidth() / 8
	b := d.Buffers()[1].Bytes()[(d.Offset()+i)*width:][:width]
	return unsafe.String(unsafe.SliceData(b), width)
}
