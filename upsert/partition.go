package upsert

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/partition"
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
	cols := make([]arrow.Array, len(c.parts))
	for k, f := range c.parts {
		cols[k] = rec.Column(c.table.Index(f.Name))
	}
	return partition.GroupRows(cols, int(rec.NumRows()))
}

// rowPartition renders row i's partition values in their canonical log
// text. A null value, or an empty string (which the log stores as null),
// is nullText: the null partition is a partition like any other, matched
// null-safely as Spark's MERGE matches it on `t.p <=> s.p`.
func (c *config) rowPartition(rec arrow.RecordBatch, i int) ([]string, error) {
	texts := make([]string, len(c.parts))
	for k, f := range c.parts {
		arr := rec.Column(c.table.Index(f.Name))
		if arr.IsNull(i) {
			texts[k] = nullText
			continue
		}
		v, err := partition.Value(arr, i)
		if err != nil {
			return nil, err
		}
		s, err := schema.FormatPartitionValue(f.Type, v)
		if err != nil {
			return nil, errs.Wrap(errs.InvalidArgument, "", err, "partition column %q", f.Name)
		}
		if s == "" {
			texts[k] = nullText
			continue
		}
		if !utf8.ValidString(s) {
			return nil, invalid("partition column %q has a value that is not valid UTF-8 (%q)", f.Name, s)
		}
		texts[k] = strings.Clone(s)
	}
	return texts, nil
}

// partitionIndex turns files' logical partition values into identities,
// remembering the canonical text of every raw value it has seen.
type partitionIndex struct {
	c     *config
	cache []map[string]string // per partition column: raw log text → canonical text (nullText, badText)
}

func newPartitionIndex(c *config) *partitionIndex {
	ix := &partitionIndex{c: c, cache: make([]map[string]string, len(c.parts))}
	for i := range ix.cache {
		ix.cache[i] = map[string]string{}
	}
	return ix
}

// nullText stands for a null partition value (which the log also writes
// for an empty string); badText for a value that does not parse, which no
// source row can match. Neither is valid UTF-8 text of a value.
const (
	nullText = "\x00"
	badText  = "\xff"
)

// identity of a file's partition; ok is false when a value does not parse.
func (ix *partitionIndex) identity(add *protocol.Add, texts []string) (string, bool) {
	for k, f := range ix.c.parts {
		raw, ok := add.PartitionValues[ix.c.partKeys[k]]
		if !ok {
			raw = add.PartitionValues[f.Name]
		}
		t, seen := ix.cache[k][raw]
		if !seen {
			t = badText
			switch v, ok, err := ix.c.sess.PartitionValue(f.Type, raw); {
			case err != nil:
			case !ok:
				t = nullText
			default:
				if s, err := schema.FormatPartitionValue(f.Type, v); err == nil {
					t = s
					if s == "" {
						t = nullText
					}
				}
			}
			ix.cache[k][raw] = t
		}
		if t == badText {
			return "", false
		}
		texts[k] = t
	}
	return identity(texts), true
}
