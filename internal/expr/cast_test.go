package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
)

// A double or float whose digits Java writes differently by JVM version
// fails its cast to a string; any other is written as Double.toString.
func TestCastFloatToStringByJVM(t *testing.T) {
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"d","type":"double","nullable":true,"metadata":{}}]}`)
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`CAST(0.1D + 0.2D AS STRING)`, `0.30000000000000004`},
		{`CAST(1e15D AS STRING)`, `1.0E15`},
		{`CAST(1e22D AS STRING)`, `ERR`},
		{`CAST(1e23D AS STRING)`, `ERR`},
		{`CAST(4.9e-324D AS STRING)`, `ERR`},
		{`CAST(1e30D AS STRING)`, `1.0E30`},
		{`CAST(CAST(7.79185E10 AS FLOAT) AS STRING)`, `ERR`},
		{`CAST(CAST(1.5 AS FLOAT) AS STRING)`, `1.5`},
		{`concat('x', 2e20D)`, `ERR`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		got := "ERR"
		if err == nil {
			got = b.root.(*lit).v.(string)
		} else if !strings.Contains(err.Error(), "differently by JVM version") {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s = %s, want %s", c.e, got, c.want)
		}
	}
}

// Dates and timestamps outside years 0 to 9999 are cast to strings as
// java.time writes them, as Spark does.
func TestCastDateToStringYears(t *testing.T) {
	rels := map[string]*schema.Struct{"": mustSchema(t, `{"type":"struct","fields":[]}`)}
	for _, c := range []struct{ e, want string }{
		{`CAST(date_add(DATE '9999-12-31', 1) AS STRING)`, `+10000-01-01`},
		{`CAST(make_date(-5, 1, 1) AS STRING)`, `-0005-01-01`},
		{`CAST(make_date(0, 1, 1) AS STRING)`, `0000-01-01`},
		{`CAST(make_date(12, 3, 4) AS STRING)`, `0012-03-04`},
		{`CAST(make_date(123456, 1, 1) AS STRING)`, `+123456-01-01`},
		{`CAST(make_timestamp_ntz(-5, 1, 1, 0, 0, 0) AS STRING)`, `-0005-01-01 00:00:00`},
		{`CAST(make_timestamp(10000, 1, 1, 0, 0, 0) AS STRING)`, `+10000-01-01 00:00:00`},
		{`CAST(make_timestamp(12, 1, 1, 0, 0, 0.5) AS STRING)`, `0012-01-01 00:00:00.5`},
	} {
		b, err := BindValue(mustParse(t, c.e), rels)
		if err != nil {
			t.Errorf("%s: %v", c.e, err)
			continue
		}
		if got := b.root.(*lit).v.(string); got != c.want {
			t.Errorf("%s = %s, want %s (Spark's)", c.e, got, c.want)
		}
	}
}
