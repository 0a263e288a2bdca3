package merge

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

var (
	tSchema = cols("id long", "v string", "n integer")
	tRows   = `[{"id":1,"v":"a","n":10},{"id":2,"v":"b","n":20},{"id":3,"v":"c","n":30},{"id":4,"v":"d","n":40},{"id":null,"v":"x","n":50}]`
	sSchema = cols("id long", "v string", "n integer")
	sRows   = `[{"id":2,"v":"B","n":21},{"id":3,"v":"C","n":31},{"id":6,"v":"F","n":60},{"id":null,"v":"N","n":70}]`
)

func TestPresets(t *testing.T) {
	for _, tc := range []struct {
		typ  string
		want []string
		cnt  Counts
	}{
		{TypeUpsert, sorted("1|a|10", "2|B|21", "3|C|31", "4|d|40", "NULL|x|50", "6|F|60", "NULL|N|70"),
			Counts{SourceRows: 4, TargetRowsInserted: 2, TargetRowsUpdated: 2, TargetRowsMatchedUpdated: 2}},
		{TypeDeduplicateInsert, sorted("1|a|10", "2|b|20", "3|c|30", "4|d|40", "NULL|x|50", "6|F|60", "NULL|N|70"),
			Counts{SourceRows: 4, TargetRowsInserted: 2}},
		{TypeUpdateOnly, sorted("1|a|10", "2|B|21", "3|C|31", "4|d|40", "NULL|x|50"),
			Counts{SourceRows: 4, TargetRowsUpdated: 2, TargetRowsMatchedUpdated: 2}},
		{TypeReplaceDeleteUnmatched, sorted("2|B|21", "3|C|31"),
			Counts{SourceRows: 4, TargetRowsUpdated: 2, TargetRowsMatchedUpdated: 2, TargetRowsDeleted: 3, TargetRowsNotMatchedBySourceDeleted: 3}},
	} {
		for _, per := range []int{1, 2, 100} {
			got, cnt, _, err := merged(t, Options{Predicate: "t.id = s.id", MergeType: tc.typ}, tSchema, sSchema, tRows, sRows, per)
			if err != nil {
				t.Fatalf("%s: %v", tc.typ, err)
			}
			if !reflect.DeepEqual(got, tc.want) || cnt != tc.cnt {
				t.Errorf("%s (batches of %d):\n got %v %+v\nwant %v %+v", tc.typ, per, got, cnt, tc.want, tc.cnt)
			}
		}
	}
}

// Every clause kind with and without conditions: the first clause of a
// kind whose condition holds takes the row.
func TestCustomClauses(t *testing.T) {
	target := `[{"id":1,"v":"a","n":10},{"id":2,"v":"b","n":20},{"id":3,"v":"c","n":30},{"id":4,"v":"d","n":40},{"id":5,"v":"e","n":50},{"id":null,"v":"x","n":35}]`
	src := cols("id long", "v string", "n integer", "op string")
	source := `[{"id":1,"v":"A","n":11,"op":"d"},{"id":2,"v":"B","n":21,"op":"u"},{"id":3,"v":"C","n":5,"op":"u"},
		{"id":6,"v":"F","n":60,"op":"i"},{"id":7,"v":"G","n":70,"op":"x"},{"id":null,"v":"N","n":80,"op":"i"}]`
	opt := Options{Predicate: "t.id = s.id", Clauses: []Clause{
		{When: Matched, Action: Delete, Predicate: "s.op = 'd'"},
		{When: Matched, Action: Update, Predicate: "s.n > t.n", Set: map[string]string{"v": "s.v", "n": "s.n"}},
		{When: Matched, Action: Update, Set: map[string]string{"v": "t.v || '!'"}},
		{When: NotMatched, Action: Insert, Predicate: "s.op = 'i'", Set: map[string]string{"id": "s.id", "v": "s.v", "n": "s.n"}},
		{When: NotMatched, Action: InsertAll, Except: []string{"op"}},
		{When: NotMatchedBySource, Action: Delete, Predicate: "t.n >= 40"},
		{When: NotMatchedBySource, Action: Update, Set: map[string]string{"n": "t.n + 1"}},
	}}
	want := sorted("2|B|21", "3|c!|30", "NULL|x|36", "6|F|60", "7|G|70", "NULL|N|80")
	wantCnt := Counts{SourceRows: 6, TargetRowsInserted: 3, TargetRowsUpdated: 3, TargetRowsDeleted: 3,
		TargetRowsMatchedUpdated: 2, TargetRowsMatchedDeleted: 1, TargetRowsNotMatchedBySourceUpdated: 1, TargetRowsNotMatchedBySourceDeleted: 2}
	for _, per := range []int{1, 4, 100} {
		got, cnt, _, err := merged(t, opt, tSchema, src, target, source, per)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) || cnt != wantCnt {
			t.Errorf("batches of %d:\n got %v %+v\nwant %v %+v", per, got, cnt, want, wantCnt)
		}
	}
}

