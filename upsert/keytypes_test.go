package upsert

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// TestEveryKeyType: each comparable Delta type works as a key: one row
// updated, one inserted, the others kept, across two files (so statistics
// and the probe both decide on the type).
func TestEveryKeyType(t *testing.T) {
	cases := []struct {
		typ        string
		a, b, c, d string // JSON values: a, b in file 1, c in file 2; b updated, d inserted
	}{
		{"long", "1", "2", "3", "4"},
		{"integer", "-1", "2", "300000", "4"},
		{"short", "1", "-2", "3", "4"},
		{"byte", "1", "2", "-3", "4"},
		{"double", "1.5", "-2.25", "3e10", "0.1"},
		{"float", "1.5", "-2.25", "3", "0.5"},
		{"boolean", "true", "false", "true", "false"},
		{"decimal(10,2)", `"1.50"`, `"-2.25"`, `"99999999.99"`, `"0.01"`},
		{"date", `"2024-01-02"`, `"1969-12-31"`, `"2024-01-03"`, `"9999-12-31"`},
		{"timestamp", `"2024-01-02T03:04:05.123456Z"`, `"2024-01-02T03:04:05.123457Z"`, `"1970-01-01T00:00:00Z"`, `"2024-01-02T03:04:05Z"`},
		{"timestamp_ntz", `"2024-01-02 03:04:05.5"`, `"2024-01-02 03:04:06"`, `"2000-01-01 00:00:00"`, `"2024-01-02 03:04:05"`},
		{"string", `"a"`, `"ü"`, `"zz"`, `""`},
		{"binary", `"YQ=="`, `"AAE="`, `"/w=="`, `""`},
	}
	for _, c := range cases {
		t.Run(c.typ, func(t *testing.T) {
			typ := c.typ
			if typ == "decimal(10,2)" {
				typ = "decimal(10,2)"
			}
			tb := newTable(t, fields("k "+typ, "v long"), nil, nil)
			if c.typ == "boolean" {
				// Two values only: a, b, c cover both; c repeats a's value in
				// another file, so use a table of two rows.
				tb.appendFile(fmt.Sprintf(`[{"k":%s,"v":1}]`, c.a))
				tb.appendFile(fmt.Sprintf(`[{"k":%s,"v":2}]`, c.b))
				s := tb.mustUpsert(nil, fmt.Sprintf(`[{"k":%s,"v":20}]`, c.b), Options{PrimaryKeys: []string{"k"}})
				tb.checkRows(fmt.Sprintf(`[{"k":%s,"v":1},{"k":%s,"v":20}]`, c.a, c.b))
				if s.RowsUpdated != 1 || s.RowsInserted != 0 || s.FilesRemoved != 1 || s.FilesCarriedOver != 1 {
					t.Errorf("stats %v", s)
				}
				return
			}
			tb.appendFile(fmt.Sprintf(`[{"k":%s,"v":1},{"k":%s,"v":2}]`, c.a, c.b))
			tb.appendFile(fmt.Sprintf(`[{"k":%s,"v":3}]`, c.c))
			s := tb.mustUpsert(nil, fmt.Sprintf(`[{"k":%s,"v":20},{"k":%s,"v":40},{"k":null,"v":0}]`, c.b, c.d), Options{PrimaryKeys: []string{"k"}})
			tb.checkRows(fmt.Sprintf(`[{"k":%s,"v":1},{"k":%s,"v":20},{"k":%s,"v":3},{"k":%s,"v":40},{"k":null,"v":0}]`, c.a, c.b, c.c, c.d))
			if s.RowsUpdated != 1 || s.RowsInserted != 2 || s.NullPKRows != 1 || s.FilesRemoved != 1 || s.FilesCarriedOver != 1 || s.RowsCopied != 1 {
				t.Errorf("stats %v", s)
			}
		})
	}
}

// TestFloatKeySemantics: as delta-rs MERGE compares (checked against
// deltalake 1.6.6): -0.0 matches 0.0, NaN matches NaN, infinities match;
// a source with both zeros holds one key twice.
func TestFloatKeySemantics(t *testing.T) {
	for _, dt := range []arrow.DataType{arrow.PrimitiveTypes.Float64, arrow.PrimitiveTypes.Float32} {
		t.Run(dt.String(), func(t *testing.T) {
			typ := "double"
			if dt.ID() == arrow.FLOAT32 {
				typ = "float"
			}
			tb := newTable(t, fields("k "+typ, "v long"), nil, nil)
			as := tb.arrowSchema()
			mk := func(ks []float64, vs []int64) arrow.RecordBatch {
				kb := array.NewBuilder(memory.DefaultAllocator, dt)
				vb := array.NewInt64Builder(memory.DefaultAllocator)
				defer kb.Release()
				defer vb.Release()
				for _, k := range ks {
					switch b := kb.(type) {
					case *array.Float64Builder:
						b.Append(k)
					case *array.Float32Builder:
						b.Append(float32(k))
					}
				}
				vb.AppendValues(vs, nil)
				k, v := kb.NewArray(), vb.NewArray()
				defer k.Release()
				defer v.Release()
				return array.NewRecordBatch(as, []arrow.Array{k, v}, int64(len(ks)))
			}
			init := mk([]float64{0, math.NaN(), math.Inf(1), 1}, []int64{1, 2, 3, 4})
			defer init.Release()
			tb.appendBatches(nil, init)
			src := mk([]float64{math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1)}, []int64{10, 20, 30, 40})
			defer src.Release()
			s, err := tb.upsertBatches(Options{PrimaryKeys: []string{"k"}}, src)
			if err != nil {
				t.Fatal(err)
			}
			if s.RowsUpdated != 3 || s.RowsInserted != 1 {
				t.Errorf("stats %v", s)
			}
			got := tb.rows()
			want := []string{"k=-0, v=10", "k=-Infinity, v=40", "k=1, v=4", "k=Infinity, v=30", "k=NaN, v=20"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("rows %q, want %q", got, want)
			}
			both := mk([]float64{0, math.Copysign(0, -1)}, []int64{1, 2})
			defer both.Release()
			if _, err := tb.upsertBatches(Options{PrimaryKeys: []string{"k"}}, both); !isKind(err, errs.ErrInvalidArgument) {
				t.Errorf("0.0 and -0.0 in one batch: %v", err)
			}
		})
	}
}

