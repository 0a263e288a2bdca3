package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIClusteringAndAlter: create --cluster-by makes a clustered table,
// optimize clusters it (a second run has nothing to do, --full redoes
// it), alter makes one commit per change and prints each; bad flags are
// refused naming them, committing nothing.
func TestCLIClusteringAndAlter(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	in := writeFile(t, "in.csv", "id,name,day\n1,a,d1\n2,b,d2\n")
	mustRun(t, "create", table, "--like", in, "--cluster-by", "day,id")
	for range 2 {
		mustRun(t, "write", table, "--input", in, "--mode", "append")
	}
	if out := mustRun(t, "optimize", table); !strings.Contains(out, "num_files_removed=2") {
		t.Fatalf("optimize: %s", out)
	}
	if out := mustRun(t, "optimize", table); !strings.Contains(out, "commits=0") {
		t.Fatalf("second optimize: %s", out)
	}
	if out := mustRun(t, "optimize", table, "--full"); !strings.Contains(out, "num_files_removed=1") {
		t.Fatalf("optimize --full: %s", out)
	}
	out := mustRun(t, "alter", table, "--add-column", "score DOUBLE", "--set-property", "owner=me", "--unset-property", "owner", "--cluster-by", "score", "--json")
	var res struct {
		Changes []struct{ Operation string }
		Version int64
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Changes) != 4 || res.Changes[0].Operation != "ADD COLUMNS" ||
		res.Changes[3].Operation != "CLUSTER BY" || res.Version != 8 {
		t.Fatalf("alter --json: %s (%v)", out, err)
	}
	if out := mustRun(t, "alter", table, "--cluster-by", "none"); out != "CLUSTER BY: version 9\n" {
		t.Fatalf("alter --cluster-by none: %q", out)
	}
	for args, want := range map[string]string{
		"--add-column|score":                                "give the name and the type as one argument",
		"--add-column|x nosuchtype":                         `unknown type "nosuchtype"`,
		"--unset-property|nope":                             `"nope" is not set`,
		"--set-property|novalue":                            "--set-property #1 is not KEY=VALUE",
		"--cluster-by|zz":                                   `cluster by "zz": no such column`,
		"--metadata|k=v":                                    "nothing to change",
		"--set-property|delta.feature.clustering=supported": "cannot be set",
	} {
		a := strings.Split(args, "|")
		if _, err := run(t, "alter", table, a[0], a[1]); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("alter %s: %v, want %q", args, err, want)
		}
	}
	if _, err := run(t, "create", filepath.Join(t.TempDir(), "p"), "--like", in, "--cluster-by", "id", "--partition-by", "day"); err == nil ||
		!strings.Contains(err.Error(), "clustering and partitioning cannot both be specified") {
		t.Errorf("create --cluster-by --partition-by: %v", err)
	}
	if out := mustRun(t, "history", table, "--limit", "1"); !strings.Contains(out, "CLUSTER BY") {
		t.Errorf("history after the alters: %s", out)
	}
}

