package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

var dmlSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "x", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// dmlTable writes each JSON batch as one append (one file per partition
// each) to a table partitioned by p, with the given properties.
func dmlTable(t *testing.T, props map[string]string, batches ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, b := range batches {
		mustWrite(t, dir, jsonrows.Reader(t, dmlSchema, b), deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"p"}, Properties: props})
		props = nil
	}
	return dir
}

var dmlRows = []string{
	`[{"id":1,"x":1,"s":"a","p":"a"},{"id":2,"x":null,"s":"b","p":"a"},{"id":3,"x":30,"s":null,"p":"b"}]`,
	`[{"id":4,"x":4,"s":"d","p":"a"},{"id":5,"x":50,"s":"e","p":"b"},{"id":6,"x":6,"s":"f","p":null}]`,
}

// lastCommit is the newest commit's info as JSON fields.
func lastCommit(t *testing.T, dir string) (op string, params, metrics map[string]any) {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	h, err := tb.History(context.Background(), 1)
	if err != nil {
		t.Fatal(err)
	}
	ci := h[0].Info
	metrics, _ = ci.Raw["operationMetrics"].(map[string]any)
	return ci.Operation, ci.OperationParameters, metrics
}

func openT(t *testing.T, dir string) *deltalite.Table {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func TestDeleteByPartitionReadsNoDataFile(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	// Data files unreadable from here on: a delete that opened one fails.
	for _, a := range tb.Snapshot().Files() {
		if err := os.Truncate(filepath.Join(dir, filepath.FromSlash(a.Path)), 0); err != nil {
			t.Fatal(err)
		}
	}
	st, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "p = 'a'"})
	if err != nil {
		t.Fatal(err)
	}
	if st.FilesScanned != 0 || st.RowsDeleted != 3 || st.FilesRemoved != 2 || st.FilesAdded != 0 || st.RowsCopied != 0 || st.Version != 2 {
		t.Errorf("stats %s", st)
	}
	op, params, metrics := lastCommit(t, dir)
	if op != "DELETE" || params["predicate"] != `["p = 'a'"]` {
		t.Errorf("commit %s %v", op, params)
	}
	if metrics["numDeletedRows"] != "3" || metrics["numRemovedFiles"] != "2" || metrics["numAddedChangeFiles"] != "0" {
		t.Errorf("metrics %v", metrics)
	}
}

func TestDeleteRewritesOnlyMatchingFiles(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	// x > 10 matches ids 3 and 5 (partition b); a null x is kept.
	st, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "x > 10 OR s = 'zz'"})
	if err != nil {
		t.Fatal(err)
	}
	// Partition b's two files each hold only matching rows, but the
	// statistics cannot prove it for the OR: both are read and dropped.
	if st.RowsDeleted != 2 || st.RowsCopied != 0 || st.FilesAdded != 0 || st.FilesRemoved != 2 {
		t.Errorf("stats %s", st)
	}
	want := []string{
		`id=1, p="a", s="a", x=1`, `id=2, p="a", s="b", x=null`, `id=4, p="a", s="d", x=4`, `id=6, p=null, s="f", x=6`,
	}
	arrowrows.Diff(t, readRows(t, dir), want)

	// A file with rows of both kinds is rewritten with the others.
	st, err = tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "s = 'a'"})
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsDeleted != 1 || st.RowsCopied != 1 || st.FilesAdded != 1 || st.FilesRemoved != 1 || st.BytesAdded == 0 || st.BytesRemoved == 0 {
		t.Errorf("stats %s", st)
	}
	arrowrows.Diff(t, readRows(t, dir), want[1:])

	// Nothing matches: nothing is committed.
	v := tb.Version()
	st, err = tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "x = 12345"})
	if err != nil || st.Version != v || tb.Version() != v || st.FilesRemoved != 0 {
		t.Errorf("empty delete: %v %s, version %d", err, st, tb.Version())
	}

	// All deletes every row; the table and its history stay.
	st, err = tb.Delete(context.Background(), deltalite.DeleteOptions{All: true})
	if err != nil || st.RowsDeleted != 3 {
		t.Fatalf("delete all: %v %s", err, st)
	}
	if rows := readRows(t, dir); len(rows) != 0 {
		t.Errorf("rows after delete all: %v", rows)
	}
	if _, params, _ := lastCommit(t, dir); params["predicate"] != "[]" {
		t.Errorf("params %v", params)
	}
	if h, _ := tb.History(context.Background(), 0); len(h) != int(tb.Version())+1 {
		t.Errorf("history %d commits at version %d", len(h), tb.Version())
	}
}

