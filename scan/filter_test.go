package scan

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// One filter type is delta-rs's (column, op, value): its JSON is the
// [column, op, value] triple, and a value may be text, a number, a bool or
// a list for in, whoever built it (NewFilter, OPTIMIZE's partition
// filters, package partitions).
func TestFilterValuesAndJSON(t *testing.T) {
	src := openTable(t, "dat/multi_partitioned_2/delta")
	var dnf [][]Filter
	if err := json.Unmarshal([]byte(`[[["bool", "=", true]], [["amount", ">=", 300], ["time", "not in", ["x"]]]]`), &dnf); err != nil {
		t.Fatal(err)
	}
	if dnf[0][0] != (Filter{Column: "bool", Op: Eq, Value: true}) || dnf[1][0].Value != float64(300) {
		t.Fatalf("decoded %#v", dnf)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(dnf); err != nil || b.String() != `[[["bool","=",true]],[["amount",">=",300],["time","not in",["x"]]]]`+"\n" {
		t.Errorf("encoded %s, %v", b.String(), err)
	}
	for _, c := range []struct {
		f     Filter
		files int
	}{
		{Filter{Column: "bool", Op: Eq, Value: true}, 2},
		{Filter{Column: "amount", Op: ">=", Value: int64(200)}, 2},
		{Filter{Column: "amount", Op: "IN", Value: []any{100.5, "200"}}, 2},
		{mustFilter(t, "amount", "not_in", "200"), 1},
	} {
		plan, err := New(src, WithFilters(c.f)).Plan(t.Context())
		if err != nil || len(plan) != c.files {
			t.Errorf("%s: %d files, %v; want %d", c.f, len(plan), err, c.files)
		}
	}
	for _, c := range []struct {
		f    Filter
		want string
	}{
		{Filter{Column: "amount", Op: "like", Value: "1"}, `filter operator "like" of column amount is not one of =, !=, <, <=, >, >=, in, not in`},
		{Filter{Column: "amount", Op: In, Value: "200"}, "filter amount in needs a list of values ([]string), got string"},
		{Filter{Column: "amount", Op: NotIn, Value: []string{}}, "filter amount not in needs at least one value"},
		{Filter{Column: "amount", Op: Lt, Value: []string{"1", "2"}}, "filter amount < needs exactly one value"},
	} {
		_, err := New(src, WithFilters(c.f)).Plan(t.Context())
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.f, err, c.want)
		}
	}
	var f Filter
	if err := json.Unmarshal([]byte(`["a", "="]`), &f); err == nil || !strings.Contains(err.Error(), "[column, op, value]") {
		t.Errorf("a pair: %v", err)
	}
}