// TestDictionaryKeys: a dictionary-encoded source key column matches the
// table's strings.
func TestDictionaryKeys(t *testing.T) {
	tb := newTable(t, fields("k string", "v long"), nil, nil)
	tb.appendFile(`[{"k":"a","v":1},{"k":"b","v":2}]`)
	dt := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	as := arrow.NewSchema([]arrow.Field{{Name: "k", Type: dt, Nullable: true}, {Name: "v", Type: arrow.PrimitiveTypes.Int64}}, nil)
	tb.mustUpsert(as, `[{"k":"b","v":20},{"k":"c","v":30}]`, Options{PrimaryKeys: []string{"k"}})
	tb.checkRows(`[{"k":"a","v":1},{"k":"b","v":20},{"k":"c","v":30}]`)
}

// TestCompositeKeys: only the whole tuple matches, of mixed types, with a
// null in any component never matching.
func TestCompositeKeys(t *testing.T) {
	tb := newTable(t, fields("a string", "b long", "ts timestamp", "v long"), nil, nil)
	tb.appendFile(`[{"a":"x","b":1,"ts":"2024-01-01T00:00:00Z","v":1},{"a":"x","b":2,"ts":"2024-01-01T00:00:00Z","v":2},
		{"a":"y","b":1,"ts":"2024-01-01T00:00:00Z","v":3},{"a":"z","b":null,"ts":"2024-01-01T00:00:00Z","v":4}]`)
	s := tb.mustUpsert(nil, `[{"a":"x","b":2,"ts":"2024-01-01T00:00:00Z","v":20},{"a":"x","b":2,"ts":"2024-01-02T00:00:00Z","v":21},
		{"a":"z","b":null,"ts":"2024-01-01T00:00:00Z","v":40}]`, Options{PrimaryKeys: []string{"a", "b", "ts"}})
	tb.checkRows(`[{"a":"x","b":1,"ts":"2024-01-01T00:00:00Z","v":1},{"a":"x","b":2,"ts":"2024-01-01T00:00:00Z","v":20},
		{"a":"y","b":1,"ts":"2024-01-01T00:00:00Z","v":3},{"a":"z","b":null,"ts":"2024-01-01T00:00:00Z","v":4},
		{"a":"x","b":2,"ts":"2024-01-02T00:00:00Z","v":21},{"a":"z","b":null,"ts":"2024-01-01T00:00:00Z","v":40}]`)
	if s.RowsUpdated != 1 || s.RowsInserted != 2 || s.NullPKRows != 1 {
		t.Errorf("stats %v", s)
	}
}

// TestTwoPartitionColumns: identity spans every partition column; typed
// partition values (a date) group source rows and files alike.
func TestTwoPartitionColumns(t *testing.T) {
	tb := newTable(t, fields("id long", "region string", "day date", "v long"), []string{"region", "day"}, nil)
	tb.appendFile(`[{"id":1,"region":"eu","day":"2024-01-01","v":1},{"id":1,"region":"us","day":"2024-01-01","v":2},
		{"id":1,"region":"eu","day":"2024-01-02","v":3}]`)
	s := tb.mustUpsert(nil, `[{"id":1,"region":"eu","day":"2024-01-02","v":30},{"id":2,"region":"us","day":"2024-01-01","v":40}]`,
		Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{"region", "day"}})
	tb.checkRows(`[{"id":1,"region":"eu","day":"2024-01-01","v":1},{"id":1,"region":"us","day":"2024-01-01","v":2},
		{"id":1,"region":"eu","day":"2024-01-02","v":30},{"id":2,"region":"us","day":"2024-01-01","v":40}]`)
	if s.PartitionsTouched != 2 || s.RowsUpdated != 1 || s.RowsInserted != 1 || s.FilesRemoved != 1 || s.FilesCarriedOver != 1 {
		t.Errorf("stats %v", s)
	}
}

// TestKeyIsPartitionColumn: a primary key that is also the partition
// column: the partition alone is the identity.
func TestKeyIsPartitionColumn(t *testing.T) {
	tb := newTable(t, fields("day string", "v long"), []string{"day"}, nil)
	tb.appendFile(`[{"day":"a","v":1},{"day":"b","v":2}]`)
	s := tb.mustUpsert(nil, `[{"day":"a","v":10},{"day":"c","v":30}]`, Options{PrimaryKeys: []string{"day"}})
	tb.checkRows(`[{"day":"a","v":10},{"day":"b","v":2},{"day":"c","v":30}]`)
	if s.RowsUpdated != 1 || s.RowsInserted != 1 || s.FilesRemoved != 1 {
		t.Errorf("stats %v", s)
	}
	if _, err := tb.upsert(nil, `[{"day":"a","v":1},{"day":"a","v":2}]`, Options{PrimaryKeys: []string{"day"}}); err == nil {
		t.Error("two rows for one partition-only key accepted")
	}
}
