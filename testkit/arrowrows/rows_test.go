package arrowrows

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func fromJSON(t *testing.T, dt arrow.DataType, js string) arrow.Array {
	t.Helper()
	a, _, err := array.FromJSON(memory.DefaultAllocator, dt, strings.NewReader(js))
	if err != nil {
		t.Fatalf("%s %s: %v", dt, js, err)
	}
	return a
}

func TestCanonicalAcrossRepresentations(t *testing.T) {
	same := []struct {
		name string
		a, b arrow.Array
	}{
		{"int widths", fromJSON(t, arrow.PrimitiveTypes.Int8, `[1, -2, null]`), fromJSON(t, arrow.PrimitiveTypes.Int64, `[1, -2, null]`)},
		{"decimal scales", fromJSON(t, &arrow.Decimal128Type{Precision: 6, Scale: 3}, `["1.500", "-0.010", "0.000", "100.000"]`),
			fromJSON(t, &arrow.Decimal128Type{Precision: 38, Scale: 2}, `["1.5", "-0.01", "0", "100"]`)},
		{"timestamp units and zones", fromJSON(t, &arrow.TimestampType{Unit: arrow.Nanosecond}, `[-500, 1631099471123456789]`),
			fromJSON(t, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, `[-1, 1631099471123456]`)},
		{"string kinds", fromJSON(t, arrow.BinaryTypes.LargeString, `["a\"b", "é"]`), fromJSON(t, arrow.BinaryTypes.String, `["a\"b", "é"]`)},
	}
	for _, c := range same {
		for i := 0; i < c.a.Len(); i++ {
			if x, y := Value(c.a, i), Value(c.b, i); x != y {
				t.Errorf("%s row %d: %s vs %s", c.name, i, x, y)
			}
		}
	}
	ts := fromJSON(t, &arrow.TimestampType{Unit: arrow.Millisecond}, `[-1]`)
	if got := Value(ts, 0); got != "1969-12-31T23:59:59.999000Z" {
		t.Errorf("timestamp %s", got)
	}
	d := fromJSON(t, &arrow.Decimal128Type{Precision: 38, Scale: 2}, `["-12345678901234567890123.45", "0.05", "-0.05"]`)
	for i, want := range []string{"-12345678901234567890123.45", "0.05", "-0.05"} {
		if got := Value(d, i); got != want {
			t.Errorf("decimal %d: %s, want %s", i, got, want)
		}
	}
}

func TestNestedAndColumnOrder(t *testing.T) {
	st := arrow.StructOf(arrow.Field{Name: "z", Type: arrow.PrimitiveTypes.Int32, Nullable: true}, arrow.Field{Name: "a", Type: arrow.BinaryTypes.Binary, Nullable: true})
	m := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	l := arrow.ListOf(arrow.PrimitiveTypes.Int16)
	sa := fromJSON(t, st, `[{"z": 1, "a": "AQI="}, null]`)
	ma := fromJSON(t, m, `[[{"key": "b", "value": 2}, {"key": "a", "value": null}], []]`)
	la := fromJSON(t, l, `[[1, null, 3], null]`)
	sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: st, Nullable: true}, {Name: "m", Type: m, Nullable: true}, {Name: "l", Type: l, Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{sa, ma, la}, 2)
	got := Rows(rec)
	want := []string{
		`l=[1, null, 3], m={"a": null, "b": 2}, s={a=0x0102, z=1}`,
		`l=null, m={}, s=null`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Column order does not matter.
	sc2 := arrow.NewSchema([]arrow.Field{sc.Field(2), sc.Field(0), sc.Field(1)}, nil)
	rec2 := array.NewRecordBatch(sc2, []arrow.Array{la, sa, ma}, 2)
	if strings.Join(Rows(rec2), "\n") != strings.Join(want, "\n") {
		t.Fatalf("column order changed the rows: %v", Rows(rec2))
	}
	dict := fromJSON(t, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}, `["x", "y", "x"]`)
	if Value(dict, 2) != `"x"` {
		t.Errorf("dictionary value %s", Value(dict, 2))
	}
}

func TestParquetDir(t *testing.T) {
	if _, err := ParquetDir(t.TempDir()); err == nil {
		t.Fatal("empty directory gave no error")
	}
}
