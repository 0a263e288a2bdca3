package datafile

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// jsonBatch builds a batch of an explicit Arrow schema from JSON rows.
func jsonBatch(t *testing.T, mem memory.Allocator, fields []arrow.Field, rows string) arrow.RecordBatch {
	t.Helper()
	return jsonrows.Record(t, mem, arrow.NewSchema(fields, nil), rows)
}

func nullable(name string, dt arrow.DataType) arrow.Field {
	return arrow.Field{Name: name, Type: dt, Nullable: true}
}

func TestConformCastsReordersAndFills(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	target := mustSchema(t, fields(
		"id long not null", "name string", "small integer", "ratio double", "f double", "amount decimal(10,3)",
		"blob binary", "fixed binary", "ts timestamp", "naive timestamp", "wall timestamp_ntz", "day date", "midnight timestamp",
		`nums {"type":"array","elementType":"long","containsNull":true}`,
		`fixedlist {"type":"array","elementType":"integer","containsNull":true}`,
		`s {"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}},{"name":"missing","type":"integer","nullable":true,"metadata":{}}]}`,
		`m {"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`,
		"absent string", "empty string"))
	src := jsonBatch(t, mem, []arrow.Field{
		nullable("NAME", arrow.BinaryTypes.LargeString),
		{Name: "Id", Type: arrow.PrimitiveTypes.Uint32},
		nullable("small", arrow.PrimitiveTypes.Int8),
		nullable("ratio", arrow.PrimitiveTypes.Int32),
		nullable("f", arrow.PrimitiveTypes.Float32),
		nullable("amount", &arrow.Decimal128Type{Precision: 5, Scale: 2}),
		nullable("blob", arrow.BinaryTypes.LargeBinary),
		nullable("fixed", &arrow.FixedSizeBinaryType{ByteWidth: 2}),
		nullable("ts", &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}),
		nullable("naive", &arrow.TimestampType{Unit: arrow.Second}),
		nullable("wall", &arrow.TimestampType{Unit: arrow.Millisecond, TimeZone: "+02:00"}),
		nullable("day", arrow.FixedWidthTypes.Date64),
		nullable("midnight", arrow.FixedWidthTypes.Date32),
		nullable("nums", arrow.LargeListOf(arrow.PrimitiveTypes.Int32)),
		nullable("fixedlist", arrow.FixedSizeListOf(2, arrow.PrimitiveTypes.Int16)),
		nullable("s", arrow.StructOf(nullable("B", arrow.BinaryTypes.LargeString), nullable("a", arrow.PrimitiveTypes.Int16))),
		nullable("m", arrow.MapOf(arrow.BinaryTypes.LargeString, arrow.PrimitiveTypes.Int8)),
		nullable("empty", arrow.Null),
	}, `[
	{"NAME":"x","Id":4000000000,"small":-5,"ratio":3,"f":0.5,"amount":"12.34","blob":"AAE=","fixed":"AQI=","ts":"2024-01-01T00:00:00.123456789Z","naive":"2024-01-01T10:00:00","wall":"2024-01-01T22:30:00.001+02:00","day":"2024-03-01","midnight":"2024-03-02","nums":[1,null,2],"fixedlist":[7,8],"s":{"B":"q","a":-1},"m":[{"key":"k","value":1}],"empty":null},
	{"NAME":null,"Id":0,"small":null,"ratio":null,"f":null,"amount":null,"blob":null,"fixed":null,"ts":null,"naive":null,"wall":null,"day":null,"midnight":null,"nums":null,"fixedlist":null,"s":null,"m":null,"empty":null}
	]`)
	defer src.Release()
	out, err := Conform(src, target, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	want, err := schema.ToArrow(target, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Schema().Equal(want) {
		t.Fatalf("schema\n got  %s\n want %s", out.Schema(), want)
	}
	wantRows := []string{
		`absent=null, amount=12.34, blob=0x0001, day=2024-03-01, empty=null, f=0.5, fixed=0x0102, fixedlist=[7, 8], id=4000000000, m={"k": 1}, ` +
			`midnight=2024-03-02T00:00:00.000000Z, naive=2024-01-01T10:00:00.000000Z, name="x", nums=[1, null, 2], ratio=3, s={a=-1, b="q", missing=null}, small=-5, ` +
			`ts=2024-01-01T00:00:00.123456Z, wall=2024-01-01T22:30:00.001000Z`,
		`absent=null, amount=null, blob=null, day=null, empty=null, f=null, fixed=null, fixedlist=null, id=0, m=null, midnight=null, naive=null, name=null, ` +
			`nums=null, ratio=null, s=null, small=null, ts=null, wall=null`,
	}
	arrowrows.Diff(t, arrowrows.Rows(out), sorted(wantRows))

	// What Conform returns, Write takes.
	st := storage.NewMemory()
	adds := writeAll(t, st, Options{Schema: target, Allocator: mem}, out)
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: target, files: adds}), sorted(wantRows))
}

