package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// create --schema takes Spark's column metadata for identity and generated
// columns; writes through the command number and compute them, and a
// write that gives an ALWAYS identity value is refused.
func TestCLICreateIdentityAndGenerated(t *testing.T) {
	sc := writeFile(t, "schema.json", `{"type":"struct","fields":[
{"name":"id","type":"long","nullable":false,"metadata":{"delta.identity.start":1,"delta.identity.step":1,"delta.identity.allowExplicitInsert":false}},
{"name":"ts","type":"timestamp","nullable":true,"metadata":{}},
{"name":"d","type":"date","nullable":true,"metadata":{"delta.generationExpression":"CAST(ts AS DATE)"}}]}`)
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", table, "--schema", sc, "--partition-by", "d")
	mustRun(t, "write", table, "--mode", "append", "--input", writeFile(t, "rows.csv", "ts\n2024-01-31T10:00:00Z\n2024-02-01T23:00:00Z\n"))
	rows := strings.Split(strings.TrimSpace(mustRun(t, "scan", table, "--format", "csv", "--columns", "id,d")), "\n")
	slices.Sort(rows)
	if strings.Join(rows, " ") != "1,2024-01-31 2,2024-02-01 id,d" {
		t.Fatalf("rows %v", rows)
	}
	out, err := run(t, "write", table, "--mode", "append", "--input", writeFile(t, "bad.csv", "id,ts\n7,2024-01-31T10:00:00Z\n"))
	if err == nil || !strings.Contains(out+err.Error(), "identity column id is GENERATED ALWAYS") {
		t.Fatalf("explicit identity value: %v\n%s", err, out)
	}
	bad := writeFile(t, "bad.json", `{"type":"struct","fields":[{"name":"s","type":"string","nullable":true,"metadata":{}},
{"name":"h","type":"string","nullable":true,"metadata":{"delta.generationExpression":"sin(s)"}}]}`)
	out, err = run(t, "create", filepath.Join(t.TempDir(), "u"), "--schema", bad)
	if err == nil || !strings.Contains(out+err.Error(), "generated column h (GENERATED ALWAYS AS (sin(s)))") {
		t.Fatalf("a generation expression this engine cannot evaluate: %v\n%s", err, out)
	}
}
