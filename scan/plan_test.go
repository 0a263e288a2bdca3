package scan

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

func mustFilter(t *testing.T, col, op string, values ...string) Filter {
	t.Helper()
	f, err := NewFilter(col, op, values...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// planned returns the partition values (or file names, without partition
// columns) of the files a scan reads, sorted, and the number skipped.
func planned(t *testing.T, s *Scan, key string) ([]string, int) {
	t.Helper()
	e, err := s.Explain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range e.Files {
		v := f.Key
		if key != "" {
			v = f.Add.PartitionValues[key]
		}
		got = append(got, v)
	}
	for _, sk := range e.Skipped {
		if sk.Reason == "" || sk.Key == "" {
			t.Errorf("skipped file without key or reason: %+v", sk)
		}
	}
	sort.Strings(got)
	return got, len(e.Skipped)
}

// values returns the rendered value of one column in every row, sorted.
func values(t *testing.T, src Source, col string, opts ...Option) []string {
	t.Helper()
	rows := readRows(t, src, append([]Option{WithColumns(col)}, opts...)...)
	for i, r := range rows {
		rows[i] = strings.TrimPrefix(r, col+"=")
	}
	return rows
}

func TestPartitionPruning(t *testing.T) {
	basic := openTable(t, "dat/basic_partitioned/delta")
	withNull := openTable(t, "dat/partitioned_with_null/delta")
	cases := []struct {
		name    string
		src     Source
		filter  Filter
		files   string // partition values of the files read
		skipped int
		numbers string // the number column of the rows read
	}{
		{"eq", basic, mustFilter(t, "letter", "=", "a"), "a a", 4, "1 4"},
		{"ne", basic, mustFilter(t, "letter", "!=", "a"), "b c e f", 2, "2 3 5 6"},
		{"in", basic, mustFilter(t, "letter", "in", "b", "c", "z"), "b c", 4, "2 3"},
		{"not in", basic, mustFilter(t, "letter", "NOT IN", "a", "b"), "c e f", 3, "3 5 6"},
		{"lt", basic, mustFilter(t, "letter", "<", "c"), "a a b", 3, "1 2 4"},
		{"ge", basic, mustFilter(t, "letter", ">=", "e"), "e f", 4, "5 6"},
		{"case-insensitive column", basic, mustFilter(t, "LETTER", "==", "b"), "b", 5, "2"},
		// The null partition satisfies neither = nor != nor not in.
		{"null eq", withNull, mustFilter(t, "letter", "=", "a"), "a a", 4, "1 4"},
		{"null ne", withNull, mustFilter(t, "letter", "<>", "a"), "b c e", 3, "2 3 5"},
		{"null not in", withNull, mustFilter(t, "letter", "not in", "b"), "a a c e", 2, "1 3 4 5"},
		{"null lt", withNull, mustFilter(t, "letter", "<", "z"), "a a b c e", 1, "1 2 3 4 5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(c.src, WithFilters(c.filter))
			files, skipped := planned(t, s, "letter")
			if strings.Join(files, " ") != c.files || skipped != c.skipped {
				t.Errorf("files %v (%d skipped), want %s (%d skipped)", files, skipped, c.files, c.skipped)
			}
			if got := values(t, c.src, "number", WithFilters(c.filter)); strings.Join(got, " ") != c.numbers {
				t.Errorf("numbers %v, want %s", got, c.numbers)
			}
		})
	}
}

func TestPartitionPruningTypedValues(t *testing.T) {
	multi2 := openTable(t, "dat/multi_partitioned_2/delta")
	multi := openTable(t, "dat/multi_partitioned/delta")
	int96 := openTable(t, "golden/kernel-timestamp-int96/delta")
	cases := []struct {
		name    string
		src     Source
		filters []Filter
		key     string
		files   string
	}{
		{"boolean", multi2, []Filter{mustFilter(t, "bool", "=", "true")}, "time", "1970-01-01 00:00:00 1970-01-01 12:30:00"},
		{"timestamp", multi2, []Filter{mustFilter(t, "time", ">", "1970-01-01 06:00:00")}, "time", "1970-01-01 12:30:00 1970-01-02 08:45:00"},
		{"timestamp ISO", multi2, []Filter{mustFilter(t, "time", "<", "1970-01-01T12:30:00Z")}, "time", "1970-01-01 00:00:00"},
		// decimal values compare by value, whatever their written scale.
		{"decimal", multi2, []Filter{mustFilter(t, "amount", "=", "200")}, "time", "1970-01-01 00:00:00 1970-01-01 12:30:00"},
		{"decimal lt", multi2, []Filter{mustFilter(t, "amount", "<", "100.5")}, "time", "1970-01-02 08:45:00"},
		{"two filters", multi2, []Filter{mustFilter(t, "bool", "=", "true"), mustFilter(t, "time", ">", "1970-01-01 06:00:00")}, "time", "1970-01-01 12:30:00"},
		{"escaped string", multi, []Filter{mustFilter(t, "letter", "=", "/%20%f")}, "letter", "/%20%f"},
		{"binary", multi, []Filter{mustFilter(t, "data", "=", "😈")}, "letter", "b"},
		{"date", multi, []Filter{mustFilter(t, "date", ">=", "1970-01-01")}, "letter", "/%20%f b"},
		{"date none", multi, []Filter{mustFilter(t, "date", "!=", "1970-01-01")}, "letter", ""},
		{"int96 timestamp", int96, []Filter{mustFilter(t, "part", ">=", "2021-01-01")}, "part", "2021-10-01 08:09:20 2021-10-01 08:09:20"},
		// Under column mapping partition values are keyed by physical name.
		{"column mapping", openTable(t, "delta-rs/table_with_column_mapping"), []Filter{mustFilter(t, "Company Very Short", "=", "BME")}, "", "1"},
		{"int96 before 1970", int96, []Filter{mustFilter(t, "part", "<", "1970-01-01")}, "part", "1969-01-01 00:00:00"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			files, _ := planned(t, New(c.src, WithFilters(c.filters...)), c.key)
			if c.key == "" {
				files = []string{fmt.Sprint(len(files))}
			}
			if got := strings.Join(files, " "); got != c.files {
				t.Errorf("files %q, want %q", got, c.files)
			}
		})
	}
}

