package datafile

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// balanceBuffer makes row groups of 16 KiB of Arrow data, small against the
// targets below, so that files are cut while rows still stream in.
const balanceBuffer = 32 << 10

// balanceData makes rows batches of the roll schema (about 40 Parquet bytes
// a row) over parts partitions.
func balanceData(t *testing.T, rows, parts int) []arrow.RecordBatch {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	t.Cleanup(func() { mem.AssertSize(t, 0) })
	sc := mustSchema(t, rollSchema)
	rnd := rand.New(rand.NewPCG(7, 8))
	var recs []arrow.RecordBatch
	for k := 0; k < rows; k += 1000 {
		recs = append(recs, rollBatch(mem, sc, k, min(1000, rows-k), parts, rnd))
	}
	t.Cleanup(func() { releaseAll(recs) })
	return recs
}

// writeExpecting writes recs at the given target and expectation per
// partition (nil: none) and returns the adds and their sizes by
// partition value, in the order the files were finished.
func writeExpecting(t *testing.T, recs []arrow.RecordBatch, parts []string, target int64, expected func(map[string]string) Expectation) ([]*protocol.Add, map[string][]int64) {
	t.Helper()
	sc := mustSchema(t, rollSchema)
	st := storage.NewMemory()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: parts, TargetFileSize: target,
		MaxUnwrittenBytes: balanceBuffer, Expected: expected}, recs...)
	sizes := map[string][]int64{}
	defer func() { t.Logf("target %d expect %v: %v", target, expected != nil, sizes) }()
	for _, a := range adds {
		p := a.PartitionValues["part"]
		sizes[p] = append(sizes[p], a.Size)
	}
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: sc, parts: parts, files: adds}), arrowrows.Rows(recs...))
	return adds, sizes
}

// total is the bytes of one unpartitioned write of recs.
func total(t *testing.T, recs []arrow.RecordBatch, target int64) int64 {
	t.Helper()
	_, sizes := writeExpecting(t, recs, nil, target, nil)
	var n int64
	for _, s := range sizes[""] {
		n += s
	}
	return n
}

func expect(rows int64, bytesPerRow float64) func(map[string]string) Expectation {
	return func(map[string]string) Expectation { return Expectation{Rows: rows, BytesPerRow: bytesPerRow} }
}

func TestExpectedRowsALittleOverTargetMakeOneFile(t *testing.T) {
	const rows = 12000
	recs := balanceData(t, rows, 1)
	size := total(t, recs, 1<<30)
	perRow := float64(size) / rows
	target := size * 10 / 11 // the output is 1.1 targets
	// Without an expectation: a full file and a small tail.
	_, before := writeExpecting(t, recs, nil, target, nil)
	if s := before[""]; len(s) != 2 || s[1] > target/4 {
		t.Fatalf("without an expectation: files %v at target %d, want a full file and a tail", s, target)
	}
	for _, e := range []Expectation{
		{rows, perRow}, {rows * 9 / 10, perRow}, {rows * 11 / 10, perRow}, // exact, under, over
		{rows, perRow * 3}, {rows, perRow / 3}, {rows, 0}, // the Writer measures its own bytes per row
	} {
		_, after := writeExpecting(t, recs, nil, target, expect(e.Rows, e.BytesPerRow))
		if s := after[""]; len(s) != 1 {
			t.Errorf("expecting %+v: files %v at target %d, want one file", e, s, target)
		}
	}
}

func TestExpectedRowsBalanceTwoFiles(t *testing.T) {
	const rows = 20000
	recs := balanceData(t, rows, 1)
	size := total(t, recs, 1<<30)
	for _, ratio := range []int64{16, 19} { // tenths of a target
		target := size * 10 / ratio
		_, before := writeExpecting(t, recs, nil, target, nil)
		if s := before[""]; len(s) != 2 || (ratio == 16 && within(s[0], s[1], 30)) {
			t.Fatalf("%d.%d targets without an expectation: files %v at target %d, want a full file and a smaller one",
				ratio/10, ratio%10, s, target)
		}
		for _, e := range []int64{rows, rows * 49 / 50, rows * 51 / 50} { // a misestimate shifts the cut by half its error
			_, after := writeExpecting(t, recs, nil, target, expect(e, 0))
			s := after[""]
			if len(s) != 2 || !within(s[0], s[1], 15) {
				t.Errorf("%d.%d targets, expecting %d rows: files %v at target %d, want two within 15%%",
					ratio/10, ratio%10, e, s, target)
			}
		}
	}
}