func TestDeleteRefusals(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	v := tb.Version()
	_, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "x >> 1"})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "column") {
		t.Errorf("bad predicate: %v", err)
	}
	_, err = tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "nope = 1"})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("unknown column: %v", err)
	}
	for prop, feature := range map[string]string{
		"delta.appendOnly": "appendOnly",
	} {
		d := dmlTable(t, map[string]string{prop: "true"}, dmlRows...)
		before := readRows(t, d)
		ft := openT(t, d)
		fv := ft.Version()
		_, err := ft.Delete(context.Background(), deltalite.DeleteOptions{Predicate: "id = 1"})
		if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), feature) {
			t.Errorf("%s: %v", prop, err)
		}
		if ft.Version() != fv {
			t.Errorf("%s: version moved", prop)
		}
		arrowrows.Diff(t, readRows(t, d), before)
	}
	if tb.Version() != v {
		t.Error("a refused delete committed")
	}
	// A delete keeps rows unchanged, so CHECK constraints (this engine
	// refuses to create one; another engine's commit adds it) still hold.
	d := dmlTable(t, nil, dmlRows...)
	addConstraint(t, d, "positive_x", "x > 0 OR x IS NULL")
	if _, err := openT(t, d).Delete(context.Background(), deltalite.DeleteOptions{Predicate: "id = 1"}); err != nil {
		t.Errorf("delete under a CHECK constraint: %v", err)
	}
}

func TestDeleteStatsForms(t *testing.T) {
	s := deltalite.DeleteStats{Version: 4, RowsDeleted: 7, FilesRemoved: 2, RowsCopied: 3, ScanDuration: 2e6}
	if str := s.String(); !strings.HasPrefix(str, "DeleteStats(version=4, num_deleted_rows=7, num_removed_files=2") {
		t.Errorf("String %s", str)
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"num_deleted_rows":7`) || !strings.Contains(string(b), `"scan_time_ms":2`) {
		t.Errorf("JSON %s %v", b, err)
	}
	var back deltalite.DeleteStats
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("round trip %+v %v", back, err)
	}
}

// addConstraint commits a CHECK constraint as Spark's ALTER TABLE ADD
// CONSTRAINT does: writer version 3 and a delta.constraints.* property.
func addConstraint(t *testing.T, dir, name, check string) {
	t.Helper()
	tb := openT(t, dir)
	md := *tb.Metadata()
	md.Configuration = maps.Clone(md.Configuration)
	if md.Configuration == nil {
		md.Configuration = map[string]string{}
	}
	md.Configuration["delta.constraints."+name] = check
	var lines []string
	for _, a := range []protocol.Action{
		{CommitInfo: &protocol.CommitInfo{Operation: "ADD CONSTRAINT"}},
		{Protocol: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 3}},
		{Metadata: &md},
	} {
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	path := filepath.Join(dir, "_delta_log", fmt.Sprintf("%020d.json", tb.Version()+1))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentDMLReplans: deletes and updates racing on the same files
// all land, each planning again on the table the others left when its
// commit conflicts, and the table holds exactly their combined effect.
func TestConcurrentDMLReplans(t *testing.T) {
	dir := dmlTable(t, nil, `[{"id":1,"x":1,"p":"a"},{"id":2,"x":2,"p":"a"},{"id":3,"x":3,"p":"a"},{"id":4,"x":4,"p":"a"},{"id":5,"x":5,"p":"a"}]`)
	errc := make(chan error, 4)
	for _, pred := range []string{"id = 1", "id = 2", "id = 3"} {
		go func() {
			_, err := openT(t, dir).Delete(context.Background(), deltalite.DeleteOptions{Predicate: pred})
			errc <- err
		}()
	}
	go func() {
		_, err := openT(t, dir).Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"s": "'u'"}, Predicate: "id >= 4"})
		errc <- err
	}()
	for range 4 {
		if err := <-errc; err != nil {
			t.Fatalf("a racing operation failed: %v", err)
		}
	}
	arrowrows.Diff(t, readRows(t, dir), []string{`id=4, p="a", s="u", x=4`, `id=5, p="a", s="u", x=5`})
	if v := openT(t, dir).Version(); v != 4 {
		t.Errorf("version %d, want 4 (one commit each)", v)
	}
}

// Deleting or updating every row takes All: an empty or blank predicate
// without it, and All with a predicate, are refused naming the option, and
// nothing changes.
func TestDeleteUpdateNeedPredicateOrAll(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	v, before := tb.Version(), readRows(t, dir)
	set := map[string]string{"x": "0"}
	for _, tc := range []struct {
		pred string
		all  bool
		want string
	}{
		{"", false, "no Options.Predicate"},
		{" \n\t", false, "no Options.Predicate"},
		{"id = 1", true, "not both"},
	} {
		_, derr := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: tc.pred, All: tc.all})
		_, uerr := tb.Update(context.Background(), deltalite.UpdateOptions{Set: set, Predicate: tc.pred, All: tc.all})
		for verb, err := range map[string]error{"DELETE": derr, "UPDATE": uerr} {
			if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), verb) ||
				!strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "All") {
				t.Errorf("%s %q all=%v: %v", verb, tc.pred, tc.all, err)
			}
		}
	}
	if tb.Version() != v {
		t.Fatal("a refused call committed")
	}
	arrowrows.Diff(t, readRows(t, dir), before)
	if st, err := tb.Update(context.Background(), deltalite.UpdateOptions{Set: set, All: true}); err != nil || st.RowsUpdated != int64(len(before)) {
		t.Fatalf("update all: %v %s", err, st)
	}
	if st, err := tb.Delete(context.Background(), deltalite.DeleteOptions{All: true}); err != nil || st.RowsDeleted != int64(len(before)) {
		t.Fatalf("delete all: %v %s", err, st)
	}
}
