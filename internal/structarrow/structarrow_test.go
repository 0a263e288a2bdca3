package structarrow

import (
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
)

type Address struct {
	Street string `delta:"street"`
	Zip    *int32 `delta:"zip"`
}

type Line struct {
	SKU   string
	Qty   uint16
	Price decimal128.Num `delta:"price,decimal(10,2)"`
}

type Base struct {
	ID   int64 `delta:"id"`
	Note string
}

type Order struct {
	Base
	Customer string `delta:"customer"`
	Active   bool
	I8       int8
	I16      int16
	I32      int32
	I        int
	U8       uint8
	U32      uint32
	U        uint64
	F32      float32
	F64      float64
	Raw      []byte
	Key      [4]byte
	At       time.Time  `delta:"at"`
	Local    time.Time  `delta:"local,timestamp_ntz"`
	Day      time.Time  `delta:"day,date"`
	Maybe    *time.Time `delta:"maybe"`
	Amount   *big.Rat   `delta:"amount,decimal(20,4)"`
	Ship     Address
	Bill     *Address
	Lines    []Line
	Tags     []string
	Attrs    map[string]int64
	Opt      map[string]*string
	Skip     string `delta:"-"`
	hidden   int
}

func ptr[T any](v T) *T { return &v }

var paris = time.FixedZone("CEST", 2*3600)

// orders has every kind of value: nil and set pointers, nil and empty
// slices and maps, times in a zone other than UTC, unicode.
func orders() []Order {
	return []Order{
		{
			Base: Base{ID: 1, Note: "ünïcødé ✓ 日本"}, Customer: "ann", Active: true,
			I8: -128, I16: math.MaxInt16, I32: math.MinInt32, I: math.MaxInt64, U8: 255, U32: math.MaxUint32, U: math.MaxInt64,
			F32: 1.5, F64: math.Inf(-1), Raw: []byte{0, 1, 2}, Key: [4]byte{9, 8, 7, 6},
			At:     time.Date(2024, 3, 31, 1, 30, 0, 123456789, paris),
			Local:  time.Date(2024, 3, 31, 23, 59, 59, 0, paris),
			Day:    time.Date(2024, 1, 1, 0, 30, 0, 0, paris),
			Maybe:  ptr(time.Date(1969, 12, 31, 23, 59, 59, 999999000, time.UTC)),
			Amount: big.NewRat(-123456789, 10000),
			Ship:   Address{Street: "Rue ⟨1⟩", Zip: ptr(int32(75001))},
			Bill:   &Address{Street: "b"},
			Lines: []Line{
				{SKU: "a", Qty: 65535, Price: decimal128.FromI64(12345)},
				{SKU: "b", Qty: 0, Price: decimal128.FromI64(-1)},
			},
			Tags:  []string{"x", "", "z"},
			Attrs: map[string]int64{"b": 2, "a": 1},
			Opt:   map[string]*string{"k": nil, "v": ptr("set")},
			Skip:  "not stored", hidden: 7,
		},
		{
			Base: Base{ID: 2}, Raw: []byte{}, Tags: []string{}, Attrs: map[string]int64{},
			Lines: []Line{},
		},
	}
}

// stored is what comes back from orders(): times in UTC to the
// microsecond, ntz and dates as their wall clock, skipped fields empty.
func stored() []Order {
	want := orders()
	for i := range want {
		o := &want[i]
		o.Skip, o.hidden = "", 0
		o.At = o.At.UTC().Truncate(time.Microsecond)
		if !o.Local.IsZero() {
			o.Local = time.Date(2024, 3, 31, 23, 59, 59, 0, time.UTC)
			o.Day = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		} else {
			o.Local, o.Day = o.Local.UTC(), o.Day.UTC()
		}
	}
	return want
}

