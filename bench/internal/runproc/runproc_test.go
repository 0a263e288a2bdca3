package runproc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunLineKeepsOutputAndFailedRusage: RunLine hands back a last line
// that is not a Result, where Run refuses it; a process that fails is
// still measured (a run under a memory cap is reported with what it used).
func TestRunLineKeepsOutputAndFailedRusage(t *testing.T) {
	sh := []string{"sh", "-c", `echo first; echo '{"numFilesAdded": {"totalFiles": 1}}'`}
	s, line, err := RunLine(sh, nil, nil)
	if err != nil || string(line) != `{"numFilesAdded": {"totalFiles": 1}}` || s.MaxRSS <= 0 {
		t.Fatalf("RunLine = %q, %v (peak RSS %d KiB)", line, err, s.MaxRSS)
	}
	if _, err := Run([]string{"sh", "-c", "echo not json"}, nil, nil); err == nil || !strings.Contains(err.Error(), `result "not json"`) {
		t.Errorf("Run of a line that is no Result: %v", err)
	}
	s, _, err = RunLine([]string{"sh", "-c", "echo why >&2; exit 3"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "exit status 3\nwhy") {
		t.Fatalf("failed run's error %v, want the status and stderr", err)
	}
	if s.MaxRSS <= 0 || s.Wall <= 0 {
		t.Errorf("failed run not measured: %+v", s)
	}
}

func TestOutputsRoundTrip(t *testing.T) {
	work := filepath.Join(t.TempDir(), "w")
	var o Outputs
	if err := o.Init(work); err != nil {
		t.Fatal(err)
	}
	if o.Markdown != filepath.Join(work, "results.md") || o.JSON != filepath.Join(work, "results.json") {
		t.Fatalf("default paths %+v", o)
	}
	type report struct {
		Header
		Runs []Measured `json:"runs"`
	}
	r := report{Header: Header{Command: "bench/x.sh -reps 1", Git: "abc1234", LoadStart: "1 2 3"},
		Runs: []Measured{{WallS: 2, UserS: 1, SysS: 0.5}}}
	r.Finish()
	if err := o.Save(r, "first"); err != nil {
		t.Fatal(err)
	}
	var back report
	if err := o.Rerender(&back, func() string { return back.Markdown() }); err != nil {
		t.Fatal(err)
	}
	if back.Git != "abc1234" || back.Finished == "" || len(back.Runs) != 1 || back.Runs[0].CPUS() != 1.5 {
		t.Errorf("read back %+v", back)
	}
	md, err := os.ReadFile(o.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Command: `bench/x.sh -reps 1`  \n", "; git abc1234; ", "Load average (1, 5, 15 min) at the start: 1 2 3; at the end: "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("rendered header lacks %q:\n%s", want, md)
		}
	}
}
