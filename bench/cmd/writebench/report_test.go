package main

import (
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/report"
	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

var testHeader = report.Header{Command: "bench/write.sh --reps 2", Started: "2026-01-01T00:00:00Z", Finished: "2026-01-01T01:00:00Z",
	Machine: "test machine", Git: "abc1234", Deltalake: "1.0.0", LoadStart: "0.10 0.20 0.30", LoadEnd: "1.00 2.00 3.00"}

func writeRun(cs, engine string, rep, order int, op float64, hash string) Run {
	return Run{Case: cs, Engine: engine, Rep: rep, Order: order,
		Measured: runproc.Measured{OpS: op, WallS: op + 0.5, UserS: op * 2, SysS: 0.25, MaxRSSKiB: 512 << 10, LoadBefore: 0.5, LoadAfter: 1.5},
		Volume:   runproc.Volume{Commits: 1, FilesAdded: 3, BytesAdded: 3 << 30}, Checksum: &report.Checksum{Version: 0, Rows: 1000, Hash: hash}}
}

// TestRenderGolden holds the whole report of made-up runs (a failed run
// and a content that differs among them) to testdata/report.md.
func TestRenderGolden(t *testing.T) {
	failed := writeRun("partitioned", engineOurs, 2, 1, 0, "")
	failed.Checksum, failed.Error = nil, "exit status 1 / out of disk"
	r := &Report{Header: testHeader, Reps: 2, Cases: []string{"plain", "partitioned"},
		Input: Input{Rows: 1000, Batches: 2, BatchRows: 500, Partitions: 100, ArrowBytes: 1 << 30, FileBytes: 1100 << 20, Seed: 1},
		Runs: []Run{writeRun("plain", engineDeltaRS, 1, 1, 10, "h"), writeRun("plain", engineOurs, 1, 2, 5, "h"),
			writeRun("plain", engineOurs, 2, 1, 6, "h"), writeRun("plain", engineDeltaRS, 2, 2, 11, "h"),
			writeRun("partitioned", engineDeltaRS, 1, 1, 20, "h"), writeRun("partitioned", engineOurs, 1, 2, 8, "other"), failed}}
	r.Problems = append([]string{"partitioned, deltalite.Write rep 2: exit status 1 / out of disk"}, verify(r)...)
	report.Golden(t, "testdata/report.md", render(r))
}