func TestSchemaOf(t *testing.T) {
	got, err := SchemaOf(reflect.TypeFor[Order]())
	if err != nil {
		t.Fatal(err)
	}
	addr := arrow.StructOf(
		arrow.Field{Name: "street", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "zip", Type: arrow.PrimitiveTypes.Int32, Nullable: true})
	line := arrow.StructOf(
		arrow.Field{Name: "SKU", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "Qty", Type: arrow.PrimitiveTypes.Int32},
		arrow.Field{Name: "price", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}})
	attrs := arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64)
	attrs.SetItemNullable(false)
	opt := arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)
	want := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "Note", Type: arrow.BinaryTypes.String},
		{Name: "customer", Type: arrow.BinaryTypes.String},
		{Name: "Active", Type: arrow.FixedWidthTypes.Boolean},
		{Name: "I8", Type: arrow.PrimitiveTypes.Int8},
		{Name: "I16", Type: arrow.PrimitiveTypes.Int16},
		{Name: "I32", Type: arrow.PrimitiveTypes.Int32},
		{Name: "I", Type: arrow.PrimitiveTypes.Int64},
		{Name: "U8", Type: arrow.PrimitiveTypes.Int16},
		{Name: "U32", Type: arrow.PrimitiveTypes.Int64},
		{Name: "U", Type: arrow.PrimitiveTypes.Int64},
		{Name: "F32", Type: arrow.PrimitiveTypes.Float32},
		{Name: "F64", Type: arrow.PrimitiveTypes.Float64},
		{Name: "Raw", Type: arrow.BinaryTypes.Binary, Nullable: true},
		{Name: "Key", Type: arrow.BinaryTypes.Binary},
		{Name: "at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
		{Name: "local", Type: &arrow.TimestampType{Unit: arrow.Microsecond}},
		{Name: "day", Type: arrow.FixedWidthTypes.Date32},
		{Name: "maybe", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "amount", Type: &arrow.Decimal128Type{Precision: 20, Scale: 4}, Nullable: true},
		{Name: "Ship", Type: addr},
		{Name: "Bill", Type: addr, Nullable: true},
		{Name: "Lines", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: line}), Nullable: true},
		{Name: "Tags", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: arrow.BinaryTypes.String}), Nullable: true},
		{Name: "Attrs", Type: attrs, Nullable: true},
		{Name: "Opt", Type: opt, Nullable: true},
	}, nil)
	if !got.Equal(want) {
		t.Errorf("schema\ngot  %s\nwant %s", got, want)
	}
	if p, err := SchemaOf(reflect.TypeFor[*Order]()); err != nil || !p.Equal(want) {
		t.Errorf("*Order: %v %v", p, err)
	}
}

// equalOrders compares field by field (big.Rat by value, times by instant
// and location).
func equalOrders(t *testing.T, got, want []Order) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if (g.Amount == nil) != (w.Amount == nil) || (g.Amount != nil && g.Amount.Cmp(w.Amount) != 0) {
			t.Errorf("row %d Amount: got %v want %v", i, g.Amount, w.Amount)
		}
		g.Amount, w.Amount = nil, nil
		gv, wv := reflect.ValueOf(g), reflect.ValueOf(w)
		for j := range gv.NumField() {
			if !gv.Type().Field(j).IsExported() {
				continue
			}
			if !reflect.DeepEqual(gv.Field(j).Interface(), wv.Field(j).Interface()) {
				t.Errorf("row %d %s:\ngot  %#v\nwant %#v", i, gv.Type().Field(j).Name, gv.Field(j).Interface(), wv.Field(j).Interface())
			}
		}
	}
}