func TestStatisticsSkipping(t *testing.T) {
	appended := openTable(t, "dat/basic_append/delta") // files: numbers 1-3 (a-c), 4-5 (d-e)
	grid := openTable(t, "golden/data-skipping-partition-and-data-column/delta")
	cases := []struct {
		name   string
		src    Source
		filter Filter
		files  int
		col    string
		values string // of col in the rows read
	}{
		{"gt skips low file", appended, mustFilter(t, "number", ">", "3"), 1, "number", "4 5"},
		{"ge keeps boundary", appended, mustFilter(t, "number", ">=", "3"), 2, "number", "3 4 5"},
		{"eq prunes and filters rows", appended, mustFilter(t, "number", "=", "2"), 1, "number", "2"},
		{"eq outside all", appended, mustFilter(t, "number", "=", "9"), 0, "number", ""},
		{"in across files", appended, mustFilter(t, "number", "in", "1", "5"), 2, "number", "1 5"},
		{"in one file", appended, mustFilter(t, "number", "in", "0", "3"), 1, "number", "3"},
		{"lt", appended, mustFilter(t, "number", "<", "4"), 1, "number", "1 2 3"},
		{"le", appended, mustFilter(t, "number", "<=", "4"), 2, "number", "1 2 3 4"},
		{"string", appended, mustFilter(t, "letter", "=", "d"), 1, "letter", `"d"`},
		{"string range", appended, mustFilter(t, "letter", ">", "c"), 1, "letter", `"d" "e"`},
		// Float bounds are trusted as Spark's data skipping trusts them (a
		// Spark-written max is NaN when the column holds one).
		{"double min skips", appended, mustFilter(t, "a_float", "<", "2"), 1, "a_float", "1.1"},
		{"double max skips", appended, mustFilter(t, "a_float", ">=", "5.5"), 1, "a_float", "5.5"},
		{"ne keeps ranges", appended, mustFilter(t, "number", "!=", "4"), 2, "number", "1 2 3 5"},
		{"ne skips constant file", grid, mustFilter(t, "id", "!=", "0"), 2, "id", "1 1"},
		{"not in skips constant file", grid, mustFilter(t, "part", "not in", "0", "7"), 2, "part", "1 1"},
		{"eq grid", grid, mustFilter(t, "id", "=", "1"), 2, "part", "0 1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := New(c.src, WithFilters(c.filter))
			plan, err := s.Plan(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(plan) != c.files {
				t.Errorf("planned %d files, want %d", len(plan), c.files)
			}
			for _, f := range plan {
				if f.stats == nil || f.stats.NumRecords < 1 {
					t.Errorf("planned file %s without parsed statistics", f.Key)
				}
			}
			if got := strings.Join(values(t, c.src, c.col, WithFilters(c.filter)), " "); got != c.values {
				t.Errorf("%s values %q, want %q", c.col, got, c.values)
			}
		})
	}
}

