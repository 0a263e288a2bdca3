package deltalite_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// dmlCorpusCase is a DELETE or UPDATE on a copy of a conformance table
// and the rows it must leave, given the table's expected rows.
type dmlCorpusCase struct {
	table string // under dat/
	apply func(*testing.T, *deltalite.Table)
	want  []string
}

var dmlCorpusCases = []dmlCorpusCase{
	// Four of the five rows are deleted by a deletion vector: the stats
	// (letter a..b, 1978..2017) cannot decide these predicates, so the file
	// is read with its DV applied. No live row matches the first; the
	// second rewrites the one live row, and the deleted rows stay gone.
	{"deletion_vectors", func(t *testing.T, tb *deltalite.Table) {
		mustDelete(t, tb, "date > DATE '2000-01-01'", 0)
		mustUpdate(t, tb, map[string]string{"int": "int + 1"}, "letter = 'b'", 1)
	}, []string{`date=1978-12-01, int=229, letter="b"`}},
	// Name mapping with a renamed column (int -> new_int): both files keep
	// some rows and are rewritten with physical names.
	{"column_mapping", func(t *testing.T, tb *deltalite.Table) {
		mustDelete(t, tb, "new_int > 500", 4)
		mustUpdate(t, tb, map[string]string{"letter": "upper(letter)"}, "new_int < 100", 4)
	}, []string{
		`date=1978-12-01, letter="b", new_int=228`, `date=1978-12-01, letter="b", new_int=228`,
		`date=1983-04-01, letter="A", new_int=95`, `date=1983-04-01, letter="A", new_int=95`,
		`date=2017-05-01, letter="A", new_int=25`, `date=2017-05-01, letter="A", new_int=25`,
	}},
}

func mustDelete(t *testing.T, tb *deltalite.Table, pred string, rows int64) {
	t.Helper()
	v := tb.Version()
	st, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: pred, All: pred == ""})
	if err != nil || st.RowsDeleted != rows {
		t.Fatalf("DELETE WHERE %s: %v %s, want %d rows deleted", pred, err, st, rows)
	}
	if moved := tb.Version() != v; moved != (rows > 0) {
		t.Fatalf("DELETE WHERE %s: version %d -> %d", pred, v, tb.Version())
	}
}

func mustUpdate(t *testing.T, tb *deltalite.Table, set map[string]string, pred string, rows int64) {
	t.Helper()
	st, err := tb.Update(context.Background(), deltalite.UpdateOptions{Set: set, Predicate: pred, All: pred == ""})
	if err != nil || st.RowsUpdated != rows {
		t.Fatalf("UPDATE %v WHERE %s: %v %s, want %d rows updated", set, pred, err, st, rows)
	}
}

// dmlCorpusTables applies the cases to copies of the conformance tables
// under dir and returns name -> path.
func dmlCorpusTables(t *testing.T, dir string) map[string]string {
	t.Helper()
	root := corpus.MustRoot(t)
	out := map[string]string{}
	for _, c := range dmlCorpusCases {
		dst := filepath.Join(dir, c.table)
		if err := os.CopyFS(dst, os.DirFS(filepath.Join(root, "dat", c.table, "delta"))); err != nil {
			t.Fatal(err)
		}
		c.apply(t, openT(t, dst))
		out["dml_"+c.table] = dst
	}
	return out
}

// TestDMLOnConformanceTables: DELETE and UPDATE on tables Spark wrote with
// deletion vectors and with column mapping leave the expected rows, which
// this engine reads back (delta-rs and Spark read them in
// TestPeersReadWhatWeWrite).
func TestDMLOnConformanceTables(t *testing.T) {
	root := corpus.Path(t, "dat")
	for _, c := range dmlCorpusCases {
		before, err := arrowrows.ParquetDir(filepath.Join(root, c.table, "expected", "latest", "table_content"))
		if err != nil {
			t.Fatal(err)
		}
		if got := readRows(t, filepath.Join(root, c.table, "delta")); len(got) != len(before) {
			t.Fatalf("%s: read %d rows, Spark's expected content has %d", c.table, len(got), len(before))
		}
	}
	tables := dmlCorpusTables(t, t.TempDir())
	for _, c := range dmlCorpusCases {
		arrowrows.Diff(t, readRows(t, tables["dml_"+c.table]), c.want)
	}
}

