package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

func TestUpdateRewritesOnlyFilesWithMatches(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	before := map[string]bool{}
	for _, a := range tb.Snapshot().Files() {
		before[a.Path] = true
	}
	// x = 4 is in one file; the statistics rule out partition b's files but
	// not the other file of partition a (x from 1 to null...), which is
	// read and left alone: only the file holding the row is rewritten.
	st, err := tb.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"s": "upper(s)", "x": "x * 10"}, Predicate: "x = 4"})
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsUpdated != 1 || st.FilesRemoved != 1 || st.FilesAdded != 1 || st.Version != 2 {
		t.Errorf("stats %s", st)
	}
	after := 0
	for _, a := range tb.Snapshot().Files() {
		if before[a.Path] {
			after++
		}
	}
	if after != len(before)-1 {
		t.Errorf("%d of %d files kept, want all but one", after, len(before))
	}
	want := []string{
		`id=1, p="a", s="a", x=1`, `id=2, p="a", s="b", x=null`, `id=3, p="b", s=null, x=30`,
		`id=4, p="a", s="D", x=40`, `id=5, p="b", s="e", x=50`, `id=6, p=null, s="f", x=6`,
	}
	arrowrows.Diff(t, readRows(t, dir), want)
	op, params, metrics := lastCommit(t, dir)
	if op != "UPDATE" || params["predicate"] != `["x = 4"]` || metrics["numUpdatedRows"] != "1" || metrics["numAddedChangeFiles"] != "0" {
		t.Errorf("commit %s %v %v", op, params, metrics)
	}
}

func TestUpdateMovesPartitionsAndKeepsNullPredicateRows(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	// Rows whose x is NULL do not match x < 10 and keep their values; the
	// value 10 / (x - 1) would fail on x = 1 if it were evaluated there.
	st, err := tb.Update(context.Background(), deltalite.UpdateOptions{
		Set:       map[string]string{"p": "'moved'", "x": "CAST(100 / (x - 1) AS BIGINT)"},
		Predicate: "x < 10 AND x <> 1",
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.RowsUpdated != 2 {
		t.Errorf("stats %s", st)
	}
	want := []string{
		`id=1, p="a", s="a", x=1`, `id=2, p="a", s="b", x=null`, `id=3, p="b", s=null, x=30`,
		`id=4, p="moved", s="d", x=33`, `id=5, p="b", s="e", x=50`, `id=6, p="moved", s="f", x=20`,
	}
	arrowrows.Diff(t, readRows(t, dir), want)
	moved := 0
	for _, a := range tb.Snapshot().Files() {
		if a.PartitionValues["p"] == "moved" {
			moved++
		}
	}
	if moved == 0 {
		t.Error("no file in partition moved")
	}
	// All: every row; NULL assigns NULL.
	if st, err = tb.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"s": "NULL"}, All: true}); err != nil || st.RowsUpdated != 6 {
		t.Fatalf("update all: %v %s", err, st)
	}
	for _, r := range readRows(t, dir) {
		if !strings.Contains(r, "s=null") {
			t.Errorf("row %s", r)
		}
	}
	// No match: nothing committed.
	v := tb.Version()
	if st, err = tb.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "0"}, Predicate: "id = 99"}); err != nil || tb.Version() != v || st.Version != v {
		t.Errorf("no match: %v %s", err, st)
	}
}

