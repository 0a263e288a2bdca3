package merge

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

func TestPresetsExpand(t *testing.T) {
	for typ, want := range map[string]string{
		TypeUpsert:                 "WHEN MATCHED THEN UPDATE SET * | WHEN NOT MATCHED THEN INSERT *",
		TypeDeduplicateInsert:      "WHEN NOT MATCHED THEN INSERT *",
		TypeUpdateOnly:             "WHEN MATCHED THEN UPDATE SET *",
		TypeReplaceDeleteUnmatched: "WHEN MATCHED THEN UPDATE SET * | WHEN NOT MATCHED BY SOURCE THEN DELETE",
	} {
		cs, err := Options{Predicate: "t.id = s.id", MergeType: " " + strings.ToUpper(typ)}.Plan()
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if got := render(cs); got != want {
			t.Errorf("%s expands to %q, want %q", typ, got, want)
		}
	}
}

func TestPlanRefuses(t *testing.T) {
	upd := Clause{When: Matched, Action: Update, Set: map[string]string{"v": "s.v"}}
	for _, tc := range []struct {
		name string
		opt  Options
		want string
	}{
		{"no predicate", Options{MergeType: TypeUpsert}, "needs an ON predicate"},
		{"bad predicate", Options{Predicate: "t.id = = s.id", MergeType: TypeUpsert}, "the merge predicate"},
		{"same aliases", Options{Predicate: "a.id = a.id", SourceAlias: "a", TargetAlias: "A", MergeType: TypeUpsert}, "both \"a\""},
		{"no type", Options{Predicate: "t.id = s.id"}, "unknown merge type \"\""},
		{"unknown type", Options{Predicate: "t.id = s.id", MergeType: "upsertt"}, "unknown merge type \"upsertt\""},
		{"preset with clauses", Options{Predicate: "t.id = s.id", MergeType: TypeUpsert, Clauses: []Clause{upd}}, "takes no clauses"},
		{"custom without clauses", Options{Predicate: "t.id = s.id", MergeType: TypeCustom}, "needs at least one clause"},
		{"schema mode", Options{Predicate: "t.id = s.id", MergeType: TypeUpsert, SchemaMode: "overwrite"}, "unknown SchemaMode"},
		{"insert when matched", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Insert, Set: map[string]string{"v": "1"}}}},
			"clause 1 (WHEN MATCHED THEN INSERT v = 1): action insert is not allowed for matched clauses (allowed: update, update_all, delete)"},
		{"update_all by source", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: NotMatchedBySource, Action: UpdateAll}}},
			"action update_all is not allowed for not_matched_by_source clauses (allowed: update, delete)"},
		{"update without set", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update}}}, "needs at least one column to set"},
		{"set twice", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"v": "1", "V": "2"}}}}, "is set twice"},
		{"bad value", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"v": "s.v +"}}}}, "value of \"v\""},
		{"bad condition", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Delete, Predicate: "s.x >"}}}, "clause 1 (WHEN MATCHED AND s.x > THEN DELETE): condition"},
	} {
		_, err := tc.opt.Plan()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("%s: got %v, want an invalid-argument error containing %q", tc.name, err, tc.want)
		}
	}
}

func TestParseSpecPreset(t *testing.T) {
	o, err := ParseSpec([]byte(`{"merge_type": "upsert", "predicate": "t.id = s.id", "source_alias": "src",
		"target_alias": "tgt", "schema_mode": "merge", "error_on_type_mismatch": false}`))
	if err != nil {
		t.Fatal(err)
	}
	want := Options{MergeType: TypeUpsert, Predicate: "t.id = s.id", SourceAlias: "src", TargetAlias: "tgt",
		SchemaMode: SchemaModeMerge, AllowTypeMismatch: true}
	if !reflect.DeepEqual(o, want) {
		t.Fatalf("got %+v\nwant %+v", o, want)
	}
	o, err = ParseSpec([]byte(`{"merge_type": "update_only", "predicate": "t.id = s.id", "error_on_type_mismatch": true}`))
	if err != nil || o.AllowTypeMismatch {
		t.Fatalf("error_on_type_mismatch true: %+v, %v", o, err)
	}
	if s, tg := o.Aliases(); s != "s" || tg != "t" {
		t.Fatalf("default aliases %q %q", s, tg)
	}
}

