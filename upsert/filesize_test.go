package upsert

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/protocol"
)

// padTable is a table of id, partition p and 200 random letters a row
// (about 210 Parquet bytes, which compression does not shrink).
func padTable(t *testing.T, parts []string) *table {
	return newTable(t, fields("id long", "p string", "pad string"), parts, nil)
}

// padRows makes a batch of the given ids in partition p.
func padRows(tb *table, rnd *rand.Rand, p string, ids ...int64) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, tb.arrowSchema())
	defer b.Release()
	pad := make([]byte, 200)
	for _, id := range ids {
		for j := range pad {
			pad[j] = byte('a' + rnd.IntN(26))
		}
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.StringBuilder).Append(p)
		b.Field(2).(*array.StringBuilder).Append(string(pad))
	}
	return b.NewRecordBatch()
}

func span(lo, hi int64) []int64 {
	var out []int64
	for i := lo; i < hi; i++ {
		out = append(out, i)
	}
	return out
}

// appendPad appends rows [0, n) of partition p as files of per rows.
func appendPad(tb *table, rnd *rand.Rand, p string, n, per int64) {
	for lo := int64(0); lo < n; lo += per {
		rec := padRows(tb, rnd, p, span(lo, min(lo+per, n))...)
		tb.appendBatches(nil, rec)
		rec.Release()
	}
}

// liveBytes is the size of the table's files in partition p.
func liveBytes(tb *table, p string) int64 {
	var n int64
	for _, a := range tb.snap.Files() {
		if a.PartitionValues["p"] == p || len(a.PartitionValues) == 0 {
			n += a.Size
		}
	}
	return n
}

// upsertPad upserts updates of ids [0, n) every step-th and inserts of
// [from, to), and returns the sizes of the files it added, by partition.
func upsertPad(t *testing.T, tb *table, rnd *rand.Rand, p string, n, step, from, to int64, opt Options) map[string][]int64 {
	t.Helper()
	old := map[string]bool{}
	for _, a := range tb.snap.Files() {
		old[a.Path] = true
	}
	var ids []int64
	for i := int64(0); i < n; i += step {
		ids = append(ids, i)
	}
	ids = append(ids, span(from, to)...)
	rec := padRows(tb, rnd, p, ids...)
	defer rec.Release()
	opt.PrimaryKeys = []string{"id"}
	s, err := tb.upsertBatches(opt, rec)
	if err != nil {
		t.Fatal(err)
	}
	if s.RowsUpdated != (n+step-1)/step || s.RowsInserted != to-from {
		t.Fatalf("stats %v", s)
	}
	added := map[string][]int64{}
	for _, a := range tb.snap.Files() {
		if !old[a.Path] {
			added[a.PartitionValues["p"]] = append(added[a.PartitionValues["p"]], a.Size)
		}
	}
	t.Logf("files added: %v", added)
	return added
}

// within reports whether a and b differ by at most pct percent of the larger.
func within(a, b, pct int64) bool {
	return max(a, b)-min(a, b) <= max(a, b)*pct/100
}

// small keeps the writer's buffer well under a file, so that files are cut
// while rows stream in rather than all at Close.
var small = Options{MaxBufferedBytes: 1 << 20}

// TestRewriteALittleOverTargetMakesOneFile: a rewrite whose output is
// 1.1 targets writes one file, not a full one and a small tail.
func TestRewriteALittleOverTargetMakesOneFile(t *testing.T) {
	for _, opt := range []Options{small, {}} {
		rnd := rand.New(rand.NewPCG(1, 2))
		tb := padTable(t, nil)
		appendPad(tb, rnd, "a", 5000, 1250)
		size := liveBytes(tb, "")
		// Updates in every file, and 5% more rows: 1.1 targets of output.
		opt.TargetFileSize = size * 105 / 100 * 10 / 11
		added := upsertPad(t, tb, rnd, "a", 5000, 50, 5000, 5250, opt)
		if s := added[""]; len(s) != 1 || s[0] < opt.TargetFileSize {
			t.Errorf("files %v at target %d, want one", s, opt.TargetFileSize)
		}
		if n := len(tb.rows()); n != 5250 {
			t.Errorf("%d rows, want 5250", n)
		}
	}
}

// TestRewriteBalancesTwoFiles: an output of 1.6 and 1.9 targets makes two
// files of about equal size; mostly inserts as well as mostly updates.
func TestRewriteBalancesTwoFiles(t *testing.T) {
	cases := []struct {
		name          string
		rows, inserts int64
		ratio         int64 // tenths of a target
	}{
		{"updates", 5000, 250, 16},
		{"updates", 5000, 250, 19},
		{"inserts", 1000, 4000, 16}, // the estimate learns the survivors before the inserts
	}
	for _, c := range cases {
		rnd := rand.New(rand.NewPCG(3, 4))
		tb := padTable(t, nil)
		appendPad(tb, rnd, "a", c.rows, 1000)
		out := liveBytes(tb, "") * (c.rows + c.inserts) / c.rows
		opt := small
		opt.TargetFileSize = out * 10 / c.ratio
		added := upsertPad(t, tb, rnd, "a", c.rows, 50, c.rows, c.rows+c.inserts, opt)
		if s := added[""]; len(s) != 2 || !within(s[0], s[1], 15) {
			t.Errorf("%s at %d tenths of a target: files %v at target %d, want two within 15%%", c.name, c.ratio, s, opt.TargetFileSize)
		}
		if n := int64(len(tb.rows())); n != c.rows+c.inserts {
			t.Errorf("%s: %d rows, want %d", c.name, n, c.rows+c.inserts)
		}
	}
}

// TestRewriteSizesEachPartition: each rewritten partition gets its own
// estimate.
func TestRewriteSizesEachPartition(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	tb := padTable(t, []string{"p"})
	appendPad(tb, rnd, "a", 5000, 1250)
	appendPad(tb, rnd, "b", 1000, 500)
	opt := small
	opt.TargetFileSize = liveBytes(tb, "a") * 105 / 100 * 10 / 11
	old := slices.Clone(tb.snap.Files())
	var ids []int64
	for i := int64(0); i < 5000; i += 50 {
		ids = append(ids, i)
	}
	ra := padRows(tb, rnd, "a", append(ids, span(5000, 5250)...)...)
	rb := padRows(tb, rnd, "b", 0, 1, 1000)
	defer ra.Release()
	defer rb.Release()
	opt.PrimaryKeys = []string{"id"}
	if _, err := tb.upsertBatches(opt, ra, rb); err != nil {
		t.Fatal(err)
	}
	files := map[string]int{}
	for _, a := range tb.snap.Files() {
		if !slices.ContainsFunc(old, func(o *protocol.Add) bool { return o.Path == a.Path }) {
			files[a.PartitionValues["p"]]++
		}
	}
	if files["a"] != 1 || files["b"] != 1 {
		t.Errorf("files added per partition %v, want one each", files)
	}
	if n := len(tb.rows()); n != 6251 {
		t.Errorf("%d rows, want 6251", n)
	}
}