func TestUpdateRefusals(t *testing.T) {
	dir := dmlTable(t, nil, dmlRows...)
	tb := openT(t, dir)
	before := readRows(t, dir)
	v := tb.Version()
	for _, c := range []struct {
		opts deltalite.UpdateOptions
		kind error
		want string
	}{
		{deltalite.UpdateOptions{}, deltalite.ErrInvalidArgument, "at least one assignment"},
		{deltalite.UpdateOptions{Set: map[string]string{"nope": "1"}}, deltalite.ErrInvalidArgument, `no column "nope"`},
		{deltalite.UpdateOptions{Set: map[string]string{"x": "1", "X": "2"}}, deltalite.ErrInvalidArgument, "twice"},
		{deltalite.UpdateOptions{Set: map[string]string{"x": "1 +"}}, deltalite.ErrInvalidArgument, "SET x = 1 +"},
		{deltalite.UpdateOptions{Set: map[string]string{"x": "1"}, Predicate: "x >"}, deltalite.ErrInvalidArgument, "UPDATE predicate"},
		// Values are stored as Spark's ANSI store assignment stores them: a
		// string is not a number, and a double that overflows is an error.
		{deltalite.UpdateOptions{Set: map[string]string{"x": "'abc'"}, Predicate: "id = 1"}, deltalite.ErrInvalidArgument, "cannot store a STRING value in column x"},
		{deltalite.UpdateOptions{Set: map[string]string{"x": "1e30D"}, Predicate: "id = 1"}, deltalite.ErrInvalidArgument, "SET x = 1e30D"},
	} {
		_, err := tb.Update(context.Background(), c.opts)
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: got %v, want %v with %q", c.opts.Set, err, c.kind, c.want)
		}
	}
	if tb.Version() != v {
		t.Error("a refused update committed")
	}
	arrowrows.Diff(t, readRows(t, dir), before)

	for prop, feature := range map[string]string{"delta.appendOnly": "appendOnly"} {
		d := dmlTable(t, map[string]string{prop: "true"}, dmlRows...)
		_, err := openT(t, d).Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "0"}, All: true})
		if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), feature) {
			t.Errorf("%s: %v", prop, err)
		}
	}
	// CHECK constraints are held on the updated rows; NULL fails, as in
	// Spark's DeltaInvariantChecker.
	d := dmlTable(t, nil, dmlRows...)
	addConstraint(t, d, "positive_x", "x > 0")
	ct := openT(t, d)
	cv, before := ct.Version(), readRows(t, d)
	_, err := ct.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "x - 5"}, Predicate: "p = 'a'"})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "CHECK constraint positive_x (x > 0) violated by row with values: x => -") {
		t.Errorf("violating update: %v", err)
	}
	if ct.Version() != cv {
		t.Error("a violating update committed")
	}
	arrowrows.Diff(t, readRows(t, d), before)
	_, err = ct.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "x + 5"}, Predicate: "p = 'a'"})
	if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), "violated by row with values: x => NULL") {
		t.Errorf("update leaving a NULL: %v", err)
	}
	if st, err := ct.Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "x + 5"}, Predicate: "p = 'a' AND x IS NOT NULL"}); err != nil || st.RowsUpdated != 2 {
		t.Errorf("update that holds the constraint: %v %s", err, st)
	}
	// A constraint beyond the expression subset cannot be checked: refused
	// by name.
	d = dmlTable(t, nil, dmlRows...)
	addConstraint(t, d, "custom", "my_udf(x) > 0")
	_, err = openT(t, d).Update(context.Background(), deltalite.UpdateOptions{Set: map[string]string{"x": "0"}, All: true})
	if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), "CHECK constraint custom (my_udf(x) > 0) is beyond the expressions this engine evaluates") {
		t.Errorf("unevaluable CHECK constraint: %v", err)
	}
}

func TestUpdateStatsForms(t *testing.T) {
	s := deltalite.UpdateStats{Version: 4, RowsUpdated: 7, FilesRemoved: 2, RowsCopied: 3, RewriteDuration: 3e6}
	if str := s.String(); !strings.HasPrefix(str, "UpdateStats(version=4, num_updated_rows=7, num_copied_rows=3") {
		t.Errorf("String %s", str)
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"num_updated_rows":7`) || !strings.Contains(string(b), `"rewrite_time_ms":3`) {
		t.Errorf("JSON %s %v", b, err)
	}
	var back deltalite.UpdateStats
	if err := json.Unmarshal(b, &back); err != nil || back != s {
		t.Errorf("round trip %+v %v", back, err)
	}
}