// The operations form runs its kinds in a fixed order, whatever the order
// of the keys in the file.
func TestParseSpecOperationsOrder(t *testing.T) {
	o, err := ParseSpec([]byte(`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {
		"when_not_matched_by_source_delete": [{}],
		"when_not_matched_by_source_update": [{"predicate": "t.v > 0", "updates": {"v": "0"}}],
		"when_not_matched_insert_all": [{"except_cols": ["x"]}],
		"when_not_matched_insert": [{"predicate": "s.v < 0", "updates": {"id": "s.id", "v": "-s.v"}}],
		"when_matched_delete": [{"predicate": "s.op = 'd'"}],
		"when_matched_update_all": [{"predicate": null}],
		"when_matched_update": [{"predicate": "s.v > t.v", "updates": {"v": "s.v"}}, {"updates": {"v": "t.v + 1"}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "WHEN MATCHED AND s.v > t.v THEN UPDATE SET v = s.v | WHEN MATCHED THEN UPDATE SET v = t.v + 1 | " +
		"WHEN MATCHED THEN UPDATE SET * | WHEN MATCHED AND s.op = 'd' THEN DELETE | " +
		"WHEN NOT MATCHED AND s.v < 0 THEN INSERT id = s.id, v = -s.v | WHEN NOT MATCHED THEN INSERT * EXCEPT (x) | " +
		"WHEN NOT MATCHED BY SOURCE THEN DELETE | WHEN NOT MATCHED BY SOURCE AND t.v > 0 THEN UPDATE SET v = 0"
	if got := render(o.Clauses); got != want {
		t.Fatalf("clauses\n got %s\nwant %s", got, want)
	}
	if o.MergeType != TypeCustom {
		t.Fatalf("merge type %q", o.MergeType)
	}
}

// The ordered form keeps the file's order across actions, and implies
// custom when merge_type is left out.
func TestParseSpecClausesOrder(t *testing.T) {
	o, err := ParseSpec([]byte(`{"predicate": "t.id = s.id", "clauses": [
		{"when": "matched", "action": "delete", "predicate": "s.op = 'd'"},
		{"when": "not_matched_by_source", "action": "delete"},
		{"when": "matched", "action": "update_all", "except_cols": ["created"]},
		{"when": "NOT_MATCHED", "action": "insert", "updates": {"id": "s.id"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	want := "WHEN MATCHED AND s.op = 'd' THEN DELETE | WHEN NOT MATCHED BY SOURCE THEN DELETE | " +
		"WHEN MATCHED THEN UPDATE SET * EXCEPT (created) | WHEN NOT MATCHED THEN INSERT id = s.id"
	if got := render(o.Clauses); got != want || o.MergeType != TypeCustom {
		t.Fatalf("clauses\n got %s (%s)\nwant %s", got, o.MergeType, want)
	}
	cs, err := o.Plan()
	if err != nil || render(cs) != want {
		t.Fatalf("Plan of a parsed spec: %v %s", err, render(cs))
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct{ spec, want string }{
		{``, "the spec is empty"},
		{`null`, "the spec is null"},
		{`{"merge_type": "upsert",
  "predicate": "t.id = s.id",,}`, "line 2, column 30: malformed JSON"},
		{`{"merge_type": "upsert", "predicate": "t.id = s.id"} {}`, "unexpected data after the spec object"},
		{`{"merge_typ": "upsert", "predicate": "t.id = s.id"}`, `merge_typ: unknown key; did you mean "merge_type"?`},
		{`{"merge_type": "upsert"}`, "predicate: a merge needs an ON predicate"},
		{`{"merge_type": "upsert", "predicate": 3}`, "predicate: a JSON number where a string was expected"},
		{`{"merge_type": "upsert", "predicate": "t.id = s.id", "error_on_type_mismatch": "yes"}`, "error_on_type_mismatch: a JSON string where true or false was expected"},
		{`{"merge_type": "upsert", "predicate": "t.id ="}`, "predicate"},
		{`{"predicate": "t.id = s.id"}`, "merge_type: missing"},
		{`{"merge_type": "merge", "predicate": "t.id = s.id"}`, `merge_type: unknown merge type "merge"`},
		{`{"merge_type": "upsert", "predicate": "t.id = s.id", "schema_mode": "overwrite"}`, `schema_mode: unknown schema mode "overwrite"`},
		{`{"merge_type": "upsert", "predicate": "t.id = s.id", "operations": {}}`, `operations: merge type "upsert" is a preset`},
		{`{"merge_type": "custom", "predicate": "t.id = s.id"}`, `needs "operations" or "clauses"`},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {}}`, "operations: no clauses"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {}, "clauses": []}`, "not both"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_insert": [{}]}}`,
			`operations.when_matched_insert: unknown key; did you mean "when_not_matched_insert"?`},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": [{"predicate": "s.v > 0"}]}}`,
			"operations.when_matched_update[0].updates: missing or empty"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": [{"updates": {}}]}}`,
			"operations.when_matched_update[0].updates: missing or empty"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": [{"updates": {"v": 1}}]}}`,
			"operations.when_matched_update[0].updates: a JSON number where a string was expected"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": {"updates": {"v": "1"}}}}`,
			"operations.when_matched_update: a JSON object where an array was expected"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_delete": [{"except_cols": ["a"]}]}}`,
			`operations.when_matched_delete[0].except_cols: unknown key; known keys: "predicate"`},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update_all": [{"updates": {"a": "1"}}]}}`,
			`operations.when_matched_update_all[0].updates: unknown key`},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_not_matched_insert": [{"updates": {"v": "s.v +"}}]}}`,
			"operations.when_not_matched_insert[0].updates.v"},
		{`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_delete": [{"predicate": "s.op = "}]}}`,
			"operations.when_matched_delete[0].predicate"},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "matched", "action": "insert", "updates": {"v": "1"}}]}`,
			`clauses[0].action: action "insert" is not allowed for "matched" clauses (allowed: "update", "update_all", "delete")`},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "not_matched", "action": "delete"}]}`,
			`clauses[0].action: action "delete" is not allowed for "not_matched" clauses (allowed: "insert", "insert_all")`},
		{`{"predicate": "t.id = s.id", "clauses": [{"action": "delete"}]}`, "clauses[0].when: missing"},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "matched"}]}`, "clauses[0].action: missing"},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "by_source", "action": "delete"}]}`, `clauses[0].when: unknown clause kind "by_source"`},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "matched", "action": "upsert"}]}`, `clauses[0].action: unknown action "upsert"`},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": 1, "action": "delete"}]}`, "clauses[0].when: a JSON number where a string was expected"},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "matched", "action": "delete", "extra": 1}]}`, "clauses[0].extra: unknown key"},
		{`{"predicate": "t.id = s.id", "clauses": [{"when": "matched", "action": "update_all", "except_cols": [""]}]}`, "clauses[0].except_cols[0]: empty column name"},
	} {
		_, err := ParseSpec([]byte(tc.spec))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("spec %s\n got %v\nwant an invalid-argument error containing %q", tc.spec, err, tc.want)
		}
	}
}

func render(cs []Clause) string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return strings.Join(out, " | ")
}

// A key given twice anywhere in a spec is refused with its path: JSON
// decoders would keep the last one silently.
func TestParseSpecDuplicateKey(t *testing.T) {
	for spec, path := range map[string]string{
		`{"merge_type": "upsert", "predicate": "t.id = s.id", "merge_type": "replace_delete_unmatched"}`:                                                         "merge_type",
		`{"predicate": "t.id = s.id", "clauses": [{"when": "matched", "action": "delete"}, {"when": "not_matched", "action": "insert_all", "when": "matched"}]}`: "clauses[1].when",
		`{"merge_type": "custom", "predicate": "t.id = s.id", "operations": {"when_matched_update": [{"updates": {"v": "1", "v": "2"}}]}}`:                       "operations.when_matched_update[0].updates.v",
	} {
		_, err := ParseSpec([]byte(spec))
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "merge spec") ||
			!strings.Contains(err.Error(), `duplicate key "`+path+`"`) {
			t.Errorf("%s: %v, want duplicate key %q", spec, err, path)
		}
	}
}
