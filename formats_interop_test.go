package deltalite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkGeneratedFormats are generated columns of format_string, printf
// and format_number with a pattern, on a table Spark creates
// (ts TIMESTAMP, v INT, s STRING, x DOUBLE, ...).
var sparkGeneratedFormats = []struct{ col, typ, expr string }{
	{"fs", "STRING", "format_string('%08.3f|%-7s|%e|%,.2f|%(.1f', x, s, x, x * 1000, -x)"},
	{"pf", "STRING", "printf('%2$S %1$.0f %<g %3$05x %3$d', x, s, hour(ts))"},
	{"fp", "STRING", "format_number(x * 1000, '#,##0.0#;(#)')"},
	{"fpd", "STRING", "format_number(CAST(x AS DECIMAL(12, 4)), '0.00%')"},
}

// TestSparkGeneratedFormatColumns: on a table Spark creates with
// generated columns of format_string, printf and format_number with a
// DecimalFormat pattern, and CHECK constraints of to_number and
// try_to_number (which Delta refuses in a generated column), Spark and we insert the same source values and get the same
// generated values (Java's half-up rounding of 2.675 and 0.125 included);
// after our UPDATE of the sources Spark finds every row equal to its own
// expressions; an amount the constraint refuses, and a text to_number does
// not read, fail our write, changing nothing.
func TestSparkGeneratedFormatColumns(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "fmt")
	cols, wrong := generatedDDL(sparkGeneratedFormats)
	var sparkValues, ours []string
	texts := []string{"$1,234.50", "$0.99", "$12,000", "$5", "$49,999.99"}
	xs := []string{"2.675", "0.125", "-1234.5678", "1e-5", "99.995"}
	for i, ts := range sparkGeneratedTimestamps {
		sparkValues = append(sparkValues, fmt.Sprintf("(TIMESTAMP '%s', %d, '%s', %sD)", ts, i, texts[i], xs[i]))
		ours = append(ours, fmt.Sprintf(`{"ts":"%sZ","v":%d,"s":%q,"x":%s}`, strings.Replace(ts, " ", "T", 1), 100+i, texts[i], xs[i]))
	}
	fields := []arrow.Field{fTS, fV, {Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}, {Name: "x", Type: arrow.PrimitiveTypes.Float64, Nullable: true}}
	s := peers.Spark(t)
	s.Run(t,
		sparkSQL(dir, "CREATE TABLE {table} (ts TIMESTAMP, v INT, s STRING, x DOUBLE, "+strings.Join(cols, ", ")+") USING delta", false),
		sparkSQL(dir, "INSERT INTO {table} (ts, v, s, x) VALUES "+strings.Join(sparkValues, ", "), false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT amount CHECK (try_to_number(s, '$99,999.99') < 50000)", false),
		sparkSQL(dir, "ALTER TABLE {table} ADD CONSTRAINT parsed CHECK (to_number(s, '$99,999.99') IS NOT NULL)", false),
	)
	mustWrite(t, dir, jsonSource(t, fields, "["+strings.Join(ours, ",")+"]"), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	sameGeneratedPerTimestamp(t, dir, len(sparkGeneratedTimestamps))
	var got []string
	for _, r := range readRows(t, dir) {
		if strings.Contains(r, "v=100,") {
			got = append(got, r)
		}
	}
	if len(got) != 1 || !strings.Contains(got[0], `fs="0002.675|$1,234.50|2.675000e+00|2,675.00|(2.7)"`) ||
		!strings.Contains(got[0], `pf="$1,234.50 3 2.67500 00017 23"`) || !strings.Contains(got[0], `fp="2,675.0"`) || !strings.Contains(got[0], `fpd="267.50%"`) {
		t.Errorf("our row of 2.675: %v", got)
	}

	tb := openT(t, dir)
	if _, err := tb.Update(ctx, deltalite.UpdateOptions{Predicate: "v = 101", Set: map[string]string{"x": "-0.5", "s": "'$7.25'"}}); err != nil {
		t.Fatal(err)
	}
	refusedUnchanged(t, dir, "an amount the constraint refuses", "amount", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"ts":"2024-03-01T10:00:00Z","v":9,"s":"$60,000","x":1}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	// try_to_number's NULL fails the first constraint, as in Spark.
	refusedUnchanged(t, dir, "a text to_number does not read", "CHECK constraint amount", func() error {
		_, err := deltalite.Write(ctx, dir, jsonSource(t, fields, `[{"ts":"2024-03-01T10:00:00Z","v":9,"s":"1,234.50","x":1}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		return err
	})
	sparkRechecksGenerated(t, s, dir, wrong)
}
