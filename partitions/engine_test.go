package partitions_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/scan"
)

// row is one row of the test table: an instant and its views in New York.
type row struct {
	id     int64
	at     time.Time // UTC instant: column ts (timestamp)
	ny     time.Time // at in New York: ntz holds its wall clock, d its date, s its date text
	region string    // r, a partition column
	n      int32     // n, a partition column
}

func nyRows(t *testing.T) []row {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	regions := []string{"us", "eu", "o'x"}
	var rows []row
	for i, at := int64(0), time.Date(2024, 1, 25, 0, 0, 0, 0, time.UTC); at.Before(time.Date(2024, 4, 5, 0, 0, 0, 0, time.UTC)); i, at = i+1, at.Add(5*time.Hour) {
		rows = append(rows, row{id: i, at: at, ny: at.In(ny), region: regions[i%3], n: int32(i % 4)})
	}
	return rows
}

// writeTable writes rows to a table partitioned by d, r and n.
func writeTable(t *testing.T, rows []row) *deltalite.Table {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
		{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "r", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "n", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, r := range rows {
		wall := time.Date(r.ny.Year(), r.ny.Month(), r.ny.Day(), r.ny.Hour(), r.ny.Minute(), 0, 0, time.UTC)
		b.Field(0).(*array.Int64Builder).Append(r.id)
		b.Field(1).(*array.TimestampBuilder).Append(arrow.Timestamp(r.at.UnixMicro()))
		b.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(wall.UnixMicro()))
		b.Field(3).(*array.Date32Builder).Append(arrow.Date32FromTime(wall))
		b.Field(4).(*array.StringBuilder).Append(r.ny.Format(time.DateOnly))
		b.Field(5).(*array.StringBuilder).Append(r.region)
		b.Field(6).(*array.Int32Builder).Append(r.n)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(sc, []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	uri := filepath.Join(t.TempDir(), "t")
	if _, err := deltalite.Write(context.Background(), uri, rr, deltalite.WriteOptions{PartitionBy: []string{"d", "r", "n"}}); err != nil {
		t.Fatal(err)
	}
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

func scanIDs(t *testing.T, tb *deltalite.Table, opts ...scan.Option) []int64 {
	t.Helper()
	_, batches, err := tb.Scan(append(opts, scan.WithColumns("id"))...).Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rec, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rec.Column(0).(*array.Int64).Int64Values()...)
	}
	slices.Sort(ids)
	return ids
}

// TestPredicatesOnTable evaluates typed predicates and filters with the
// engine on a table holding the same instants as a timestamp, a wall clock
// (timestamp_ntz), a date and a string, and checks the rows selected.
func TestPredicatesOnTable(t *testing.T) {
	rows := nyRows(t)
	tb := writeTable(t, rows)
	sc := tb.DeltaSchema()
	ny := rows[0].ny.Location()
	dailyNY := partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), partitions.WithLocation(ny))
	hourlyNY := partitions.Hourly(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), partitions.WithLocation(ny))
	monthlyYM := partitions.Monthly(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), partitions.WithLocation(ny), partitions.WithFormat("%Y-%m"))
	weeklyNY := partitions.Weekly(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), partitions.WithLocation(ny))
	multi := partitions.Multi(map[string]partitions.Definition{"date": dailyNY, "region": partitions.Static("us", "eu", "o'x"), "n": partitions.Static("0", "1", "2", "3")})
	nyDay := func(days ...string) func(row) bool {
		return func(r row) bool { return slices.Contains(days, r.ny.Format(time.DateOnly)) }
	}
	cases := []struct {
		name string
		def  partitions.Definition
		expr string
		keys []string
		want func(row) bool
	}{
		// The day of the spring change lasts 23 hours in New York.
		{"daily on date", dailyNY, "d", []string{"2024-03-10"}, nyDay("2024-03-10")},
		{"daily on timestamp", dailyNY, "ts", []string{"2024-03-10"}, nyDay("2024-03-10")},
		{"daily on timestamp_ntz", dailyNY, "ntz", []string{"2024-03-10"}, nyDay("2024-03-10")},
		{"daily on string", dailyNY, "s", []string{"2024-03-10"}, nyDay("2024-03-10")},
		{"backfill on timestamp", dailyNY, "ts", []string{"2024-03-10", "2024-03-12"}, nyDay("2024-03-10", "2024-03-12")},
		{"month %Y-%m on date", monthlyYM, "d", []string{"2024-02"}, func(r row) bool { return r.ny.Month() == 2 }},
		{"month %Y-%m on timestamp", monthlyYM, "ts", []string{"2024-02", "2024-03"}, func(r row) bool { return r.ny.Month() == 2 || r.ny.Month() == 3 }},
		{"weekly on date", weeklyNY, "d", []string{"2024-03-04"}, nyDay("2024-03-04", "2024-03-05", "2024-03-06", "2024-03-07", "2024-03-08", "2024-03-09", "2024-03-10")},
		{"hourly on timestamp", hourlyNY, "ts", []string{"2024-03-10T06:00", "2024-03-10T00:00"}, func(r row) bool {
			return r.ny.Format(time.DateOnly) == "2024-03-10" && (r.ny.Hour() == 6 || r.ny.Hour() == 0)
		}},
		{"static quote", partitions.Static("us", "eu", "o'x"), "r", []string{"o'x"}, func(r row) bool { return r.region == "o'x" }},
		{"static int", partitions.Static("0", "1", "2", "3"), "n", []string{"0", "3"}, func(r row) bool { return r.n == 0 || r.n == 3 }},
		{"multi cartesian on date", multi, `{"date":"d","region":"r","n":"n"}`,
			[]string{"date=2024-03-10,n=1,region=us", "date=2024-03-11,n=1,region=us", "date=2024-03-10,n=1,region=o'x", "date=2024-03-11,n=1,region=o'x"},
			func(r row) bool { return nyDay("2024-03-10", "2024-03-11")(r) && r.n == 1 && r.region != "eu" }},
		{"multi cartesian on timestamp", multi, `{"date":"ts","region":"r","n":"n"}`,
			[]string{"date=2024-03-10,n=2,region=eu", "date=2024-03-11,n=2,region=eu"},
			func(r row) bool { return nyDay("2024-03-10", "2024-03-11")(r) && r.n == 2 && r.region == "eu" }},
		{"multi partly cartesian", multi, `{"date":"ntz","region":"r","n":"n"}`,
			[]string{"date=2024-03-10,n=0,region=us", "date=2024-03-10,n=2,region=o'x", "date=2024-03-11,n=0,region=us", "date=2024-03-12,n=3,region=eu"},
			func(r row) bool {
				return nyDay("2024-03-10", "2024-03-11")(r) && r.n == 0 && r.region == "us" ||
					nyDay("2024-03-10")(r) && r.n == 2 && r.region == "o'x" || nyDay("2024-03-12")(r) && r.n == 3 && r.region == "eu"
			}},
	}
	for _, c := range cases {
		var want []int64
		for _, r := range rows {
			if c.want(r) {
				want = append(want, r.id)
			}
		}
		if len(want) == 0 {
			t.Fatalf("%s: the case selects no row", c.name)
		}
		e, err := partitions.ParseExpr(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		pred, err := partitions.Predicate(c.def, e, c.keys, sc)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if got := scanIDs(t, tb, scan.WithWhere(pred)); !slices.Equal(got, want) {
			t.Errorf("%s: %s selects %d rows %v, want %d %v", c.name, pred, len(got), got, len(want), want)
		}
		// The filters: one conjunction per key, OR'ed.
		fs, err := partitions.Filters(c.def, e, c.keys, sc)
		if err != nil {
			t.Errorf("%s filters: %v", c.name, err)
			continue
		}
		var union []int64
		for _, conj := range fs {
			union = append(union, scanIDs(t, tb, scan.WithFilters(conj...))...)
		}
		slices.Sort(union)
		if union = slices.Compact(union); !slices.Equal(union, want) {
			t.Errorf("%s: filters %v select %v, want %v", c.name, fs, union, want)
		}
	}
	// The seed's string bounds, on the string column, select the same rows.
	pred, err := partitions.Predicate(dailyNY, partitions.Expr{Column: "s"}, []string{"2024-03-10"}, nil)
	if err != nil || !strings.HasPrefix(pred, "s >= '2024-03-10'") {
		t.Fatalf("seed form: %s %v", pred, err)
	}
	if got := scanIDs(t, tb, scan.WithWhere(pred)); len(got) == 0 || !slices.Equal(got, scanIDs(t, tb, scan.WithWhere("s = '2024-03-10'"))) {
		t.Errorf("seed form selects %v", got)
	}
}

// TestPredicateDeletes runs a keyed delete the way a partition-scoped
// action does: only the key's rows go.
func TestPredicateDeletes(t *testing.T) {
	rows := nyRows(t)
	tb := writeTable(t, rows)
	pred, err := partitions.Predicate(partitions.Static("us", "eu", "o'x"), partitions.Expr{Column: "r"}, []string{"o'x", "eu"}, tb.DeltaSchema())
	if err != nil {
		t.Fatal(err)
	}
	st, err := tb.Delete(context.Background(), deltalite.DeleteOptions{Predicate: pred})
	if err != nil {
		t.Fatal(err)
	}
	left := scanIDs(t, tb)
	if want := (len(rows) + 2) / 3; len(left) != want || st.RowsDeleted != int64(len(rows)-want) {
		t.Errorf("%s deleted %d rows and left %d, want %d left", pred, st.RowsDeleted, len(left), want)
	}
	for _, id := range left {
		if id%3 != 0 {
			t.Errorf("row %d of another region is gone", id)
		}
	}
}
