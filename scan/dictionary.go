package scan

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/schema"
)

// WithDictionaries lets the named columns (string or binary, top level)
// come as Arrow dictionary arrays (int32 indices into values of the
// column's type) from the files that store them dictionary-encoded in every
// page: the values of the file's dictionaries are then decoded once, not
// copied out row by row. It is for consumers that take dictionaries as they
// are (DuckDB makes them its own dictionary vectors): a batch's schema then
// has the dictionary type for such a column, and batches of other files the
// column's own type. Columns a predicate of the scan reads, and columns of
// other types, are decoded as without the option.
func WithDictionaries(names ...string) Option {
	return func(s *Scan) { s.dictionaries = append(append([]string(nil), s.dictionaries...), names...) }
}

// dictionaryReads marks the read columns that may stay dictionaries
// (WithDictionaries): selected, string or binary, and read by no
// predicate (predicates evaluate plain arrays).
func (b *bound) dictionaryReads() {
	if len(b.dictionaries) == 0 {
		return
	}
	b.dictRead = make([]bool, len(b.read))
	for _, name := range b.dictionaries {
		f := b.sc.Field(name)
		if f == nil {
			continue
		}
		for _, oc := range b.out[:b.visible] {
			if oc.field != f || oc.read < 0 || b.predicateReads(f) {
				continue
			}
			switch b.readTypes[oc.read].ID() {
			case arrow.STRING, arrow.BINARY:
				b.dictRead[oc.read] = true
			}
		}
	}
}

func (b *bound) predicateReads(f *schema.Field) bool {
	for _, p := range b.preds {
		for _, ref := range p.Columns() {
			if b.sc.Field(ref.Path[0]) == f {
				return true
			}
		}
	}
	return false
}

// dictionaryLeaves returns the Parquet leaves of the read columns that stay
// dictionaries in this file, and marks them in dictCols: those of dictRead
// that the file stores as a leaf of its top level, dictionary-encoded
// throughout.
func (fr *fileReader) dictionaryLeaves(pr *pqarrow.FileReader) []int {
	if fr.b.dictRead == nil {
		return nil
	}
	fr.dictCols = make([]bool, len(fr.b.read))
	top := manifestFields(pr.Manifest.Fields)
	md := pr.ParquetReader().MetaData()
	var out []int
	for i, f := range fr.b.read {
		if !fr.b.dictRead[i] || fr.recCol[i] < 0 {
			continue
		}
		j := MatchField(top, f, fr.b.mode)
		if j < 0 {
			continue
		}
		if sf := &pr.Manifest.Fields[j]; sf.IsLeaf() && sf.Field.Type.ID() == fr.b.readTypes[i].ID() &&
			dictionaryThroughout(md, sf.ColIndex) {
			fr.dictCols[i] = true
			out = append(out, sf.ColIndex)
		}
	}
	return out
}

// dictionaryPage is the page type of a dictionary page in parquet.thrift
// (PageType.DICTIONARY_PAGE; arrow-go keeps the enum in an internal package).
const dictionaryPage = 2

// dictionaryThroughout reports whether every data page of leaf column col,
// in every row group, is dictionary-encoded, as the page encoding
// statistics of the footer record it. Reading such a column as a dictionary
// only moves indexes; a column chunk that fell back to plain pages (the
// dictionary grew too large) would have every plain value hashed into a
// dictionary instead, slower than decoding it plainly. Without the
// statistics (older writers) it says no.
func dictionaryThroughout(md *metadata.FileMetaData, col int) bool {
	if md.NumRowGroups() == 0 {
		return false
	}
	for rg := range md.NumRowGroups() {
		cc, err := md.RowGroup(rg).ColumnChunk(col)
		if err != nil || !cc.HasDictionaryPage() {
			return false
		}
		st := cc.EncodingStats()
		if len(st) == 0 {
			return false
		}
		for _, s := range st {
			if s.PageType != dictionaryPage && s.Encoding != parquet.Encodings.RLEDict && s.Encoding != parquet.Encodings.PlainDict {
				return false
			}
		}
	}
	return true
}

// keptDictionary reports whether read column i of the file stays a
// dictionary (src as it is): a column dictionaryLeaves chose, which pqarrow
// then reads as a dictionary of the column's own value type. Anything else
// there is an error, not a batch whose schema (fileSchemas) it would break.
func (fr *fileReader) keptDictionary(i int, src arrow.Array) (bool, error) {
	if fr.dictCols == nil || !fr.dictCols[i] {
		return false, nil
	}
	if d, ok := src.(*array.Dictionary); ok && arrow.TypeEqual(d.Dictionary().DataType(), fr.b.readTypes[i]) {
		return true, nil
	}
	return false, fmt.Errorf("read as a dictionary of %s, got %s", fr.b.readTypes[i], src.DataType())
}

// fileSchemas sets the schemas of this file's batches: the scan's, with
// the dictionary type for the columns that stay dictionaries.
func (fr *fileReader) fileSchemas() {
	fr.evalSchema, fr.outSchema = fr.b.evalSchema, fr.b.outSchema
	if fr.dictCols == nil {
		return
	}
	fields := fr.b.evalSchema.Fields()
	for j, oc := range fr.b.out {
		if oc.read >= 0 && fr.dictCols[oc.read] {
			fields[j].Type = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: fields[j].Type}
		}
	}
	fr.evalSchema = arrow.NewSchema(fields, nil)
	fr.outSchema = arrow.NewSchema(fields[:fr.b.visible], nil)
}
