package zorder

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// TestFieldOfNestedColumn: a nested field is null where its struct is,
// also in a slice of the batch, and its keys order it so.
func TestFieldOfNestedColumn(t *testing.T) {
	mem := memory.DefaultAllocator
	// The leaf holds values under null structs, as an Arrow producer may.
	ab := array.NewInt32Builder(mem)
	ab.AppendValues([]int32{5, 7, 8, 0, 2}, []bool{true, true, true, false, true})
	a := ab.NewArray()
	defer a.Release()
	bitmap := func(valid ...bool) *memory.Buffer {
		bits := make([]byte, 1)
		for i, v := range valid {
			if v {
				bitutil.SetBit(bits, i)
			}
		}
		return memory.NewBufferBytes(bits)
	}
	s, err := array.NewStructArrayWithNulls([]arrow.Array{a}, []string{"a"}, bitmap(true, false, true, true, true), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Release()
	o, err := array.NewStructArrayWithNulls([]arrow.Array{s}, []string{"s"}, bitmap(true, true, false, true, true), 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Release()
	ib := array.NewInt64Builder(mem)
	ib.AppendValues([]int64{0, 1, 2, 3, 4}, nil)
	id := ib.NewArray()
	defer id.Release()
	sc := arrow.NewSchema([]arrow.Field{{Name: "id", Type: arrow.PrimitiveTypes.Int64}, {Name: "o", Type: o.DataType(), Nullable: true}}, nil)
	rec := array.NewRecordBatch(sc, []arrow.Array{id, o}, 5)
	defer rec.Release()
	for _, tc := range []struct {
		rec  arrow.RecordBatch
		want string
	}{
		{rec, "[5 (null) (null) (null) 2]"},
		{rec.NewSlice(1, 5), "[(null) (null) (null) 2]"},
	} {
		f, err := Field(tc.rec, []int{1, 0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if got := f.String(); got != tc.want {
			t.Errorf("o.s.a of %d rows: %s, want %s", tc.rec.NumRows(), got, tc.want)
		}
		keys, err := Keys([]arrow.Array{f})
		if err != nil {
			t.Fatal(err)
		}
		for i, k := range keys {
			if null := f.IsNull(i); null != (k[0] == 0) {
				t.Errorf("row %d: key %x, null %t", i, k, null)
			}
		}
		f.Release()
		if tc.rec != rec {
			tc.rec.Release()
		}
	}
	f, err := Field(rec, []int{0})
	if err != nil || f.NullN() != 0 {
		t.Fatalf("top-level id: %v, %v", f, err)
	}
	f.Release()
	if _, err := Field(rec, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "has no field") {
		t.Errorf("a path through a non-struct: %v", err)
	}
}
