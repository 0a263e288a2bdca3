package deltalite_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/peers"
)

// rowsSpec is write-step data in the peers' canonical form.
func rowsSpec(n, from int) map[string]any {
	rows := make([]map[string]any, n)
	for i := range rows {
		id := from + i
		rows[i] = map[string]any{"id": id, "name": fmt.Sprintf("n%d", id), "part": fmt.Sprintf("p%d", id%3),
			"ts": fmt.Sprintf("2026-01-%02dT10:00:00Z", 1+id%28), "amount": fmt.Sprintf("%d.25", id)}
	}
	return map[string]any{
		"schema": []map[string]any{
			{"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "part", "type": "string"},
			{"name": "ts", "type": "timestamp"}, {"name": "amount", "type": "decimal(12,2)"},
		},
		"rows": rows,
	}
}

func step(op string, kv ...any) map[string]any {
	s := map[string]any{"op": op}
	for i := 0; i+1 < len(kv); i += 2 {
		s[kv[i].(string)] = kv[i+1]
	}
	return s
}

func withData(s map[string]any, data map[string]any) map[string]any {
	for k, v := range data {
		s[k] = v
	}
	return s
}

// TestWeReadWhatPeersWrite: tables made fresh by delta-rs (writes, deletes,
// updates, merges, optimize, checkpoints) and by Spark 4 (deletion vectors,
// column mapping by name and id with a rename, v2 checkpoints) read here
// with the rows the writer itself reads.
func TestWeReadWhatPeersWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs and Spark: not in -short mode")
	}
	peers.Python(t)
	dir := t.TempDir()

	// delta-rs
	dr := filepath.Join(dir, "delta-rs")
	peers.WriteTable(t, map[string]any{"engine": "deltalake", "path": dr, "steps": []any{
		withData(step("write", "mode", "overwrite", "partition_by", []string{"part"}), rowsSpec(30, 0)),
		withData(step("write", "mode", "append"), rowsSpec(10, 100)),
		step("delete", "predicate", "id % 7 = 0"),
		step("update", "set", map[string]string{"name": "'updated'"}, "predicate", "id > 100"),
		withData(step("merge", "on", []string{"id"}), rowsSpec(5, 28)),
		step("optimize"),
		step("checkpoint"),
		withData(step("write", "mode", "append"), rowsSpec(3, 200)),
	}})
	want := peers.ReadTable(t, peers.DeltaRS, dr, peers.ReadOptions{}).Lines(t)
	if d := diffRows(readRows(t, dr), want); d != "" {
		t.Errorf("delta-rs table: %s", d)
	}
	for _, v := range []int64{0, 2, 4} {
		want := peers.ReadTable(t, peers.DeltaRS, dr, peers.ReadOptions{Version: &v}).Lines(t)
		if d := diffRows(readRowsAt(t, dr, v), want); d != "" {
			t.Errorf("delta-rs table at version %d: %s", v, d)
		}
	}

	// Spark
	s := peers.Spark(t)
	dvs := filepath.Join(dir, "spark-dv")
	cmName := filepath.Join(dir, "spark-cm-name")
	cmID := filepath.Join(dir, "spark-cm-id")
	v2 := filepath.Join(dir, "spark-v2")
	s.Run(t,
		withData(step("write", "path", dvs, "mode", "overwrite", "partition_by", []string{"part"},
			"properties", map[string]string{"delta.enableDeletionVectors": "true"}), rowsSpec(40, 0)),
		step("delete", "path", dvs, "predicate", "id % 5 = 1"),
		step("update", "path", dvs, "set", map[string]string{"name": "'u'"}, "predicate", "id % 5 = 2"),

		withData(step("write", "path", cmName, "mode", "overwrite",
			"properties", map[string]string{"delta.columnMapping.mode": "name", "delta.minReaderVersion": "2", "delta.minWriterVersion": "5"}), rowsSpec(10, 0)),
		step("sql", "path", cmName, "sql", "ALTER TABLE {table} RENAME COLUMN name TO full_name", "collect", false),
		step("sql", "path", cmName, "sql", "ALTER TABLE {table} DROP COLUMN amount", "collect", false),
		step("sql", "path", cmName, "sql", "INSERT INTO {table} VALUES (99, 'late', 'p0', TIMESTAMP'2026-02-01 00:00:00')", "collect", false),

		withData(step("write", "path", cmID, "mode", "overwrite", "partition_by", []string{"part"},
			"properties", map[string]string{"delta.columnMapping.mode": "id", "delta.minReaderVersion": "2", "delta.minWriterVersion": "5"}), rowsSpec(10, 0)),
		step("sql", "path", cmID, "sql", "ALTER TABLE {table} RENAME COLUMN part TO bucket", "collect", false),

		withData(step("write", "path", v2, "mode", "overwrite",
			"properties", map[string]string{"delta.checkpointPolicy": "v2", "delta.enableDeletionVectors": "true"}), rowsSpec(20, 0)),
		withData(step("write", "path", v2, "mode", "append"), rowsSpec(5, 50)),
		step("checkpoint", "path", v2),
		step("delete", "path", v2, "predicate", "id < 3"),
	)
	tables := []string{dvs, cmName, cmID, v2}
	ops := make([]peers.Op, len(tables))
	for i, p := range tables {
		ops[i] = peers.ReadOp(p, peers.ReadOptions{})
	}
	for i, r := range s.Run(t, ops...) {
		if d := diffRows(readRows(t, tables[i]), r.Table(t).Lines(t)); d != "" {
			t.Errorf("Spark table %s: %s", filepath.Base(tables[i]), d)
		}
	}
}
