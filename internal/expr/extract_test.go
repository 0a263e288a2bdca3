package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// extractExprs are evaluated here and by Spark over timeRows.
var extractExprs = []string{
	`extract(YEAR FROM ts)`, `extract(year FROM d)`, `extract(YEAROFWEEK FROM d)`, `extract(QUARTER FROM ts2)`,
	`extract(MONTH FROM d)`, `extract(WEEK FROM ts)`, `extract(DAY FROM ts2)`, `extract(DAYOFWEEK FROM d)`,
	`extract(DAYOFWEEK_ISO FROM d)`, `extract(DOY FROM ts)`, `extract(HOUR FROM ts)`, `extract(MINUTE FROM ts)`,
	`extract(SECOND FROM ts)`, `extract(SECOND FROM ts2)`, `extract(SECOND FROM d)`, `extract(HOUR FROM d)`,
	`extract(SECOND FROM CAST(ts AS TIMESTAMP_NTZ))`, `extract(HOUR FROM CAST(ts AS TIMESTAMP_NTZ))`, `extract(YEAR FROM s)`,
	`extract(YRS FROM ts)`, `extract(DOW FROM ts)`, `extract(W FROM d)`, `extract(secs FROM ts)`,
	`date_part('year', ts)`, `date_part('YEAROFWEEK', ts2)`, `date_part('dow_iso', ts)`, `date_part('s', ts)`, `date_part('MON', d)`,
	`date_part('d', CAST(ts AS TIMESTAMP_NTZ))`, `date_part('M', ts)`, `extract(SECOND FROM TIMESTAMP '1969-12-31 23:59:58.25')`,
}

// Spark 4 computes the same values as this package for extract and
// date_part over dates, timestamps, timestamps without zone and texts.
func TestExtractAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec := timeBatch(t)
	sparkAgrees(t, s, sc, rec, extractExprs, timeValues(), "n, ts, ts2, d, s, s2, sec")
}

// A field Spark does not know, or one not given as a constant, is refused.
func TestExtractRefusals(t *testing.T) {
	sc, _ := timeBatch(t)
	for _, c := range []struct{ e, want string }{
		{`extract(EPOCH FROM s)`, `cannot extract "EPOCH"`},
		{`date_part(' year', s)`, `cannot extract " year"`},
		{`date_part(s, s)`, `constant field`},
		{`extract(YEAR FROM n)`, `needs a date, timestamp or string`},
		{`extract('YEAR' FROM ts)`, `takes a field name first`},
	} {
		_, err := BindValue(mustParse(t, c.e), map[string]*schema.Struct{"": sc})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	if got := mustParse(t, `extract(YEAR FROM ts)`).String(); got != `extract(YEAR FROM ts)` {
		t.Errorf("extract renders as %s", got)
	}
}
