package upsert

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// rowSel selects rows of one source batch: all of them, a range, or a
// list of indexes. Selections are what partitions hold instead of copies.
type rowSel struct {
	batch  int
	lo, hi int     // the range [lo, hi) when idx is nil
	idx    []int32 // ascending row indexes
}

func (r rowSel) len() int {
	if r.idx != nil {
		return len(r.idx)
	}
	return r.hi - r.lo
}

// row returns the i-th selected row.
func (r rowSel) row(i int) int {
	if r.idx != nil {
		return int(r.idx[i])
	}
	return r.lo + i
}

// partValues are the canonical log texts of one partition's values, in
// partition column order, and the identity built from them.
type partValues struct {
	texts []string
	key   string
}

// identity joins texts unambiguously ("" for an unpartitioned table).
func identity(texts []string) string {
	var b strings.Builder
	for _, t := range texts {
		b.WriteString(strconv.Itoa(len(t)))
		b.WriteByte(':')
		b.WriteString(t)
	}
	return b.String()
}

// groupSource splits the source rows by partition values, in order of
// first appearance. It returns the groups' values and selections, and the
// bytes the selections hold.
func groupSource(c *config, s *source) ([]partValues, [][]rowSel, int64, error) {
	if len(c.parts) == 0 {
		var sels []rowSel
		for b, rec := range s.batches {
			sels = append(sels, rowSel{batch: b, hi: int(rec.NumRows())})
		}
		if len(sels) == 0 {
			return nil, nil, 0, nil
		}
		return []partValues{{key: ""}}, [][]rowSel{sels}, 0, nil
	}
	var (
		vals  []partValues
		sels  [][]rowSel
		index = map[string]int{}
		bytes int64
	)
	for b, rec := range s.batches {
		n := int(rec.NumRows())
		ids, groups, err := c.groupRows(rec)
		if err != nil {
			return nil, nil, 0, err
		}
		// Counting sort of rows by group: ascending indexes per group.
		start := make([]int, groups+1)
		first := make([]int, groups)
		for i := range first {
			first[i] = -1
		}
		for row, g := range ids {
			start[g+1]++
			if first[g] < 0 {
				first[g] = row
			}
		}
		for g := 1; g <= groups; g++ {
			start[g] += start[g-1]
		}
		rows := make([]int32, n)
		next := append([]int(nil), start[:groups]...)
		for row, g := range ids {
			rows[next[g]] = int32(row)
			next[g]++
		}
		for g := 0; g < groups; g++ {
			texts, err := c.rowPartition(rec, first[g])
			if err != nil {
				return nil, nil, 0, err
			}
			key := identity(texts)
			p, ok := index[key]
			if !ok {
				p = len(vals)
				index[key] = p
				vals = append(vals, partValues{texts: texts, key: key})
				sels = append(sels, nil)
			}
			idx := rows[start[g]:start[g+1]]
			sel := rowSel{batch: b}
			if lo, hi := int(idx[0]), int(idx[len(idx)-1])+1; hi-lo == len(idx) {
				sel.lo, sel.hi = lo, hi
			} else {
				sel.idx = append([]int32(nil), idx...)
				bytes += int64(len(idx)) * 4
			}
			sels[p] = append(sels[p], sel)
		}
	}
	return vals, sels, bytes, nil
}