func TestRoundTrip(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := NewReader(orders(), mem, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got, err := Collect[Order](rr)
	if err != nil {
		t.Fatal(err)
	}
	equalOrders(t, got, stored())

	// Pointers to rows, both ways.
	ps := []*Order{&orders()[0]}
	rp, err := NewReader(ps, mem, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rp.Release()
	back, err := Collect[*Order](rp)
	if err != nil || len(back) != 1 {
		t.Fatalf("%v %v", back, err)
	}
	equalOrders(t, []Order{*back[0]}, stored()[:1])
}

// The run-time forms, as a handler holding an any uses them.
func TestSliceForms(t *testing.T) {
	var rows any = orders()
	rr, err := NewSliceReader(rows, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	got, err := CollectSlice(rr, reflect.TypeOf(rows))
	if err != nil {
		t.Fatal(err)
	}
	equalOrders(t, got.([]Order), stored())
	_, err = NewSliceReader(Order{}, nil, 0)
	wantErr(t, err, errs.ErrInvalidArgument, "structarrow.Order is not a slice of structs")
	_, err = CollectSlice(rr, reflect.TypeFor[map[string]int]())
	wantErr(t, err, errs.ErrInvalidArgument, "map[string]int is not a slice of structs")
	_, err = NewSliceReader([]int{1}, nil, 0)
	wantErr(t, err, errs.ErrInvalidArgument, "int: rows must be structs")
}

func TestReaderStreamsBatches(t *testing.T) {
	type row struct{ N int }
	for _, tc := range []struct{ n, batch, want int }{{0, 3, 0}, {1, 3, 1}, {9, 3, 3}, {10, 3, 4}, {10, 100, 1}} {
		rows := make([]row, tc.n)
		for i := range rows {
			rows[i].N = i
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rr, err := NewReader(rows, mem, tc.batch)
		if err != nil {
			t.Fatal(err)
		}
		batches, next := 0, int64(0)
		for rr.Next() {
			rec := rr.RecordBatch()
			if rec.NumRows() > int64(tc.batch) {
				t.Errorf("batch of %d rows, limit %d", rec.NumRows(), tc.batch)
			}
			col := rec.Column(0).(*array.Int64)
			for i := range col.Len() {
				if col.Value(i) != next {
					t.Fatalf("row %d: %d", next, col.Value(i))
				}
				next++
			}
			batches++
			// Only the current batch is alive: earlier ones were freed.
			if live := mem.CurrentAlloc(); batches > 1 && live > 2*tc.batch*8+1024 {
				t.Errorf("batch %d: %d bytes live", batches, live)
			}
		}
		if rr.Err() != nil || batches != tc.want || next != int64(tc.n) {
			t.Errorf("n=%d batch=%d: %d batches (want %d), %d rows, err %v", tc.n, tc.batch, batches, tc.want, next, rr.Err())
		}
		rr.Release()
		mem.AssertSize(t, 0)
	}
}

func wantErr(t *testing.T, err error, kind error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", parts)
	}
	if kind != nil && !errorsIs(err, kind) {
		t.Errorf("error %q is not %v", err, kind)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q lacks %q", err, p)
		}
	}
}

func errorsIs(err, target error) bool {
	e, ok := err.(*errs.Error)
	return ok && e.Is(target)
}

func TestSchemaErrors(t *testing.T) {
	type Price struct{ C chan int }
	type Item struct{ Price Price }
	type Bad struct{ Items []Item }
	type Tree struct{ Kids []Tree }
	type Case struct {
		A int `delta:"name"`
		B int `delta:"NAME"`
	}
	type Emb struct{ *Base }
	type NoDec struct{ D decimal128.Num }
	type BadOpt struct {
		S string `delta:"s,date"`
	}
	type BadKey struct{ M map[Address]int }
	type Fn struct{ F func() }
	type Any struct{ X any }
	type Cx struct{ C complex128 }
	for _, tc := range []struct {
		t    reflect.Type
		want []string
	}{
		{reflect.TypeFor[Bad](), []string{"Bad.Items[].Price.C: chan int is not supported; supported: bool, ints"}},
		{reflect.TypeFor[Tree](), []string{"Tree.Kids[]", "refers to itself"}},
		{reflect.TypeFor[Case](), []string{`columns "name" and "NAME" differ only in case`}},
		{reflect.TypeFor[Emb](), []string{"Emb.Base: embedded pointers are not supported"}},
		{reflect.TypeFor[NoDec](), []string{"NoDec.D: decimal128.Num needs its precision and scale", "decimal(10,2)"}},
		{reflect.TypeFor[BadOpt](), []string{`BadOpt.S: tag option "date" does not apply to string`}},
		{reflect.TypeFor[BadKey](), []string{"BadKey.M[key]", "not supported as a map key"}},
		{reflect.TypeFor[Fn](), []string{"Fn.F: func() is not supported"}},
		{reflect.TypeFor[Any](), []string{"Any.X: interface {} is not supported"}},
		{reflect.TypeFor[Cx](), []string{"Cx.C: complex128 is not supported"}},
		{reflect.TypeFor[int](), []string{"int: rows must be structs"}},
		{reflect.TypeFor[struct{ x int }](), []string{"no exported fields"}},
	} {
		_, err := SchemaOf(tc.t)
		wantErr(t, err, errs.ErrInvalidArgument, tc.want...)
	}
}

func TestEmbeddedLikeEncodingJSON(t *testing.T) {
	type Inner struct {
		X int
		Y int `delta:"y"`
		Z int
	}
	type Other struct {
		Z int
		W int
	}
	type inner struct{ Hidden, Shown int }
	type Outer struct {
		Inner        // X promoted; Y tagged; Z ambiguous with Other.Z: dropped
		Other        // W promoted
		inner        // unexported, but its exported fields are promoted
		X     string // shallower than Inner.X: wins
		Named Inner  `delta:"named"`
	}
	sc, err := SchemaOf(reflect.TypeFor[Outer]())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range sc.Fields() {
		names = append(names, f.Name+":"+f.Type.String())
	}
	want := "y:int64 W:int64 Hidden:int64 Shown:int64 X:utf8 named:struct<X: int64, y: int64, Z: int64>"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	in := []Outer{{Inner: Inner{X: 1, Y: 2, Z: 3}, Other: Other{Z: 4, W: 5}, inner: inner{6, 7}, X: "x", Named: Inner{8, 9, 10}}}
	rr, _ := NewReader(in, nil, 0)
	defer rr.Release()
	got, err := Collect[Outer](rr)
	if err != nil {
		t.Fatal(err)
	}
	want2 := Outer{Inner: Inner{Y: 2}, Other: Other{W: 5}, inner: inner{6, 7}, X: "x", Named: Inner{8, 9, 10}}
	if !reflect.DeepEqual(got, []Outer{want2}) {
		t.Errorf("got %+v want %+v", got, want2)
	}
}

func TestWriteValueErrors(t *testing.T) {
	type U struct{ A, B uint64 }
	rr, _ := NewReader([]U{{1, 1}, {2, math.MaxUint64}}, nil, 0)
	defer rr.Release()
	if rr.Next() {
		t.Fatal("a batch with a bad value")
	}
	wantErr(t, rr.Err(), errs.ErrInvalidArgument, "U.B: row 1: 18446744073709551615 is beyond the long column's range")

	type D struct {
		P decimal128.Num `delta:"p,decimal(3,1)"`
		R big.Rat        `delta:"r,decimal(5,2)"`
	}
	for _, tc := range []struct {
		row  D
		want string
	}{
		{D{P: decimal128.FromI64(1000)}, "D.P: row 0: 100.0 does not fit decimal(3,1)"},
		{D{R: *big.NewRat(1, 3)}, "D.R: row 0: 1/3 has more than 2 decimal places; round it first"},
		{D{R: *big.NewRat(1000, 1)}, "D.R: row 0: 1000.00 does not fit decimal(5,2)"},
	} {
		rr, _ := NewReader([]D{tc.row}, nil, 0)
		rr.Next()
		wantErr(t, rr.Err(), errs.ErrInvalidArgument, tc.want)
		rr.Release()
	}

	rn, _ := NewReader([]*U{{1, 1}, nil}, nil, 0)
	defer rn.Release()
	rn.Next()
	wantErr(t, rn.Err(), errs.ErrInvalidArgument, "*structarrow.U: row 1 is nil")
}

// reader over one record built from JSON rows.
func jsonReader(t *testing.T, sc *arrow.Schema, rows string) array.RecordReader {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(rows))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

func TestCollectConversions(t *testing.T) {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "SMALL", Type: arrow.PrimitiveTypes.Int64, Nullable: true}, // case-insensitive match
		{Name: "u", Type: arrow.PrimitiveTypes.Int32},
		{Name: "f", Type: arrow.PrimitiveTypes.Float64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "America/New_York"}},
		{Name: "ms", Type: &arrow.TimestampType{Unit: arrow.Millisecond}},
		{Name: "d", Type: &arrow.Decimal128Type{Precision: 12, Scale: 4}},
		{Name: "extra", Type: arrow.BinaryTypes.String},
	}, nil)
	type R struct {
		Small int8           `delta:"small"`
		U     uint8          `delta:"u"`
		F     float32        `delta:"f"`
		TS    time.Time      `delta:"ts"`
		MS    time.Time      `delta:"ms"`
		D     decimal128.Num `delta:"d,decimal(6,2)"`
		Opt   *string        // missing, nullable: left nil
	}
	ok := `[{"SMALL": -5, "u": 200, "f": 0.5, "ts": "2024-01-02T03:04:05.123456789Z", "ms": "2024-01-02T03:04:05.678", "d": "12.3400", "extra": "x"}]`
	rr := jsonReader(t, sc, ok)
	got, err := Collect[R](rr)
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	want := R{Small: -5, U: 200, F: 0.5, TS: time.Date(2024, 1, 2, 3, 4, 5, 123456789, time.UTC),
		MS: time.Date(2024, 1, 2, 3, 4, 5, 678000000, time.UTC), D: decimal128.FromI64(1234)}
	if len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}

	row := func(over string) string {
		base := `"SMALL": 1, "u": 1, "f": 1, "ts": 0, "ms": 0, "d": "1", "extra": ""`
		last := base
		key, _, _ := strings.Cut(over, ":")
		for _, kv := range strings.Split(base, ", ") {
			if strings.HasPrefix(kv, key+":") {
				last = strings.Replace(last, kv, over, 1)
			}
		}
		return `[{` + base + `}, {` + base + `}, {` + last + `}]`
	}
	for _, tc := range []struct{ over, want string }{
		{`"SMALL": 300`, `column "SMALL" (R.Small) row 2: value 300 does not fit int8`},
		{`"SMALL": null`, `column "SMALL" (R.Small) row 2: is null, and int8 cannot hold null; make the field a pointer (*int8)`},
		{`"u": -1`, `column "u" (R.U) row 2: value -1 does not fit uint8`},
		{`"f": 0.1`, `column "f" (R.F) row 2: value 0.1 does not fit float32 exactly`},
		{`"d": "1.2345"`, `column "d" (R.D) row 2: value 1.2345 does not fit decimal(6,2)`},
		{`"d": "12345.67"`, `column "d" (R.D) row 2: value 12345.6700 does not fit decimal(6,2)`},
	} {
		rr := jsonReader(t, sc, row(tc.over))
		_, err := Collect[R](rr)
		rr.Release()
		wantErr(t, err, errs.ErrInvalidArgument, tc.want)
	}

	type Missing struct{ Gone int64 }
	rr = jsonReader(t, sc, ok)
	_, err = Collect[Missing](rr)
	rr.Release()
	wantErr(t, err, errs.ErrSchemaMismatch, `no column "Gone" for Missing.Gone; add the column, or make the field a pointer (*int64)`)

	type Wrong struct {
		Extra int64 `delta:"extra"`
	}
	rr = jsonReader(t, sc, ok)
	_, err = Collect[Wrong](rr)
	rr.Release()
	wantErr(t, err, errs.ErrSchemaMismatch, `column "extra" is utf8, which does not convert to Wrong.Extra (int64) without loss`)
}

func TestCollectNested(t *testing.T) {
	sc, err := SchemaOf(reflect.TypeFor[Order]())
	if err != nil {
		t.Fatal(err)
	}
	// A null price inside the second line of row 0.
	rr := jsonReader(t, sc, `[{"id": 1, "Note": "", "customer": "", "Active": false, "I8": 0, "I16": 0, "I32": 0, "I": 0,
		"U8": 0, "U32": 0, "U": 0, "F32": 0, "F64": 0, "Key": "AAAAAA==", "at": 0, "local": 0, "day": 0,
		"Ship": {"street": "s"}, "Lines": [{"SKU": "a", "Qty": 1, "price": "1.00"}, {"SKU": "b", "Qty": 1, "price": null}]}]`)
	defer rr.Release()
	_, err = Collect[Order](rr)
	wantErr(t, err, errs.ErrInvalidArgument, `column "Lines[].price" (Order.Lines[].Price) row 0: is null, and decimal128.Num cannot hold null`)
}