func TestConformDictionaryAndViews(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	target := mustSchema(t, fields("d string", "v string", "bv binary"))
	dictType := &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String}
	db := array.NewDictionaryBuilder(mem, dictType).(*array.BinaryDictionaryBuilder)
	defer db.Release()
	for _, s := range []string{"b", "a", "b"} {
		if err := db.AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	db.AppendNull()
	d := db.NewArray()
	defer d.Release()
	vb := array.NewStringViewBuilder(mem)
	defer vb.Release()
	vb.AppendValues([]string{"short", "a string longer than twelve bytes", "", "z"}, nil)
	v := vb.NewArray()
	defer v.Release()
	bb := array.NewBinaryViewBuilder(mem)
	defer bb.Release()
	bb.AppendValues([][]byte{{1}, nil, {2, 3}, {}}, []bool{true, false, true, true})
	bv := bb.NewArray()
	defer bv.Release()
	src := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{nullable("d", dictType), nullable("v", v.DataType()), nullable("bv", bv.DataType())}, nil),
		[]arrow.Array{d, v, bv}, 4)
	defer src.Release()
	out, err := Conform(src, target, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	arrowrows.Diff(t, arrowrows.Rows(out), sorted([]string{
		`bv=0x01, d="b", v="short"`,
		`bv=null, d="a", v="a string longer than twelve bytes"`,
		`bv=0x0203, d="b", v=""`,
		`bv=0x, d=null, v="z"`,
	}))
}

func TestConformZoneToWallClock(t *testing.T) {
	if _, err := os.Stat("/usr/share/zoneinfo/America/New_York"); err != nil {
		t.Skip("no time zone database on this machine")
	}
	mem := memory.NewGoAllocator()
	target := mustSchema(t, fields("w timestamp_ntz"))
	src := jsonBatch(t, mem, []arrow.Field{nullable("w", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "America/New_York"})},
		`[{"w":"2024-07-01T12:00:00-04:00"},{"w":"2024-01-01T12:00:00-05:00"}]`)
	out, err := Conform(src, target, mem)
	if err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, arrowrows.Rows(out), []string{"w=2024-01-01T12:00:00.000000Z", "w=2024-07-01T12:00:00.000000Z"})
}

func TestConformErrorsNameTheColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	target := mustSchema(t, fields("id long not null", "n integer", "d decimal(5,2)", "f float", "txt long",
		`s {"type":"struct","fields":[{"name":"a","type":"long","nullable":false,"metadata":{}}]}`, "req string not null"))
	cases := []struct {
		name   string
		fields []arrow.Field
		rows   string
		want   []string // all must appear in the message
	}{
		{"extra, missing and impossible together",
			[]arrow.Field{nullable("id", arrow.PrimitiveTypes.Int64), nullable("txt", arrow.BinaryTypes.String), nullable("bogus", arrow.PrimitiveTypes.Int8),
				nullable("other", arrow.PrimitiveTypes.Int8)},
			`[{"id":1,"txt":"1","bogus":1,"other":2}]`,
			[]string{`columns not in the table: "bogus", "other"`, `column "txt": cannot cast utf8 to int64`, `column "req" is not nullable and missing`}},
		{"null in a non-nullable column",
			[]arrow.Field{nullable("id", arrow.PrimitiveTypes.Int64), nullable("req", arrow.BinaryTypes.String)},
			`[{"id":null,"req":"x"},{"id":2,"req":null}]`,
			[]string{`"id" has 1 nulls`, `"req" has 1 nulls`}},
		{"null in a non-nullable nested field",
			[]arrow.Field{nullable("id", arrow.PrimitiveTypes.Int64), nullable("req", arrow.BinaryTypes.String),
				nullable("s", arrow.StructOf(nullable("a", arrow.PrimitiveTypes.Int64)))},
			`[{"id":1,"req":"x","s":{"a":null}},{"id":2,"req":"y","s":null}]`,
			[]string{`"s.a" has 1 nulls`}},
		{"lossy decimal, overflowing integer, narrowing float",
			[]arrow.Field{nullable("id", arrow.PrimitiveTypes.Int64), nullable("req", arrow.BinaryTypes.String),
				nullable("d", &arrow.Decimal128Type{Precision: 6, Scale: 3}), nullable("n", arrow.PrimitiveTypes.Int64), nullable("f", arrow.PrimitiveTypes.Float64)},
			`[{"id":1,"req":"x","d":"1.234","n":3000000000,"f":1.5}]`,
			[]string{`column "d"`, `column "n"`, `column "f": cannot cast float64 to float32`}},
		{"nested extra field",
			[]arrow.Field{nullable("id", arrow.PrimitiveTypes.Int64), nullable("req", arrow.BinaryTypes.String),
				nullable("s", arrow.StructOf(nullable("a", arrow.PrimitiveTypes.Int64), nullable("zz", arrow.PrimitiveTypes.Int64)))},
			`[{"id":1,"req":"x","s":{"a":1,"zz":2}}]`,
			[]string{`column "s.zz" is not in the table`}},
		{"ambiguous names",
			[]arrow.Field{nullable("ID", arrow.PrimitiveTypes.Int64), nullable("Id", arrow.PrimitiveTypes.Int64), nullable("req", arrow.BinaryTypes.String)},
			`[{"ID":1,"Id":2,"req":"x"}]`,
			[]string{`column "id" matches more than one column`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			src := jsonBatch(t, mem, c.fields, c.rows)
			defer src.Release()
			out, err := Conform(src, target, mem)
			if err == nil {
				out.Release()
				t.Fatal("no error")
			}
			if !errors.Is(err, errs.ErrSchemaMismatch) {
				t.Errorf("error kind: %v", err)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

func TestConformedLosslessNarrowing(t *testing.T) {
	// Values that fit are accepted even from a wider type.
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	target := mustSchema(t, fields("n integer", "d decimal(4,1)"))
	src := jsonBatch(t, mem, []arrow.Field{nullable("n", arrow.PrimitiveTypes.Int64), nullable("d", &arrow.Decimal128Type{Precision: 10, Scale: 3})},
		`[{"n":5,"d":"12.300"},{"n":-7,"d":null}]`)
	defer src.Release()
	out, err := Conform(src, target, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	arrowrows.Diff(t, arrowrows.Rows(out), []string{"d=12.3, n=5", "d=null, n=-7"})
	if _, err := NewWriter(context.Background(), storage.NewMemory(), Options{Schema: target}); err != nil {
		t.Fatal(err)
	}
}

func TestConformSharesMicrosecondTimestamps(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	target := mustSchema(t, fields("ts timestamp", "ntz timestamp_ntz"))
	src := jsonBatch(t, mem, []arrow.Field{
		nullable("ts", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "Europe/Paris"}),
		nullable("ntz", &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}),
	}, `[{"ts":"2024-01-01T01:00:00+01:00","ntz":"2024-01-01T00:00:00Z"},{"ts":null,"ntz":null}]`)
	defer src.Release()
	out, err := Conform(src, target, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if out.Column(0).Data().Buffers()[1] != src.Column(0).Data().Buffers()[1] {
		t.Error("a zoned microsecond timestamp was copied, not shared")
	}
	arrowrows.Diff(t, arrowrows.Rows(out), []string{"ntz=2024-01-01T00:00:00.000000Z, ts=2024-01-01T00:00:00.000000Z", "ntz=null, ts=null"})
}
