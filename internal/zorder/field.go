package zorder

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Field returns the column of rec at path to z-order by: the top-level
// column path[0], then a child of each struct below it (a nested field
// such as s.a). A row whose struct is null has a null field, as readers
// and statistics see it, so the structs' nulls are folded into the
// field's validity. The caller releases the array.
func Field(rec arrow.RecordBatch, path []int) (arrow.Array, error) {
	if len(path) == 0 || path[0] < 0 || path[0] >= int(rec.NumCols()) {
		return nil, errs.New(errs.Internal, "", "z-order column %v is not in the batch", path)
	}
	col := rec.Column(path[0])
	var parents []arrow.Array
	for _, k := range path[1:] {
		st, ok := col.(*array.Struct)
		if !ok || k < 0 || k >= st.NumField() {
			return nil, errs.New(errs.Internal, "", "z-order column %v: %s has no field %d", path, col.DataType(), k)
		}
		parents = append(parents, col)
		col = st.Field(k)
	}
	nulls := false
	for _, p := range parents {
		nulls = nulls || p.NullN() > 0
	}
	if !nulls {
		col.Retain()
		return col, nil
	}
	d := col.Data()
	n, off := d.Len(), d.Offset()
	valid := memory.NewResizableBuffer(memory.DefaultAllocator)
	defer valid.Release()
	valid.Resize(int(bitutil.BytesForBits(int64(off + n))))
	bits := valid.Bytes()
	clear(bits)
	for i := range n {
		ok := col.IsValid(i)
		for _, p := range parents {
			ok = ok && p.IsValid(i)
		}
		if ok {
			bitutil.SetBit(bits, off+i)
		}
	}
	bufs := append([]*memory.Buffer{valid}, d.Buffers()[1:]...)
	out := array.NewData(d.DataType(), n, bufs, d.Children(), array.UnknownNullCount, off)
	defer out.Release()
	return array.MakeFromData(out), nil
}