// groupRows numbers the distinct partition value sets of a batch's rows.
// Values are compared as stored; rows of two sets that render to the same
// text merge later by identity.
func (c *config) groupRows(rec arrow.RecordBatch) ([]int32, int, error) {
	n := int(rec.NumRows())
	var ids []int32
	groups := 0
	for k, f := range c.parts {
		arr := rec.Column(c.table.Index(f.Name))
		col, m, err := valueIDs(arr, n)
		if err != nil {
			return nil, 0, err
		}
		if k == 0 {
			ids, groups = col, m
			continue
		}
		if m == 1 {
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
// appearance; nulls share one id (and fail later, in rowPartition).
func valueIDs(arr arrow.Array, n int) ([]int32, int, error) {
	ids := make([]int32, n)
	switch a := arr.(type) {
	case *array.String:
		return ids, number(ids, a, a.Value, strings.Clone), nil
	case *array.Binary:
		return ids, number(ids, a, a.ValueString, strings.Clone), nil
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
	return nil, 0, errs.New(errs.UnsupportedTable, "", "partition column of Arrow type %s", arr.DataType())
}

func same[T any](v T) T { return v }

// number fills ids for one typed column; keep copies a key that outlives
// the batch (string views into Arrow buffers).
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
	for i := range ids {
		if ids[i] < 0 {
			ids[i] = int32(len(seen)) // nulls take the last id
		}
	}
	return len(seen) + 1
}

// rowPartition renders row i's partition values in their canonical log
// text. A null value, or an empty string (which the log stores as null),
// is refused: an upsert's identity needs a partition.
func (c *config) rowPartition(rec arrow.RecordBatch, i int) ([]string, error) {
	texts := make([]string, len(c.parts))
	for k, f := range c.parts {
		arr := rec.Column(c.table.Index(f.Name))
		if arr.IsNull(i) {
			return nil, invalid("partition column %q is null in a source row (%s); Delta partition values of an upsert must not be null",
				f.Name, c.describeRow(rec, i))
		}
		v, err := arrowValue(arr, i)
		if err != nil {
			return nil, err
		}
		s, err := schema.FormatPartitionValue(f.Type, v)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "partition column %q", f.Name)
		}
		if s == "" {
			return nil, invalid("partition column %q is an empty string in a source row (%s), which Delta stores as null; partition values of an upsert must not be null",
				f.Name, c.describeRow(rec, i))
		}
		if !utf8.ValidString(s) {
			return nil, invalid("partition column %q has a value that is not valid UTF-8 (%q)", f.Name, s)
		}
		texts[k] = strings.Clone(s)
	}
	return texts, nil
}

// arrowValue is row i of arr as the Go value schema.FormatPartitionValue takes.
func arrowValue(arr arrow.Array, i int) (any, error) {
	switch a := arr.(type) {
	case *array.String:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.Int8:
		return a.Value(i), nil
	case *array.Int16:
		return a.Value(i), nil
	case *array.Int32:
		return a.Value(i), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Date32:
		return a.Value(i), nil
	case *array.Timestamp:
		return a.Value(i), nil
	case *array.Float32:
		return a.Value(i), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Decimal128:
		return a.Value(i), nil
	}
	return nil, errs.New(errs.UnsupportedTable, "", "partition column of Arrow type %s", arr.DataType())
}

// describeRow names a source row by its key and partition values.
func (c *config) describeRow(rec arrow.RecordBatch, i int) string {
	var parts []string
	seen := map[string]bool{}
	for _, f := range append(append([]*schema.Field(nil), c.allKeys...), c.parts...) {
		if seen[f.Name] {
			continue
		}
		seen[f.Name] = true
		parts = append(parts, f.Name+"="+rec.Column(c.table.Index(f.Name)).ValueStr(i))
	}
	return strings.Join(parts, ", ")
}

// partitionIndex turns files' logical partition values into identities,
// remembering the canonical text of every raw value it has seen.
type partitionIndex struct {
	c     *config
	cache []map[string]string // per partition column: raw log text → canonical text ("\x00" for null)
}

func newPartitionIndex(c *config) *partitionIndex {
	ix := &partitionIndex{c: c, cache: make([]map[string]string, len(c.parts))}
	for i := range ix.cache {
		ix.cache[i] = map[string]string{}
	}
	return ix
}

const nullText = "\x00"

// identity of a file's partition; ok is false when a value is null (no
// upsert partition can be null) or does not parse.
func (ix *partitionIndex) identity(add *protocol.Add, texts []string) (string, bool) {
	for k, f := range ix.c.parts {
		raw, ok := add.PartitionValues[ix.c.partKeys[k]]
		if !ok {
			raw = add.PartitionValues[f.Name]
		}
		t, seen := ix.cache[k][raw]
		if !seen {
			t = nullText
			if v, ok, err := schema.ParsePartitionValue(f.Type, raw); err == nil && ok {
				if s, err := schema.FormatPartitionValue(f.Type, v); err == nil && s != "" {
					t = s
				}
			}
			ix.cache[k][raw] = t
		}
		if t == nullText {
			return "", false
		}
		texts[k] = t
	}
	return identity(texts), true
}