func TestStatisticsSkippingEdges(t *testing.T) {
	prim := openTable(t, "dat/all_primitive_types/delta")
	// The stats say the max timestamp is 04:00:00.000; truncated to the
	// millisecond it stands for anything up to 04:00:00.000999.
	s := New(prim, WithFilters(mustFilter(t, "timestamp", ">", "1970-01-01T04:00:00.000500Z")))
	if plan, err := s.Plan(context.Background()); err != nil || len(plan) != 1 {
		t.Errorf("timestamp within the truncated millisecond: %d files, %v; want the file kept", len(plan), err)
	}
	s = New(prim, WithFilters(mustFilter(t, "timestamp", ">", "1970-01-01T04:00:00.001Z")))
	if plan, err := s.Plan(context.Background()); err != nil || len(plan) != 0 {
		t.Errorf("timestamp past the max: %d files, %v; want none", len(plan), err)
	}
	for _, f := range []Filter{
		mustFilter(t, "decimal", ">", "14.001"),
		mustFilter(t, "date32", "<", "1970-01-01"),
		mustFilter(t, "float32", "<", "0.0"),
		mustFilter(t, "float32", ">", "4.0"),
		mustFilter(t, "int8", "in", "-1", "5"),
		mustFilter(t, "utf8", ">=", "5"),
	} {
		if plan, err := New(prim, WithFilters(f)).Plan(context.Background()); err != nil || len(plan) != 0 {
			t.Errorf("%s: %d files, %v; want the file skipped", f, len(plan), err)
		}
	}
	// Columns without bounds (boolean, binary here) never skip.
	for _, f := range []Filter{mustFilter(t, "bool", "=", "true"), mustFilter(t, "binary", "=", "zzz")} {
		if plan, err := New(prim, WithFilters(f)).Plan(context.Background()); err != nil || len(plan) != 1 {
			t.Errorf("%s: %d files, %v; want the file kept", f, len(plan), err)
		}
	}

	// Null counts: a file whose values are all null matches no filter; a
	// file without statistics is always read.
	basic := openTable(t, "dat/basic_append/delta")
	files := basic.Files()
	allNull := *files[0]
	allNull.Stats = `{"numRecords":2,"nullCount":{"number":2}}`
	noStats := *files[1]
	noStats.Stats = ""
	src := &altered{Source: basic, files: []*protocol.Add{&allNull, &noStats}}
	e, err := New(src, WithFilters(mustFilter(t, "number", "!=", "-1"))).Explain(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Files) != 1 || e.Files[0].Add != &noStats || len(e.Skipped) != 1 || e.Skipped[0].Add != &allNull || !strings.Contains(e.Skipped[0].Reason, "number != -1") {
		t.Errorf("plan %+v", e)
	}
}

