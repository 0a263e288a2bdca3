package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// The ON predicate splits into hashed keys, one-sided filters and what is
// checked on each pair.
func TestSplitPredicate(t *testing.T) {
	target := cols("id long", "day date", "a integer", "k string", "f double", "d decimal(10,2)")
	source := cols("id integer", "x integer", "b integer", "k2 string", "g float", "e decimal(12,3)", "s string")
	p, err := resolve(Options{MergeType: TypeUpdateOnly, Predicate: "t.id = s.id AND t.day = '2026-01-02' AND s.x > 0 AND " +
		"t.a + s.b > 3 AND s.k2 = t.k AND t.f = s.g AND t.d = s.e AND t.k = CAST(s.x AS STRING) AND t.a <=> s.b",
		SchemaMode: SchemaModeMerge}, target, source)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, k := range p.keys {
		keys = append(keys, k.target.String()+"="+k.source.String()+":"+k.keyType.String())
	}
	if got, want := strings.Join(keys, ", "), "id=id:int64, k=k2:utf8, f=g:float64, k=CAST(x AS STRING):utf8"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
	if got, want := p.targetOnly.String(), "day = DATE '2026-01-02'"; got != want {
		t.Errorf("target-only %s, want %s", got, want)
	}
	if got, want := p.sourceOnly.String(), "x > 0"; got != want {
		t.Errorf("source-only %s, want %s", got, want)
	}
	if got, want := p.pairCheck.String(), "t.a + s.b > 3 AND t.d = s.e AND t.a <=> s.b"; got != want {
		t.Errorf("pair check %s, want %s", got, want)
	}
}

func TestResolveRefuses(t *testing.T) {
	target := cols("id long", "v string", "n integer")
	for _, tc := range []struct {
		name   string
		opt    Options
		source string
		kind   error
		want   string
	}{
		{"extra source column", Options{Predicate: "t.id = s.id", MergeType: TypeUpsert}, "id long,v string,n integer,w string,z long",
			errs.ErrSchemaMismatch, `the source has column(s) "w", "z" that the table lacks`},
		{"missing source column", Options{Predicate: "t.id = s.id", MergeType: TypeDeduplicateInsert}, "id long,v string",
			errs.ErrSchemaMismatch, `the source lacks table column(s) "n"`},
		{"except unknown", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: UpdateAll, Except: []string{"q"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, `except column "q" is neither`},
		{"set unknown column", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"q": "1"}}}},
			"id long,v string,n integer", errs.ErrSchemaMismatch, `clause 1 (WHEN MATCHED THEN UPDATE SET q = 1): cannot set "q": the table has no such column`},
		{"set nested", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"v.a": "1"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, "only top-level table columns"},
		{"set twice through alias", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"t.v": "'1'", "`v`": "'2'"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, `column "v" is set twice`},
		{"string into int", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"n": "s.v"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, `value of "n": cannot store a STRING value in column n of type INT`},
		{"target in not matched", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: NotMatched, Action: Insert, Predicate: "t.n > 0", Set: map[string]string{"id": "s.id"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, "clause 1 (WHEN NOT MATCHED AND t.n > 0 THEN INSERT id = s.id): condition"},
		{"source in by source", Options{Predicate: "t.id = s.id", Clauses: []Clause{{When: NotMatchedBySource, Action: Update, Set: map[string]string{"v": "s.v"}}}},
			"id long,v string,n integer", errs.ErrInvalidArgument, `value of "v"`},
		{"unknown column in ON", Options{Predicate: "t.id = s.idd", MergeType: TypeUpsert}, "id long,v string,n integer",
			errs.ErrInvalidArgument, "the merge predicate"},
		{"ON not boolean", Options{Predicate: "t.id + s.id", MergeType: TypeUpsert}, "id long,v string,n integer",
			errs.ErrInvalidArgument, "not a predicate"},
	} {
		_, err := resolve(tc.opt, target, cols(strings.Split(tc.source, ",")...))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.kind) {
			t.Errorf("%s: got %v, want %v containing %q", tc.name, err, tc.kind, tc.want)
		}
	}
	// A lossy value is allowed when the caller allows type mismatches.
	if _, err := resolve(Options{Predicate: "t.id = s.id", AllowTypeMismatch: true, Clauses: []Clause{{When: Matched, Action: Update, Set: map[string]string{"n": "s.v"}}}},
		target, cols("id long", "v string")); err != nil {
		t.Fatalf("with AllowTypeMismatch: %v", err)
	}
}