// within reports whether a and b differ by at most pct percent of the larger.
func within(a, b int64, pct int64) bool {
	return max(a, b)-min(a, b) <= max(a, b)*pct/100
}

func TestExpectedRowsUnderestimateStillCapsFiles(t *testing.T) {
	const rows = 40000
	recs := balanceData(t, rows, 1)
	size := total(t, recs, 1<<30)
	target := size / 4
	for _, e := range []int64{rows / 4, rows / 10, 1} {
		_, after := writeExpecting(t, recs, nil, target, expect(e, 0))
		s := after[""]
		// One row group of slack: the cut is estimated.
		if slices.Max(s) > target*3/2+balanceBuffer/2 || len(s) < 3 {
			t.Errorf("expecting %d rows of %d: files %v at target %d, want at most 1.5 targets each", e, rows, s, target)
		}
		if len(s) > 1 && s[len(s)-1] < target/4 {
			t.Errorf("expecting %d rows of %d: files %v at target %d end in a small tail", e, rows, s, target)
		}
	}
}

func TestExpectedRowsPerPartition(t *testing.T) {
	recs := balanceData(t, 40000, 2)
	_, whole := writeExpecting(t, recs, []string{"part"}, 1<<30, nil)
	target := whole["0"][0] * 10 / 19
	expected := func(values map[string]string) Expectation {
		// A partition the caller knows nothing about rolls as without.
		if values["part"] == "1" {
			return Expectation{}
		}
		return Expectation{Rows: 20000}
	}
	_, got := writeExpecting(t, recs, []string{"part"}, target, expected)
	if s := got["0"]; len(s) != 2 || !within(s[0], s[1], 15) {
		t.Errorf("partition 0: files %v at target %d, want two within 15%%", s, target)
	}
	_, before := writeExpecting(t, recs, []string{"part"}, target, nil)
	if !slices.Equal(got["1"], before["1"]) {
		t.Errorf("partition 1 without an expectation: files %v, want %v as without one", got["1"], before["1"])
	}
}

func TestNoExpectationRollsAsBefore(t *testing.T) {
	recs := balanceData(t, 20000, 1)
	size := total(t, recs, 1<<30)
	target := size * 10 / 25
	_, none := writeExpecting(t, recs, nil, target, nil)
	_, zero := writeExpecting(t, recs, nil, target, expect(0, 40))
	s := none[""]
	if !slices.Equal(s, zero[""]) {
		t.Errorf("files %v with an expectation of 0 rows, %v without", zero[""], s)
	}
	// Full files at the target, then the rest.
	if len(s) != 3 || s[2] > target*6/10 {
		t.Errorf("files %v at target %d, want two full files and the rest", s, target)
	}
	for _, n := range s[:2] {
		if n < target*15/16 || n > target+balanceBuffer/2 {
			t.Errorf("files %v at target %d, want the first two at the target", s, target)
		}
	}
}

func TestExpectedRowsManyFilesHaveNoTail(t *testing.T) {
	const rows = 40000
	recs := balanceData(t, rows, 1)
	size := total(t, recs, 1<<30)
	target := size * 10 / 44 // 4.4 targets: four files of 1.1
	_, before := writeExpecting(t, recs, nil, target, nil)
	if s := before[""]; len(s) != 5 || s[4] > target/2 {
		t.Fatalf("without an expectation: files %v at target %d, want four full files and a tail", s, target)
	}
	_, after := writeExpecting(t, recs, nil, target, expect(rows, 0))
	s := after[""]
	if len(s) != 4 || !within(slices.Min(s), slices.Max(s), 10) {
		t.Errorf("files %v at target %d, want four within 10%%", s, target)
	}
}
