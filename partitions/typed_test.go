package partitions

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
)

// tableSchema builds a schema from name, type pairs.
func tableSchema(t *testing.T, nameTypes ...string) *schema.Struct {
	t.Helper()
	sc := &schema.Struct{}
	for i := 0; i+1 < len(nameTypes); i += 2 {
		sc.Fields = append(sc.Fields, &schema.Field{Name: nameTypes[i], Type: &schema.Primitive{Name: nameTypes[i+1]}, Nullable: true})
	}
	return sc
}

func TestTypedPredicates(t *testing.T) {
	sc := tableSchema(t, "d", "date", "ts", "timestamp", "ntz", "timestamp_ntz", "s", "string", "n", "integer", "y", "long", "f", "double")
	monthlyYM := Monthly(day("2024-01-01"), WithFormat("%Y-%m"))
	yearly, _ := Cron("0 0 1 1 *", day("2020-01-01"), WithFormat("%Y"))
	multi := Multi(map[string]Definition{"date": Daily(day("2024-01-01")), "n": Static("1", "2", "3")})
	cases := []struct {
		def        Definition
		expr       Expr
		keys       []string
		pred, filt string
	}{
		{Daily(day("2024-01-01")), Expr{Column: "d"}, []string{"2024-01-02"},
			`d >= DATE '2024-01-02' AND d < DATE '2024-01-03'`, `[[["d",">=","2024-01-02"],["d","<","2024-01-03"]]]`},
		{monthlyYM, Expr{Column: "d"}, []string{"2024-02"},
			`d >= DATE '2024-02-01' AND d < DATE '2024-03-01'`, `[[["d",">=","2024-02-01"],["d","<","2024-03-01"]]]`},
		{Hourly(day("2024-01-01")), Expr{Column: "ts"}, []string{"2024-01-01T05:00"},
			`ts >= TIMESTAMP '2024-01-01 05:00:00+00:00' AND ts < TIMESTAMP '2024-01-01 06:00:00+00:00'`,
			`[[["ts",">=","2024-01-01T05:00:00.000000Z"],["ts","<","2024-01-01T06:00:00.000000Z"]]]`},
		{Daily(day("2024-01-01"), WithTimezone("Asia/Kolkata")), Expr{Column: "ntz"}, []string{"2024-01-02"},
			`ntz >= TIMESTAMP '2024-01-02 00:00:00' AND ntz < TIMESTAMP '2024-01-03 00:00:00'`,
			`[[["ntz",">=","2024-01-02 00:00:00.000000"],["ntz","<","2024-01-03 00:00:00.000000"]]]`},
		{Daily(day("2024-01-01")), Expr{Column: "s"}, []string{"2024-01-02"},
			`s >= '2024-01-02' AND s < '2024-01-03'`, `[[["s",">=","2024-01-02"],["s","<","2024-01-03"]]]`},
		{yearly, Expr{Column: "y"}, []string{"2024"}, `y >= 2024 AND y < 2025`, `[[["y",">=",2024],["y","<",2025]]]`},
		{Static("1", "2", "3"), Expr{Column: "n"}, []string{"1", "3"}, `n IN (1, 3)`, `[[["n","=",1]],[["n","=",3]]]`},
		{Dynamic(), Expr{Column: "N"}, []string{"-7"}, `N = -7`, `[[["N","=",-7]]]`},
		{Static("1", "2"), Expr{Column: "s"}, []string{"1"}, `s = '1'`, `[[["s","=","1"]]]`},
		// A product with several whole days on a date column stays IN, of DATE literals.
		{multi, Expr{Columns: map[string]string{"date": "d", "n": "n"}}, []string{"date=2024-01-02,n=1", "date=2024-01-03,n=1"},
			`d IN (DATE '2024-01-02', DATE '2024-01-03') AND n = 1`, ``},
		// On a timestamp column it is a set of ranges, never IN of key strings.
		{multi, Expr{Columns: map[string]string{"date": "ts", "n": "n"}}, []string{"date=2024-01-02,n=1", "date=2024-01-03,n=1"},
			`((ts >= TIMESTAMP '2024-01-02 00:00:00+00:00' AND ts < TIMESTAMP '2024-01-03 00:00:00+00:00') OR (ts >= TIMESTAMP '2024-01-03 00:00:00+00:00' AND ts < TIMESTAMP '2024-01-04 00:00:00+00:00')) AND n = 1`, ``},
	}
	for _, c := range cases {
		p, err := Predicate(c.def, c.expr, c.keys, sc)
		if err != nil || p != c.pred {
			t.Errorf("%s %v:\n got %s (%v)\nwant %s", c.expr, c.keys, p, err, c.pred)
		}
		if c.filt == "" {
			continue
		}
		fs, err := Filters(c.def, c.expr, c.keys, sc)
		if got := string(jsonText(fs)); err != nil || got != c.filt {
			t.Errorf("filters %s %v:\n got %s (%v)\nwant %s", c.expr, c.keys, got, err, c.filt)
		}
	}
	for _, c := range []struct {
		def  Definition
		col  string
		key  string
		want string
	}{
		{Hourly(day("2024-01-01")), "d", "2024-01-01T05:00", `partition column "d" is a date, but the hourly window of key "2024-01-01T05:00" runs from 2024-01-01 05:00:00 to 2024-01-01 06:00:00`},
		{Daily(day("2024-01-01")), "n", "2024-01-02", `partition column "n" is an integer, but keys in format "%Y-%m-%d" are not whole numbers`},
		{Daily(day("2024-01-01")), "f", "2024-01-02", `partition column "f" is double; a time window dimension needs`},
		{Static("x"), "n", "x", `partition key "x" is not a whole number, but partition column "n" is integer`},
		{Static("x"), "nope", "x", `partition column "nope" (delta/partition_expr) is not a column of the table; its columns are "d", "ts"`},
	} {
		_, err := Predicate(c.def, Expr{Column: c.col}, []string{c.key}, sc)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s on %s: %v\nwant %q", c.key, c.col, err, c.want)
		}
	}
}