// A NULL clause condition is not true: the row falls through to the next
// clause, or stays as it is.
func TestNullConditionIsNotTrue(t *testing.T) {
	source := `[{"id":2,"v":null,"n":21},{"id":9,"v":null,"n":90}]`
	opt := Options{Predicate: "t.id = s.id", Clauses: []Clause{
		{When: Matched, Action: Delete, Predicate: "s.v = 'B'"},
		{When: NotMatched, Action: InsertAll, Predicate: "s.v <> 'z'"},
		{When: NotMatchedBySource, Action: Delete, Predicate: "t.id > 3"}, // NULL for the null id
	}}
	got, cnt, _, err := merged(t, opt, tSchema, sSchema, tRows, source, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|10", "2|b|20", "3|c|30", "NULL|x|50")
	if !reflect.DeepEqual(got, want) || cnt.TargetRowsDeleted != 1 || cnt.TargetRowsInserted != 0 {
		t.Fatalf("got %v %+v, want %v with one delete", got, cnt, want)
	}
}

// Several source rows matching one target row are an error, as Spark
// (Delta 4) has it whatever the clause conditions say, except in a merge
// that only inserts or whose only MATCHED clause is an unconditional
// DELETE.
func TestMultipleMatches(t *testing.T) {
	dups := `[{"id":2,"v":"B","n":21},{"id":2,"v":"BB","n":22},{"id":9,"v":"I","n":90},{"id":9,"v":"J","n":91}]`
	const refused = "2 source rows match the target row with t.id = 2"
	for _, tc := range []struct {
		name    string
		opt     Options
		want    []string
		wantErr string
	}{
		{"update acts", Options{Predicate: "t.id = s.id", MergeType: TypeUpsert}, nil, refused},
		{"only inserts", Options{Predicate: "t.id = s.id", MergeType: TypeDeduplicateInsert},
			sorted("1|a|10", "2|b|20", "3|c|30", "4|d|40", "NULL|x|50", "9|I|90", "9|J|91"), ""},
		{"condition false for both", Options{Predicate: "t.id = s.id", Clauses: []Clause{
			{When: Matched, Action: Update, Predicate: "s.n > 100", Set: map[string]string{"v": "s.v"}}}}, nil, refused},
		{"condition true for one", Options{Predicate: "t.id = s.id", Clauses: []Clause{
			{When: Matched, Action: Update, Predicate: "s.n = 22", Set: map[string]string{"v": "s.v"}}}}, nil, refused},
		{"by source only", Options{Predicate: "t.id = s.id", Clauses: []Clause{
			{When: NotMatchedBySource, Action: Update, Set: map[string]string{"v": "'old'"}}}}, nil, refused},
		{"unconditional delete", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Delete}}},
			sorted("1|a|10", "3|c|30", "4|d|40", "NULL|x|50"), ""},
		{"unconditional delete, insert and by source", Options{Predicate: "t.id = s.id", Clauses: []Clause{
			{When: Matched, Action: Delete}, {When: NotMatched, Action: InsertAll},
			{When: NotMatchedBySource, Action: Update, Set: map[string]string{"v": "'old'"}}}},
			sorted("1|old|10", "3|old|30", "4|old|40", "NULL|old|50", "9|I|90", "9|J|91"), ""},
		{"conditional delete", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Delete, Predicate: "s.n > 0"}}},
			nil, refused},
	} {
		got, _, _, err := merged(t, tc.opt, tSchema, sSchema, tRows, dups, 100)
		switch {
		case tc.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.Is(err, errs.ErrInvalidArgument) {
				t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.wantErr)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case !reflect.DeepEqual(got, tc.want):
			t.Errorf("%s:\n got %v\nwant %v", tc.name, got, tc.want)
		}
	}
}

