package scan

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/schema"
)

func mustPredicate(t *testing.T, src Source, text string) *expr.Bound {
	t.Helper()
	p, err := expr.ParsePredicate(text, src.Schema())
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return p
}

func TestPredicatePrunesAndFilters(t *testing.T) {
	basic := openTable(t, "dat/basic_partitioned/delta")
	withNull := openTable(t, "dat/partitioned_with_null/delta")
	appended := openTable(t, "dat/basic_append/delta") // files: numbers 1-3 (a-c), 4-5 (d-e)
	cases := []struct {
		name    string
		src     Source
		where   string
		files   int
		numbers string // the number column of the rows read
	}{
		{"partition eq", basic, "letter = 'a'", 2, "1 4"},
		{"partition in", basic, "letter IN ('b', 'c', 'z')", 2, "2 3"},
		// The null partition is selectable, and excluded by = and !=.
		{"null partition", withNull, "letter IS NULL", 1, "6"},
		{"null partition ne", withNull, "letter <> 'a'", 3, "2 3 5"},
		{"null partition or", withNull, "letter IS NULL OR letter = 'b'", 2, "2 6"},
		{"statistics", appended, "number > 3", 1, "4 5"},
		{"statistics none", appended, "number > 9", 0, ""},
		{"rows of a kept file", appended, "number = 2", 1, "2"},
		{"expression on rows", appended, "number % 2 = 0", 2, "2 4"},
		{"partition and data", basic, "letter = 'a' AND number > 1", 1, "4"},
		{"partition or data", basic, "letter = 'b' OR number = 6", 2, "2 6"},
		{"string on rows", appended, "letter >= 'b' AND letter < 'e'", 2, "2 3 4"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := mustPredicate(t, c.src, c.where)
			e, err := New(c.src, withBound(p)).Explain(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Files) != c.files {
				t.Errorf("%d files read, want %d", len(e.Files), c.files)
			}
			for _, sk := range e.Skipped {
				if !strings.Contains(sk.Reason, "predicate "+p.String()) {
					t.Errorf("skip reason %q does not name the predicate", sk.Reason)
				}
			}
			if got := strings.Join(values(t, c.src, "number", withBound(p)), " "); got != c.numbers {
				t.Errorf("numbers %q, want %q", got, c.numbers)
			}
		})
	}
}

// A predicate may read columns the scan does not return: they are read for
// it and left out of the batches (readRows checks the batch schema).
func TestPredicateOnColumnsNotSelected(t *testing.T) {
	basic := openTable(t, "dat/basic_partitioned/delta")
	p := mustPredicate(t, basic, "letter IN ('a', 'c') AND number >= 3")
	rows := readRows(t, basic, WithColumns("a_float"), withBound(p))
	if got := strings.Join(rows, " "); got != "a_float=3.3 a_float=4.4" {
		t.Errorf("rows %q", got)
	}
	// No column at all: only the count of matching rows.
	s := New(basic, WithColumns(), withBound(p))
	sc, seq, err := s.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for rec, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n += rec.NumRows()
	}
	if sc.NumFields() != 0 || n != 2 {
		t.Errorf("%d fields, %d rows; want 0 fields, 2 rows", sc.NumFields(), n)
	}
}

// A file the partition values prove to match in whole is read without
// evaluating its rows; the limit counts matching rows only.
func TestPredicateAllMatchAndLimit(t *testing.T) {
	basic := openTable(t, "dat/basic_partitioned/delta")
	p := mustPredicate(t, basic, "letter >= 'b'")
	plan, err := New(basic, withBound(p)).Plan(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range plan {
		if !f.allMatch {
			t.Errorf("file %s (letter %s) not known to match in whole", f.Key, f.Add.PartitionValues["letter"])
		}
	}
	mixed := mustPredicate(t, basic, "number <> 3")
	got := values(t, basic, "number", withBound(mixed), WithLimit(5), WithParallelism(1), WithBatchSize(1))
	if len(got) != 5 || strings.Contains(strings.Join(got, " "), "3") {
		t.Errorf("limit 5 with a predicate: %v", got)
	}
}

// Under column mapping partition values and statistics are keyed by
// physical names; the predicate speaks logical ones.
func TestPredicateColumnMapping(t *testing.T) {
	parts := openTable(t, "delta-rs/table_with_column_mapping")
	p := mustPredicate(t, parts, "`Company Very Short` = 'BME'")
	if files, skipped := planned(t, New(parts, withBound(p)), ""); len(files) != 1 || skipped == 0 {
		t.Errorf("partition predicate: %d files read, %d skipped", len(files), skipped)
	}
	if got := strings.Join(values(t, parts, "Super Name", withBound(p)), " "); got != `"Timothy Lamb"` {
		t.Errorf("rows %s", got)
	}
	data := openTable(t, "golden/data-skipping-basic-stats-all-types-columnmapping-name/delta")
	for where, files := range map[string]int{"as_int = 0": 1, "as_int > 0": 0, "as_string < '0'": 0, "as_date = '2000-01-01'": 1} {
		if got, _ := planned(t, New(data, withBound(mustPredicate(t, data, where))), ""); len(got) != files {
			t.Errorf("%s: %d files read, want %d", where, len(got), files)
		}
	}
}

func TestPredicateWithDeletionVector(t *testing.T) {
	src := openTable(t, "delta-rs/table-with-dv-small") // values 1-8 live, 0 and 9 deleted
	p := mustPredicate(t, src, "value < 3 OR value > 7")
	if got := strings.Join(values(t, src, "value", withBound(p)), " "); got != "1 2 8" {
		t.Errorf("values %q, want 1 2 8", got)
	}
}

func TestPredicateErrors(t *testing.T) {
	basic := openTable(t, "dat/basic_partitioned/delta")
	other := &schema.Struct{Fields: []*schema.Field{{Name: "nope", Type: &schema.Primitive{Name: schema.Long}, Nullable: true}}}
	p, err := expr.ParsePredicate("nope > 1", other)
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(basic, withBound(p)).Plan(context.Background())
	if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "nope") {
		t.Errorf("predicate on a column the table lacks: %v", err)
	}
	// A row that fails to evaluate (ANSI division by zero) ends the scan
	// with an error naming the file.
	div := mustPredicate(t, basic, "number / (number - number) > 1")
	_, seq, err := New(basic, withBound(div)).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, err := range seq {
		if err == nil {
			continue
		}
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), ".parquet") {
			t.Errorf("evaluation error %v", err)
		}
		return
	}
	t.Error("division by zero in the predicate went unnoticed")
}