func TestFilterErrors(t *testing.T) {
	src := openTable(t, "dat/multi_partitioned_2/delta")
	bad := []Filter{
		{Column: "nope", Op: Eq, Value: "1"},
		{Column: "amount", Op: Eq, Value: "abc"},
		{Column: "time", Op: Gt, Value: "yesterday"},
		{Column: "bool", Op: Eq, Value: []string{"true", "false"}},
		{Column: "bool", Op: "~", Value: "true"},
		{Column: "amount", Op: Lt, Value: nil},
		{Column: "bool", Op: In, Value: []string{}},
	}
	for _, f := range bad {
		_, err := New(src, WithFilters(f)).Plan(context.Background())
		if !errors.Is(err, errs.ErrInvalidArgument) {
			t.Errorf("%+v: error %v, want invalid argument", f, err)
		}
	}
	if _, err := NewFilter("a", "like", "x"); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Errorf("operator like: %v", err)
	}
	nested := openTable(t, "dat/nested_types/delta")
	if _, err := New(nested, WithFilters(Filter{Column: "struct", Op: Eq, Value: "1"})).Plan(context.Background()); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Errorf("filter on a struct: %v", err)
	}
}

// TestStatisticsAllTypes runs the golden data-skipping tables (one file,
// one row of zeros) with and without column mapping: equality with the
// stored value keeps the file, a bound past it skips it.
func TestStatisticsAllTypes(t *testing.T) {
	keep := map[string]string{
		"as_int": "0", "as_long": "0", "as_byte": "0", "as_short": "0", "as_float": "0", "as_double": "0",
		"as_string": "0", "as_date": "2000-01-01", "as_timestamp": "2000-01-01T08:00:00Z", "as_big_decimal": "0",
	}
	above := map[string]string{
		"as_int": "1", "as_long": "1", "as_byte": "1", "as_short": "1", "as_float": "0.5", "as_double": "0.001",
		"as_string": "1", "as_date": "2000-01-02", "as_timestamp": "2000-01-01T08:00:01Z", "as_big_decimal": "1",
	}
	for _, table := range []string{"golden/data-skipping-basic-stats-all-types/delta", "golden/data-skipping-basic-stats-all-types-columnmapping-name/delta"} {
		src := openTable(t, table)
		for col, v := range keep {
			for _, f := range []Filter{mustFilter(t, col, "=", v), mustFilter(t, col, "<=", v), mustFilter(t, col, "in", above[col], v)} {
				plan, err := New(src, WithFilters(f)).Plan(context.Background())
				if err != nil || len(plan) != 1 {
					t.Errorf("%s: %s: %d files, %v; want the file kept", table, f, len(plan), err)
				}
			}
			skip := []Filter{mustFilter(t, col, "=", above[col]), mustFilter(t, col, ">=", above[col]), mustFilter(t, col, "<", v)}
			if col != "as_timestamp" { // a millisecond bound cannot prove every value equal
				skip = append(skip, mustFilter(t, col, "!=", v))
			}
			for _, f := range skip {
				plan, err := New(src, WithFilters(f)).Plan(context.Background())
				if err != nil || len(plan) != 0 {
					t.Errorf("%s: %s: %d files, %v; want the file skipped", table, f, len(plan), err)
				}
			}
		}
		if got := readRows(t, src, WithColumns("as_int"), WithFilters(mustFilter(t, "as_timestamp", "=", "2000-01-01T08:00:00Z"))); len(got) != 1 {
			t.Errorf("%s: timestamp row filter kept %d rows", table, len(got))
		}
	}
}