// dmlWrittenTables are the tables DELETE and UPDATE leave, for the peers
// to read: every column type through a rewrite (rows moved to another
// partition included), and the conformance cases.
func dmlWrittenTables(t *testing.T, dir string) map[string]string {
	t.Helper()
	p := filepath.Join(dir, "dml_alltypes")
	for range 2 {
		mustWrite(t, p, fromJSON(t, allTypes, allTypesRows), deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"ok"}})
	}
	tb := openT(t, p)
	mustDelete(t, tb, "l < 0", 2)
	mustUpdate(t, tb, map[string]string{"str": "upper(str)", "dec": "dec * 2", "ok": "NOT ok", "day": "DATE '2026-02-02'"}, "l = 1", 2)
	out := dmlCorpusTables(t, filepath.Join(dir, "corpus"))
	out["dml_alltypes"] = p
	return out
}

// copyCorpus copies a dat/ table of the conformance corpus.
func copyCorpus(t *testing.T, table string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), table)
	if err := os.CopyFS(dst, os.DirFS(filepath.Join(corpus.Path(t, "dat"), table, "delta"))); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestDMLOnSparkCheckConstraint: on Spark's table with CHECK int > 0 (and
// deletion vectors), a delete works, an update that breaks the constraint
// is refused naming it, one that holds it commits.
func TestDMLOnSparkCheckConstraint(t *testing.T) {
	dst := copyCorpus(t, "check_constraints")
	tb := openT(t, dst)
	mustDelete(t, tb, "letter = 'b'", 1)
	v, before := tb.Version(), readRows(t, dst)
	_, err := tb.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"int": "int - 100"}, All: true})
	if err == nil || !strings.Contains(err.Error(), "CHECK constraint const1 (int > 0) violated by row with values: int => ") {
		t.Errorf("violating update: %v", err)
	}
	if tb.Version() != v {
		t.Error("a violating update committed")
	}
	arrowrows.Diff(t, readRows(t, dst), before)
	mustUpdate(t, tb, map[string]string{"int": "int - 20"}, "", 4)
}

// TestDMLOnSparkGeneratedColumns: on Spark's table with a generated
// column (creation = CAST(now() AS DATE), which reads no column), DELETE and
// UPDATE work and leave the generated values as Spark wrote them: no column
// it reads changed.
func TestDMLOnSparkGeneratedColumns(t *testing.T) {
	dst := copyCorpus(t, "generated_columns")
	tb := openT(t, dst)
	mustDelete(t, tb, "letter = 'b'", 1)
	mustUpdate(t, tb, map[string]string{"int": "int + 1"}, "", 4)
	for _, r := range readRows(t, dst) {
		if !strings.HasPrefix(r, "creation=2024-04-02, ") {
			t.Errorf("row %s: the generated column changed", r)
		}
	}
}

// TestDMLOnSparkChangeFeedTable: on Spark's table with the change data
// feed, an UPDATE of every row commits change data files beside its data
// files and keeps the rows; a DELETE of every row removes whole files and
// writes none (readers take the removes).
func TestDMLOnSparkChangeFeedTable(t *testing.T) {
	dst := copyCorpus(t, "cdf")
	tb := openT(t, dst)
	before := readRows(t, dst)
	col := tb.DeltaSchema().Fields[0].Name
	us, err := tb.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{col: col}, All: true})
	if err != nil {
		t.Fatal(err)
	}
	if us.ChangeFilesAdded == 0 || us.RowsUpdated != int64(len(before)) {
		t.Errorf("update: %d change files for %d rows updated, want some for %d", us.ChangeFilesAdded, us.RowsUpdated, len(before))
	}
	arrowrows.Diff(t, readRows(t, dst), before)
	ds, err := tb.Delete(context.Background(), deltalite.DeleteOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	if ds.ChangeFilesAdded != 0 || ds.RowsDeleted != int64(len(before)) {
		t.Errorf("delete: %d change files, %d rows deleted, want none and %d", ds.ChangeFilesAdded, ds.RowsDeleted, len(before))
	}
}