// A predicate without an equi-join conjunct is a nested loop.
func TestNonEquiPredicate(t *testing.T) {
	src := cols("lo integer", "hi integer", "tag string")
	source := `[{"lo":15,"hi":25,"tag":"x"},{"lo":100,"hi":200,"tag":"y"},{"lo":null,"hi":5,"tag":"z"}]`
	opt := Options{Predicate: "t.n BETWEEN s.lo AND s.hi", Clauses: []Clause{
		{When: Matched, Action: Update, Set: map[string]string{"v": "s.tag"}},
		{When: NotMatched, Action: Insert, Set: map[string]string{"id": "0", "v": "s.tag", "n": "s.lo"}},
	}}
	got, cnt, j, err := merged(t, opt, tSchema, src, tRows, source, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|10", "2|x|20", "3|c|30", "4|d|40", "NULL|x|50", "0|y|100", "0|z|NULL")
	if !reflect.DeepEqual(got, want) || cnt.TargetRowsUpdated != 1 || cnt.TargetRowsInserted != 2 {
		t.Fatalf("got %v %+v, want %v", got, cnt, want)
	}
	if !j.nestedLoop() {
		t.Fatal("a join without equi-join keys does not say it is a nested loop")
	}
}

// Target-only and source-only conjuncts of the ON predicate decide which
// rows can match: the others are unmatched, for NOT MATCHED [BY SOURCE].
func TestOneSidedConjuncts(t *testing.T) {
	opt := Options{Predicate: "t.id = s.id AND t.n > 15 AND s.v != 'C'", MergeType: TypeUpsert}
	got, _, j, err := merged(t, opt, tSchema, sSchema, tRows, sRows, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|10", "2|B|21", "3|c|30", "3|C|31", "4|d|40", "NULL|x|50", "6|F|60", "NULL|N|70")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if j.nestedLoop() {
		t.Fatal("an equi-join ran as a nested loop")
	}
}

// Keys of different integer widths hash alike, values are cast to the
// column types, and a residual conjunct is checked on each pair.
func TestCastsAndResidual(t *testing.T) {
	src := cols("id integer", "v string", "n long")
	source := `[{"id":2,"v":"B","n":21},{"id":3,"v":"C","n":29},{"id":6,"v":"F","n":60}]`
	opt := Options{Predicate: "t.id = s.id AND t.n < s.n", MergeType: TypeUpsert}
	got, _, _, err := merged(t, opt, tSchema, src, tRows, source, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|10", "2|B|21", "3|c|30", "3|C|29", "4|d|40", "NULL|x|50", "6|F|60")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// A value that does not fit the column is an error when written.
	big := `[{"id":2,"v":"B","n":9999999999}]`
	if _, _, _, err := merged(t, Options{Predicate: "t.id = s.id", MergeType: TypeUpsert}, tSchema, src, tRows, big, 100); err == nil || !strings.Contains(err.Error(), "value of \"n\"") {
		t.Fatalf("an out-of-range long into an int column: %v", err)
	}
	// Allowed type mismatches make it NULL, as delta-rs's safe cast does.
	got, _, _, err = merged(t, Options{Predicate: "t.id = s.id", MergeType: TypeUpdateOnly, AllowTypeMismatch: true}, tSchema, src, tRows, big, 100)
	if want := sorted("1|a|10", "2|B|NULL", "3|c|30", "4|d|40", "NULL|x|50"); err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("with AllowTypeMismatch: %v %v, want %v", got, err, want)
	}
}

// With schema evolution the source's extra column is added: updated and
// inserted rows carry it, other rows read null.
func TestSchemaEvolution(t *testing.T) {
	src := cols("id long", "v string", "n integer", "w string")
	source := `[{"id":2,"v":"B","n":21,"w":"w2"},{"id":7,"v":"G","n":70,"w":"w7"}]`
	opt := Options{Predicate: "t.id = s.id", MergeType: TypeUpsert, SchemaMode: SchemaModeMerge}
	got, _, _, err := merged(t, opt, tSchema, src, tRows, source, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := sorted("1|a|10|NULL", "2|B|21|w2", "3|c|30|NULL", "4|d|40|NULL", "NULL|x|50|NULL", "7|G|70|w7")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	// A source that lacks a table column: UPDATE keeps it, INSERT writes null.
	narrow := cols("id long", "v string")
	got, _, _, err = merged(t, opt, tSchema, narrow, tRows, `[{"id":2,"v":"B"},{"id":7,"v":"G"}]`, 100)
	if err != nil {
		t.Fatal(err)
	}
	want = sorted("1|a|10", "2|B|20", "3|c|30", "4|d|40", "NULL|x|50", "7|G|NULL")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("narrow source: got %v\nwant %v", got, want)
	}
}

// A nested loop checks its pairs in chunks: more pairs than one chunk.
func TestNestedLoopChunks(t *testing.T) {
	var tr, sr []string
	var want []string
	for i := range 300 {
		tr = append(tr, fmt.Sprintf(`{"id":%d,"v":"t","n":%d}`, i, i))
		sr = append(sr, fmt.Sprintf(`{"id":%d,"v":"s%d","n":%d}`, i, i, i))
		want = append(want, fmt.Sprintf("%d|s%d|%d", i, i, i))
	}
	if 300*300 <= pairChunk {
		t.Fatal("the test needs more pairs than a chunk")
	}
	opt := Options{Predicate: "t.n <= s.n AND t.n >= s.n", MergeType: TypeUpdateOnly}
	got, cnt, j, err := merged(t, opt, tSchema, sSchema, "["+strings.Join(tr, ",")+"]", "["+strings.Join(sr, ",")+"]", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if !j.nestedLoop() || cnt.TargetRowsUpdated != 300 || !reflect.DeepEqual(got, sorted(want...)) {
		t.Fatalf("nested %t, %+v, rows %v", j.nestedLoop(), cnt, got[:3])
	}
}
