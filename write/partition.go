package write

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// partCol is a partition column of the writer.
type partCol struct {
	field *schema.Field
	index int    // column of the logical batch
	key   string // partitionValues key: the physical name under column mapping
}

// groupRows gives each row the dense id of its partition value set and
// returns the number of sets. Values are compared as stored (float bits,
// decimal units), so two sets may still share a partition once rendered as
// text; the partition map then merges them.
func groupRows(rec arrow.RecordBatch, parts []partCol) ([]int32, int, error) {
	n := int(rec.NumRows())
	ids, groups, err := valueIDs(rec.Column(parts[0].index), n)
	if err != nil {
		return nil, 0, err
	}
	for _, pc := range parts[1:] {
		col, k, err := valueIDs(rec.Column(pc.index), n)
		if err != nil {
			return nil, 0, err
		}
		if k == 1 {
			continue
		}
		pairs := map[[2]int32]int32{}
		for i := range ids {
			key := [2]int32{ids[i], col[i]}
			id, ok := pairs[key]
			if !ok {
				id = int32(len(pairs))
				pairs[key] = id
			}
			ids[i] = id
		}
		groups = len(pairs)
	}
	return ids, groups, nil
}

// valueIDs numbers the distinct values of one column in order of first
// appearance; nulls share one id.
func valueIDs(arr arrow.Array, n int) ([]int32, int, error) {
	ids := make([]int32, n)
	switch a := arr.(type) {
	case *array.String:
		return ids, number(ids, a, func(i int) string { return a.Value(i) }, strings.Clone), nil
	case *array.Binary:
		return ids, number(ids, a, func(i int) string { return unsafeString(a.Value(i)) }, strings.Clone), nil
	case *array.Int8:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int16:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int32:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Int64:
		return ids, number(ids, a, a.Value, same), nil
	case *array.Date32:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Timestamp:
		return ids, number(ids, a, func(i int) int64 { return int64(a.Value(i)) }, same), nil
	case *array.Float32:
		return ids, number(ids, a, func(i int) uint64 { return uint64(math.Float32bits(a.Value(i))) }, same), nil
	case *array.Float64:
		return ids, number(ids, a, func(i int) uint64 { return math.Float64bits(a.Value(i)) }, same), nil
	case *array.Boolean:
		return ids, number(ids, a, a.Value, same), nil
	case *array.Decimal128:
		return ids, number(ids, a, a.Value, same), nil
	}
	return nil, 0, errs.New(errs.Internal, "", "partition column of Arrow type %s", arr.DataType())
}

func same[T any](v T) T { return v }

// number fills ids for one typed column; nulls take the last id. keep
// copies a key that outlives the batch (string views into Arrow buffers).
func number[K comparable](ids []int32, arr arrow.Array, value func(int) K, keep func(K) K) int {
	seen := map[K]int32{}
	hasNull := false
	var prev K
	prevID := int32(-1)
	for i := range ids {
		if arr.IsNull(i) {
			ids[i], hasNull = -1, true
			continue
		}
		v := value(i)
		if prevID >= 0 && v == prev {
			ids[i] = prevID // runs of one value are common in sorted input
			continue
		}
		id, ok := seen[v]
		if !ok {
			id = int32(len(seen))
			seen[keep(v)] = id
		}
		ids[i], prev, prevID = id, v, id
	}
	if !hasNull {
		return len(seen)
	}
	nullID := int32(len(seen))
	for i := range ids {
		if ids[i] < 0 {
			ids[i] = nullID
		}
	}
	return len(seen) + 1
}

func unsafeString(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// partitionValue reads one row's value of a partition column in its log
// text form; ok is false for null, and for an empty string, which the log
// cannot tell from null.
func partitionValue(pc partCol, arr arrow.Array, row int) (string, bool, error) {
	if arr.IsNull(row) {
		return "", false, nil
	}
	var v any
	switch a := arr.(type) {
	case *array.String:
		v = a.Value(row)
	case *array.Binary:
		v = a.Value(row)
	case *array.Int8:
		v = a.Value(row)
	case *array.Int16:
		v = a.Value(row)
	case *array.Int32:
		v = a.Value(row)
	case *array.Int64:
		v = a.Value(row)
	case *array.Date32:
		v = a.Value(row)
	case *array.Timestamp:
		v = a.Value(row)
	case *array.Float32:
		v = a.Value(row)
	case *array.Float64:
		v = a.Value(row)
	case *array.Boolean:
		v = a.Value(row)
	case *array.Decimal128:
		v = a.Value(row)
	default:
		return "", false, errs.New(errs.Internal, "", "partition column %q of Arrow type %s", pc.field.Name, arr.DataType())
	}
	s, err := schema.FormatPartitionValue(pc.field.Type, v)
	if err != nil {
		return "", false, errs.Wrap(errs.InvalidArgument, "", err, "partition column %q", pc.field.Name)
	}
	if !utf8.ValidString(s) {
		return "", false, errs.New(errs.InvalidArgument, "", "partition column %q has a value that is not valid UTF-8 (%q): the log stores partition values as JSON text",
			pc.field.Name, s)
	}
	if s == "" {
		if !pc.field.Nullable {
			return "", false, errs.New(errs.InvalidArgument, "", "partition column %q is not nullable, but has an empty string, which Delta stores as null", pc.field.Name)
		}
		return "", false, nil
	}
	return strings.Clone(s), true, nil
}

// partitionKey identifies a set of partition values.
func partitionKey(values []string, ok []bool) string {
	var b strings.Builder
	for i, v := range values {
		if !ok[i] {
			b.WriteString("-;")
			continue
		}
		b.WriteString(strconv.Itoa(len(v)))
		b.WriteByte(':')
		b.WriteString(v)
		b.WriteByte(';')
	}
	return b.String()
}
