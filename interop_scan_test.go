package deltalite_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// scoreRows are rows of a table partitioned by day, with a null day every
// 7th row and a null score every 11th, so both null partitions and null
// data values meet the predicates.
func scoreRows(from, n int) map[string]any {
	rows := make([]map[string]any, n)
	for i := range rows {
		id := from + i
		r := map[string]any{"id": id, "name": fmt.Sprintf("n%d", id), "score": id % 13,
			"day": fmt.Sprintf("2025-12-%02d", 29+id%3), "amount": fmt.Sprintf("%d.50", id),
			"ts": fmt.Sprintf("2026-01-%02dT08:00:00Z", 1+id%28)}
		if id%3 == 2 {
			r["day"] = fmt.Sprintf("2026-01-%02d", 1+id%5)
		}
		if id%7 == 0 {
			r["day"] = nil
		}
		if id%11 == 0 {
			r["score"] = nil
		}
		rows[i] = r
	}
	return map[string]any{
		"schema": []map[string]any{
			{"name": "id", "type": "long"}, {"name": "name", "type": "string"}, {"name": "score", "type": "long"},
			{"name": "day", "type": "date"}, {"name": "amount", "type": "decimal(10,2)"}, {"name": "ts", "type": "timestamp"},
		},
		"rows": rows,
	}
}

// TestScanWhereAgreesWithSpark runs `deltalite scan --where` on a table
// Spark wrote and compares the rows with Spark's own filter, for
// predicates on partition and data columns, nulls in both, and columns
// that are not selected.
func TestScanWhereAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	dir := t.TempDir()
	table := filepath.Join(dir, "scores")
	s.Run(t,
		withData(step("write", "path", table, "mode", "overwrite", "partition_by", []string{"day"}), scoreRows(0, 60)),
		withData(step("write", "path", table, "mode", "append"), scoreRows(100, 60)),
		withData(step("write", "path", table, "mode", "append"), scoreRows(200, 60)),
	)
	preds := []string{
		"day >= '2026-01-01' AND score > 8",
		"day IS NULL",
		"day IS NULL OR score < 3",
		"score IS NULL AND day = '2025-12-30'",
		"score BETWEEN 5 AND 10 AND name LIKE 'n1%'",
		"ts >= '2026-01-10' AND day <> DATE'2025-12-29'",
		"NOT (score > 5) OR amount > 250",
		"id IN (1, 5, 142, 999) OR coalesce(score, -1) = -1",
		"id > 150 AND id < 210",
		"upper(name) = 'N7' OR day > '2026-01-04'",
		"score = 99",
	}
	cols := []string{"id", "name", "amount"}
	ops := make([]peers.Op, len(preds))
	for i, p := range preds {
		ops[i] = peers.Op{"op": "read", "path": table, "where": p, "columns": cols}
	}
	results := s.Run(t, ops...)

	bin := filepath.Join(dir, "deltalite")
	if out, err := exec.Command("go", "build", "-o", bin, "./cmd/deltalite").CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	for i, p := range preds {
		out := filepath.Join(dir, fmt.Sprintf("out%d.parquet", i))
		if b, err := exec.Command(bin, "scan", table, "--where", p, "--columns", "id,name,amount", "--output", out).CombinedOutput(); err != nil {
			t.Fatalf("scan --where %q: %v\n%s", p, err, b)
		}
		got, err := arrowrows.ParquetFile(out)
		if err != nil {
			t.Fatal(err)
		}
		want := sortedCopy(results[i].Table(t).Lines(t))
		if len(want) == 0 && p != "score = 99" {
			t.Errorf("--where %q: Spark selects no row; the table does not exercise it", p)
		}
		if d := diffRows(got, want); d != "" {
			t.Errorf("--where %q: %s", p, d)
		}
	}

	// The pruning is real: a predicate on a partition and one on the ids
	// of the last write leave files unread.
	tb, err := deltalite.Open(context.Background(), table)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"day IS NULL", "id > 210"} {
		e, err := tb.Scan(scan.WithWhere(p)).Explain(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Skipped) == 0 || len(e.Files) == 0 {
			t.Errorf("%s: %d files read, %d skipped; want some of each", p, len(e.Files), len(e.Skipped))
		}
	}
}
