package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestCLIMerge(t *testing.T) {
	table := dmlCLITable(t)
	src := writeFile(t, "src.csv", "id,name,day\n2,B,d1\n5,e,d2\n")
	out := mustRun(t, "merge", table, "--source", src, "--merge-type", "upsert", "--predicate", "t.id = s.id AND t.day = s.day", "--json")
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("--json output %q: %v", out, err)
	}
	if m["numTargetRowsUpdated"] != 1.0 || m["numTargetRowsInserted"] != 1.0 || m["numSourceRows"] != 2.0 || m["version"] != 1.0 {
		t.Errorf("--json: %s", out)
	}
	for _, k := range []string{"numTargetRowsCopied", "numTargetFilesAdded", "numTargetFilesRemoved", "executionTimeMs", "scanTimeMs", "rewriteTimeMs"} {
		if _, ok := m[k]; !ok {
			t.Errorf("--json lacks %s: %s", k, out)
		}
	}
	spec := writeFile(t, "spec.json", `{"merge_type": "custom", "predicate": "t.id = s.id",
		"operations": {"when_matched_delete": [{"predicate": "s.name = 'x'"}],
		               "when_not_matched_by_source_update": [{"predicate": "t.day = 'd2'", "updates": {"name": "'old'"}}]}}`)
	src2 := writeFile(t, "src2.csv", "id,name,day\n1,x,d1\n")
	out = mustRun(t, "merge", table, "--source", src2, "--spec", spec)
	if !strings.HasPrefix(out, "MergeStats(version=2, skipped=false, nested_loop=false, num_source_rows=1, num_target_rows_inserted=0, num_target_rows_updated=3, num_target_rows_deleted=1,") {
		t.Errorf("text: %s", out)
	}
	rows := mustRun(t, "scan", table, "--format", "csv")
	for _, want := range []string{"2,B,d1", "3,old,d2", "4,old,d2", "5,old,d2"} {
		if !strings.Contains(rows, want) {
			t.Errorf("rows lack %s:\n%s", want, rows)
		}
	}
	if strings.Contains(rows, "1,a,d1") {
		t.Errorf("row 1 was not deleted:\n%s", rows)
	}
	bad := writeFile(t, "bad.json", "{\"merge_type\": \"custom\",\n \"predicate\": \"t.id = s.id\",\n \"operations\": {\"when_matched_insert\": [{}]}}")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--spec", bad}, `bad.json: invalid argument: merge spec: operations.when_matched_insert: unknown key`},
		{[]string{"--spec", spec, "--merge-type", "upsert"}, "--merge-type cannot be combined with --spec"},
		{[]string{"--merge-type", "upsert"}, "give --spec SPEC.json, or --merge-type and --predicate"},
		{[]string{"--merge-type", "custom", "--predicate", "t.id = s.id"}, "needs its clauses in a --spec file"},
		{[]string{"--merge-type", "upsert", "--predicate", "t.id = s.idd"}, "the merge predicate"},
	} {
		_, err := run(t, append([]string{"merge", table, "--source", src}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: got %v, want %q", tc.args, err, tc.want)
		}
	}
}

// merge --spec's operations form runs NOT MATCHED BY SOURCE delete before
// update (rivers' fixed order): a row both conditions take is deleted.
func TestCLIMergeBySourceDeleteBeforeUpdate(t *testing.T) {
	table := dmlCLITable(t)
	spec := writeFile(t, "spec.json", `{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {
		"when_not_matched_by_source_update": [{"predicate": "t.day = 'd2'", "updates": {"name": "'old'"}}],
		"when_not_matched_by_source_delete": [{"predicate": "t.id = 4"}]}}`)
	src := writeFile(t, "src.csv", "id,name,day\n1,x,d1\n")
	mustRun(t, "merge", table, "--source", src, "--spec", spec)
	rows := mustRun(t, "scan", table, "--format", "csv")
	if got := strings.Join(strings.Fields(rows), " "); !strings.Contains(got, "3,old,d2") || strings.Contains(got, "4,") {
		t.Errorf("row 4 (both conditions hold) should be deleted, row 3 updated:\n%s", rows)
	}
}

// Input errors name the flag the command has: merge's --source-format,
// write's --input-format.
func TestCLIInputFormatFlagNames(t *testing.T) {
	table := dmlCLITable(t)
	src := writeFile(t, "src.data", "id,name,day\n2,B,d1\n")
	merge := []string{"merge", table, "--source", src, "--merge-type", "upsert", "--predicate", "t.id = s.id"}
	for _, tc := range []struct {
		args      []string
		want, not string
	}{
		{merge, "pass --source-format", "--input-format"},
		{append(merge[:len(merge):len(merge)], "--source-format", "xls"), "unknown --source-format \"xls\"", "--input-format"},
		{[]string{"write", table, "--input", src}, "pass --input-format", "--source-format"},
		{[]string{"write", table, "--input", src, "--input-format", "xls"}, "unknown --input-format \"xls\"", "--source-format"},
	} {
		msg := mustFail(t, tc.args...)
		if !strings.Contains(msg, tc.want) || strings.Contains(msg, tc.not) {
			t.Errorf("%v: %q, want %q and no %s", tc.args, msg, tc.want, tc.not)
		}
	}
}

// A spec naming a key twice is refused naming the key and its path, and
// nothing runs.
func TestCLIMergeSpecDuplicateKey(t *testing.T) {
	table := dmlCLITable(t)
	src := writeFile(t, "src.csv", "id,name,day\n2,B,d1\n")
	for spec, want := range map[string]string{
		`{"merge_type": "upsert", "predicate": "t.id = s.id", "merge_type": "replace_delete_unmatched"}`:                                                                                   `"merge_type"`,
		`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": [{"updates": {"name": "s.name"}, "predicate": "s.id = 1", "predicate": "s.id = 2"}]}}`: `"operations.when_matched_update[0].predicate"`,
	} {
		msg := mustFail(t, "merge", table, "--source", src, "--spec", writeFile(t, "spec.json", spec))
		if !strings.Contains(msg, "duplicate key "+want) {
			t.Errorf("%s: %q lacks duplicate key %s", spec, msg, want)
		}
	}
	if v := tableVersion(t, table); v != 0 {
		t.Errorf("a refused merge committed: version %d", v)
	}
	if help := mustRun(t, "merge", "--help"); !strings.Contains(help, "A key given twice") {
		t.Errorf("merge --help does not say duplicate keys are refused")
	}
}