// TestCLINestedClustering: create --cluster-by and alter --cluster-by take
// a nested field (s.a), which optimize clusters by.
func TestCLINestedClustering(t *testing.T) {
	sc := writeFile(t, "schema.json", `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},`+
		`{"name":"s","type":{"type":"struct","fields":[{"name":"a","type":"long","nullable":true,"metadata":{}},`+
		`{"name":"b","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", table, "--schema", sc, "--cluster-by", "s.a")
	in := writeFile(t, "rows.ndjson", `{"id": 1, "s": {"a": 5, "b": "x"}}`+"\n"+`{"id": 2, "s": {"a": 3, "b": "y"}}`+"\n")
	for range 2 {
		mustRun(t, "write", table, "--input", in, "--mode", "append")
	}
	if out := mustRun(t, "optimize", table); !strings.Contains(out, "num_files_removed=2") {
		t.Fatalf("optimize: %s", out)
	}
	if out := mustRun(t, "alter", table, "--cluster-by", "s.b,id"); out != "CLUSTER BY: version 4\n" {
		t.Fatalf("alter --cluster-by s.b,id: %q", out)
	}
	if msg := mustFail(t, "alter", table, "--cluster-by", "s.c"); !strings.Contains(msg, `struct s has no field "c"`) {
		t.Fatalf("alter --cluster-by s.c: %s", msg)
	}
	if out := mustRun(t, "history", table, "--limit", "1"); !strings.Contains(out, "s.b,id") {
		t.Errorf("history after the alter: %s", out)
	}
}

// TestCLIAlterConstraints: alter --add-constraint checks the rows, then
// holds every write; --drop-constraint lifts it.
func TestCLIAlterConstraints(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	in := writeFile(t, "in.csv", "id,name\n1,a\n2,b\n")
	bad := writeFile(t, "bad.csv", "id,name\n-1,c\n")
	mustRun(t, "write", table, "--input", in)
	if msg := mustFail(t, "alter", table, "--add-constraint", "small=id < 2"); !strings.Contains(msg, "1 rows in the table violate the new CHECK constraint small (id < 2)") {
		t.Fatalf("violated constraint: %s", msg)
	}
	if out := mustRun(t, "alter", table, "--add-constraint", "positive=id > 0"); out != "ADD CONSTRAINT: version 1\n" {
		t.Fatalf("alter --add-constraint: %q", out)
	}
	if msg := mustFail(t, "write", table, "--input", bad, "--mode", "append"); !strings.Contains(msg, "positive") {
		t.Fatalf("violating append: %s", msg)
	}
	if out := mustRun(t, "alter", table, "--drop-constraint", "positive"); out != "DROP CONSTRAINT: version 2\n" {
		t.Fatalf("alter --drop-constraint: %q", out)
	}
	mustRun(t, "write", table, "--input", bad, "--mode", "append")
}

// TestCLIAlterChangeType: alter --change-type widens a column once the
// table enables type widening (--set-property runs first), one CHANGE
// COLUMN commit; narrowing, unknown types and a table without the
// property are refused naming the column and the types.
func TestCLIAlterChangeType(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	in := writeFile(t, "in.csv", "id,score\n1,1.5\n2,2.5\n")
	mustRun(t, "write", table, "--input", in)
	if msg := mustFail(t, "alter", table, "--change-type", "id=decimal(20,0)"); !strings.Contains(msg, `column "id" cannot change from long to decimal(20,0): the table does not enable type widening; set delta.enableTypeWidening=true first`) {
		t.Fatalf("without type widening: %s", msg)
	}
	if msg := mustFail(t, "alter", table, "--change-type", "id=nosuchtype"); !strings.Contains(msg, `--change-type id=nosuchtype: unknown type "nosuchtype"`) {
		t.Fatalf("unknown type: %s", msg)
	}
	out := mustRun(t, "alter", table, "--set-property", "delta.enableTypeWidening=true", "--change-type", "id=DECIMAL(22, 2)")
	if out != "SET TBLPROPERTIES: version 1\nCHANGE COLUMN: version 2\n" {
		t.Fatalf("alter --change-type: %q", out)
	}
	if msg := mustFail(t, "alter", table, "--change-type", "id=int"); !strings.Contains(msg, `column "id" cannot change from decimal(22,2) to integer: only widening changes are allowed`) {
		t.Fatalf("narrowing: %s", msg)
	}
	if out := mustRun(t, "scan", table, "--format", "csv"); !strings.Contains(out, "1.00,1.5") || !strings.Contains(out, "2.00,2.5") {
		t.Fatalf("scan after the change: %s", out)
	}
	if out := mustRun(t, "history", table, "--limit", "1"); !strings.Contains(out, "CHANGE COLUMN") {
		t.Errorf("history: %s", out)
	}
}
