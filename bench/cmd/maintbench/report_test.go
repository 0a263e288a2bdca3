package main

import (
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

// TestRenderGolden holds the whole report of made-up runs (every case, a
// note, a failed capped run, changed content) to testdata/report.md.
func TestRenderGolden(t *testing.T) {
	table := func(name string, parts int) *Table {
		return &Table{Name: name, Options: gen.SmallFilesOptions{Files: 20, Partitions: parts}, Files: 20, Bytes: 10 << 30, Rows: 100, Hash: "h", Tombstones: 20}
	}
	loaded := func(r Run, rep, order int) Run {
		r.Rep, r.Order, r.LoadBefore, r.LoadAfter, r.SysS = rep, order, 0.5, 1.25, 0.125
		return r
	}
	changed := loaded(okRun(engineOurs, 0, 6, 300), 2, 1)
	changed.Checksum = &report.Checksum{Rows: 99, Hash: "other"}
	vac := func(e string, rep int) Run {
		r := loaded(okRun(e, 1, 2, 100), rep, rep)
		r.Deleted = make([]string, 20)
		return r
	}
	cases := []*Case{
		{Name: caseCompact, Table: table("spread", 2), Runs: []Run{loaded(okRun(engineDeltaRS, 10, 10.5, 1000), 1, 1),
			loaded(okRun(engineOurs, 0, 5, 250), 1, 2), changed, loaded(okRun(engineDeltaRS, 9, 9.5, 900), 2, 2)}},
		{Name: caseZOrder, Table: table("one", 1), Runs: []Run{loaded(okRun(engineDeltaRS, 3, 4, 700), 1, 1), loaded(okRun(engineOurs, 0, 2, 100), 1, 2)}},
		{Name: caseZOrderBig, Table: &Table{Name: "big", Options: gen.SmallFilesOptions{Files: 20, Partitions: 1}, Files: 20, Bytes: 2560 << 20, Rows: 100, Hash: "h"},
			CapMiB: 512, CapFrom: "-cap-mib", Runs: []Run{loaded(okRun(engineDeltaRS, 10, 11, 1000), 1, 1), loaded(okRun(engineOurs, 0, 12, 600), 1, 2),
				{Engine: engineCapped, Rep: 1, Order: 3, Measured: runproc.Measured{WallS: 1}, Error: "signal: aborted: memory allocation of 4 bytes failed"}}},
		{Name: caseVacuum, Table: table("vacuumed", 2), Runs: []Run{vac(engineDeltaRS, 1), vac(engineOurs, 2)}},
	}
	r := &Report{Header: testHeaderMaint, Reps: 2, BudgetMiB: 256, OursBudgetArgs: []string{"--max-sort-bytes", "268435456"}, ZOrderBy: "x,y",
		TargetSize: 1 << 20, Cases: cases, Notes: []string{"a note"}}
	for _, cr := range cases {
		r.Problems = append(r.Problems, verify(cr)...)
	}
	report.Golden(t, "testdata/report.md", render(r))
	r.OursBudgetArgs, r.TargetSize, r.Notes, r.Problems = nil, 0, nil, nil
	report.Golden(t, "testdata/report-defaults.md", render(r))
}

var testHeaderMaint = report.Header{Command: "bench/maintenance.sh --reps 2", Started: "2026-01-01T00:00:00Z", Finished: "2026-01-01T01:00:00Z",
	Machine: "test machine", Git: "abc1234", Deltalake: "1.0.0", LoadStart: "0.10 0.20 0.30", LoadEnd: "1.00 2.00 3.00"}
