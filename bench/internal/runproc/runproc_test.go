package runproc

import (
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
