package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLIOptimize: four appends to partition d1 and one to d2 compact
// into one file of d1; --json prints delta-rs's metrics with the version;
// the rows stay; a second run does nothing.
func TestCLIOptimize(t *testing.T) {
	table := dmlCLITable(t)
	for _, rows := range []string{"5,e,d1\n", "6,f,d1\n", "7,g,d1\n"} {
		mustRun(t, "write", table, "--input", writeFile(t, "more.csv", "id,name,day\n"+rows), "--mode", "append")
	}
	before := sortedLines(mustRun(t, "scan", table, "--format", "csv"))
	out := mustRun(t, "optimize", table, "--where", "day = 'd1'", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numFilesRemoved"] != 4.0 || m["numFilesAdded"] != 1.0 || m["partitionsOptimized"] != 1.0 ||
		m["totalConsideredFiles"] != 4.0 || m["version"] != 4.0 || m["preserveInsertionOrder"] != true {
		t.Errorf("--json: %s", out)
	}
	if s, _ := m["filesRemoved"].(string); !strings.Contains(s, `"totalFiles":4`) {
		t.Errorf("filesRemoved: %v", m["filesRemoved"])
	}
	if after := sortedLines(mustRun(t, "scan", table, "--format", "csv")); after != before {
		t.Errorf("rows changed:\n%s\nwant\n%s", after, before)
	}
	out = mustRun(t, "optimize", table, "--target-size", "1000000")
	if !strings.HasPrefix(out, "OptimizeStats(version=4, commits=0, num_files_added=0,") {
		t.Errorf("second run: %s", out)
	}
	for args, want := range map[string]string{
		"--where|id = 1":      "id is not one",
		"--zorder-by|day":     `--zorder-by: invalid argument: z-order by "day": it is a partition column`,
		"--force=true|--json": "--force applies to --zorder-by",
		"--target-size|-1":    "must not be negative",
		"--where|day = ":      "--where",
	} {
		a := strings.Split(args, "|")
		_, err := run(t, "optimize", table, a[0], a[1])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("optimize %s: %v, want %q", args, err, want)
		}
	}
}

// TestCLIZOrder: --zorder-by rewrites each partition's files in z-order
// with the same rows; a second run has nothing to do, --force redoes it.
func TestCLIZOrder(t *testing.T) {
	table := dmlCLITable(t)
	for _, rows := range []string{"5,e,d1\n9,i,d2\n", "6,f,d1\n", "7,g,d1\n"} {
		mustRun(t, "write", table, "--input", writeFile(t, "more.csv", "id,name,day\n"+rows), "--mode", "append")
	}
	before := sortedLines(mustRun(t, "scan", table, "--format", "csv"))
	var m map[string]any
	out := mustRun(t, "optimize", table, "--zorder-by", "name,id", "--json", "--temp-dir", t.TempDir())
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numFilesRemoved"] != 6.0 || m["numFilesAdded"] != 2.0 || m["partitionsOptimized"] != 2.0 || m["version"] != 4.0 {
		t.Errorf("--json: %s", out)
	}
	if after := sortedLines(mustRun(t, "scan", table, "--format", "csv")); after != before {
		t.Errorf("rows changed:\n%s\nwant\n%s", after, before)
	}
	if out := mustRun(t, "optimize", table, "--zorder-by", "name,id"); !strings.HasPrefix(out, "OptimizeStats(version=4, commits=0,") {
		t.Errorf("second run: %s", out)
	}
	if out := mustRun(t, "optimize", table, "--zorder-by", "name,id", "--force"); !strings.HasPrefix(out, "OptimizeStats(version=5, commits=1, num_files_added=2, num_files_removed=2,") {
		t.Errorf("forced run: %s", out)
	}
}

func sortedLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// An empty --zorder-by is refused naming the flag, and nothing is
// compacted.
func TestCLIZOrderEmpty(t *testing.T) {
	table := dmlCLITable(t)
	mustRun(t, "write", table, "--input", writeFile(t, "more.csv", "id,name,day\n5,e,d1\n"), "--mode", "append")
	for _, cols := range []string{"", " , ", ","} {
		msg := mustFail(t, "optimize", table, "--zorder-by", cols)
		if !strings.Contains(msg, "--zorder-by") || !strings.Contains(msg, "column") {
			t.Errorf("--zorder-by %q: %q", cols, msg)
		}
	}
	if v := tableVersion(t, table); v != 1 {
		t.Errorf("a refused optimize committed: version %d", v)
	}
}

// TestCLIPurgeDeletionVectors: --purge-deletion-vectors rewrites the files
// with deletion vectors (above --purge-min-deleted-ratio when given), the
// rows stay, no vector is left, and the history says REORG.
func TestCLIPurgeDeletionVectors(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "write", table, "--input", writeFile(t, "a.csv", "id,name\n1,a\n2,b\n3,c\n4,d\n"), "--property", "delta.enableDeletionVectors=true")
	mustRun(t, "write", table, "--input", writeFile(t, "b.csv", "id,name\n5,e\n6,f\n7,g\n8,h\n"), "--mode", "append")
	mustRun(t, "delete", table, "--where", "id IN (1, 2, 3, 5)")
	before := sortedLines(mustRun(t, "scan", table, "--format", "csv"))
	var m map[string]any
	// The first file's vector hides 3/4 of its rows, the second's 1/4.
	out := mustRun(t, "optimize", table, "--purge-deletion-vectors", "--purge-min-deleted-ratio", "0.5", "--json")
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numFilesRemoved"] != 1.0 || m["numFilesAdded"] != 1.0 || m["version"] != 3.0 {
		t.Errorf("purge above 0.5: %s", out)
	}
	out = mustRun(t, "optimize", table, "--purge-deletion-vectors", "--json")
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numFilesRemoved"] != 1.0 || m["numFilesAdded"] != 1.0 || m["version"] != 4.0 {
		t.Errorf("purge: %s", out)
	}
	if after := sortedLines(mustRun(t, "scan", table, "--format", "csv")); after != before {
		t.Errorf("rows changed:\n%s\nwant\n%s", after, before)
	}
	if h := mustRun(t, "history", table); strings.Count(h, "REORG") != 2 {
		t.Errorf("history does not show two REORG commits:\n%s", h)
	}
	for args, want := range map[string]string{
		"--purge-min-deleted-ratio|0.5":           "applies to --purge-deletion-vectors",
		"--purge-deletion-vectors|--zorder-by=id": "exclude each other",
	} {
		a := strings.Split(args, "|")
		_, err := run(t, "optimize", table, a[0], a[1])
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("optimize %s: %v, want %q", args, err, want)
		}
	}
	_, err := run(t, "optimize", table, "--purge-deletion-vectors", "--purge-min-deleted-ratio", "1.5")
	if err == nil || !strings.Contains(err.Error(), "--purge-min-deleted-ratio") || !strings.Contains(err.Error(), "below 1") {
		t.Errorf("ratio 1.5: %v", err)
	}
}
