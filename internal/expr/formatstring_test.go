package expr

import (
	"math"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// formatTexts are doubles as text: ties of Java's half-up rounding on
// the shortest digits (0.125, 2.675, 1.005), powers of ten, values
// whose rounding carries, and NaN, infinities, zeros and a NULL.
var formatTexts = []*string{
	sp("0.125"), sp("2.675"), sp("1e-5"), sp("1.005"), sp("-2.5"), sp("0.5"), sp("9.995"), sp("999999.5"), sp("99.95"),
	sp("0.0001"), sp("9.9999e-5"), sp("-0.0"), sp("0"), sp("123456.789"), sp("-1234567.891"), sp("1e7"), sp("1e15"),
	sp("4503599627370495"), sp("1e300"), sp("0.1"), sp("0.3333333333333333"), sp("6.02214076e-23"), sp("-1.7976931348623157e-300"),
	sp("NaN"), sp("Infinity"), sp("-Infinity"), nil, sp("0.95"), sp("0.0095"), sp("5e-7"), sp("2.2250738585072014E-308"),
	sp("0.049999999999999996"), sp("1234.5"), sp("-0.001"), sp("7.0E-10"), sp("31415926.53589793"),
}

// formatStringExprs are format_string and printf over formatTexts: d is
// dbl is the text as a DOUBLE, n the row number.
var formatStringExprs = []string{
	`format_string('%s|%S|%b|%h', dbl, dbl, dbl, dbl)`,
	`format_string('%e|%E|%.0e|%#.0e|%.3e|%.16e', dbl, dbl, dbl, dbl, dbl, dbl)`,
	`format_string('%12.4e|%-12.2e|%012.3e|%+e|%(e|%(015.2e', dbl, dbl, dbl, dbl, dbl, dbl)`,
	`format_string('%f|%.0f|%#.0f|%.1f|%.2f|%.3f|%.12f', dbl, dbl, dbl, dbl, dbl, dbl, dbl)`,
	`format_string('%,f|%,.2f|%+,015.2f|%(,.3f|% .2f|%10.3f|%-10.1f|%010.2f|%(010.2f', dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl)`,
	`format_string('%g|%G|%.0g|%.1g|%.2g|%.3g|%.10g|%,g|%12.3g|%012.4g|%+g|%(g|%.17g', dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl)`,
	`printf('%1$.2f %1$s %<e %2$d', dbl, n)`,
	`format_string('%a|%A|%.0a|%.2a|%.12a|%.14a|%-22a|%022a|% a|%#a', dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl, dbl)`,
	`format_string('%a|%.1a', dbl * 1e-310, CAST(dbl AS FLOAT) * 1e-310)`,
	`format_string('%.3f|%s|%e', CAST(dbl / 1e3 AS FLOAT), CAST(n / 7 AS FLOAT), CAST(dbl / 1e3 AS FLOAT))`,
	`format_string('%.1s|%5.3s|%-8s|%S|%10S', s, s, s, s, s)`,
	`format_string('%d|%5d|%-7d|%07d|%+d|% d|%(d|%,d|%+,012d|%(,9d', n * 987654 - 7000000, n - 17, n * -3, n - 20, n, n, n - 17, n * 123457, -n * 98765, n * -1000)`,
	`format_string('%o|%#o|%x|%X|%#x|%#10X|%08x|%h|%H', n - 17, n - 17, n - 17, n - 17, n, n * 1000, n - 17, n - 17, n)`,
	`format_string('%x|%o|%x|%d', CAST(n - 17 AS TINYINT), CAST(n - 17 AS SMALLINT), CAST(n AS BIGINT) - 17, CAST(n AS TINYINT))`,
	`format_string('%c|%C|%3c|%-3c|', n + 64, n + 95, n + 128512, n + 945)`,
	`format_string('%s|%d|%x|%h', DATE'2026-01-01' + n, DATE'1969-12-01' + n, DATE'1969-12-25' + n, DATE'1969-12-25' + n)`,
	`format_string('%s|%d|%h', timestampadd(DAY, n, TIMESTAMP'2026-01-01 00:00:00'), TIMESTAMP_NTZ'1969-12-31 23:59:59', timestampadd(SECOND, n, TIMESTAMP'1969-12-31 23:59:59'))`,
	`format_string('%s|%s|%s|%S|%b|%5.2s', CAST(n * 7 AS DECIMAL(30, 10)), CAST(n AS DECIMAL(20, 18)), CAST((n - 17) * 1000000 AS DECIMAL(12, 3)), CAST(0.000001 AS DECIMAL(10,8)), CAST(n AS DECIMAL(3,1)), CAST(n AS DECIMAL(4, 2)))`,
	`format_string('%s|%b|%B|%h|%S|%.3s', n > 5, n > 5, n < 5, n > 5, n > 5, n > 5)`,
	`format_string('%s %s %d %f %c %b %h', NULL, s, NULL, NULL, NULL, NULL, NULL)`,
	`format_string('%%|%5%|%-5%|%n|a%sb|%2$s%1$s', n, 'x')`,
	`format_string('%s %s', 'only', 'extra', 'ignored')`,
	`format_string(NULL, n)`,
	`format_string(concat('%', CAST(n % 2 + 1 AS STRING), '$s|%.', CAST(n % 4 AS STRING), 'f|%<e'), dbl, dbl)`,
	`format_string(if(n = 3, NULL, concat(s, ' %s')), n)`,
	`format_string('%S|%s|%.2s|%5s|%-5s|%h|%H', 'straße', '😀x😀', '😀x😀', 'é', '😀', '😀x😀', '')`,
}

// Spark 4 formats as this package does: java.util.Formatter's
// conversions, flags, widths and precisions over every type.
func TestFormatStringAgreesWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec, vals := regexBatch(t, formatTexts)
	var exprs []string
	for _, e := range formatStringExprs {
		exprs = append(exprs, strings.ReplaceAll(e, "dbl", "CAST(s AS DOUBLE)"))
	}
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}

// What Java's Formatter refuses is refused when bound, naming Java's
// exception; a type a conversion does not print fails the row as Java
// fails it, and a value whose digits depend on the JVM version, or an
// argument whose text this engine does not reproduce, is refused.
func TestFormatStringRefusals(t *testing.T) {
	sc, rec, _ := regexBatch(t, []*string{sp("1e23"), sp("1"), nil})
	rels := map[string]*schema.Struct{"": sc}
	for _, c := range []struct{ e, want string }{
		{`format_string('%0$s', n)`, `ZERO_INDEX`},
		{`format_string('%s %s', n)`, `MissingFormatArgumentException`},
		{`format_string('%<s', n)`, `MissingFormatArgumentException`},
		{`format_string('%q', n)`, `UnknownFormatConversionException`},
		{`format_string('%', n)`, `UnknownFormatConversionException`},
		{`format_string('%.2d', n)`, `IllegalFormatPrecisionException`},
		{`format_string('%-d', n)`, `MissingFormatWidthException`},
		{`format_string('%+ d', n)`, `IllegalFormatFlagsException`},
		{`format_string('%--5d', n)`, `DuplicateFormatFlagsException`},
		{`format_string('%#d', n)`, `FormatFlagsConversionMismatchException`},
		{`format_string('%,e', n)`, `FormatFlagsConversionMismatchException`},
		{`format_string('%#s', n)`, `FormatFlagsConversionMismatchException`},
		{`format_string('%.2c', n)`, `IllegalFormatPrecisionException`},
		{`format_string('%5n', n)`, `IllegalFormatWidthException`},
		{`format_string('%tY', n)`, `date/time conversions`},
		{`format_string('%(a', 1.5D)`, `FormatFlagsConversionMismatchException`},
		{`format_string('%s', X'41')`, `not supported`},
		{`format_string('%s', split(s, ','))`, `not supported`},
		{`format_string('%h', 1.5)`, `hash code of Spark's Decimal`},
		{`format_string(s, split(s, ','))`, `not supported`},
		{`format_string('%d', 1.5D)`, `IllegalFormatConversionException: d != java.lang.Double`},
		{`format_string('%f', 1)`, `IllegalFormatConversionException: f != java.lang.Integer`},
		{`format_string('%d', 1.5)`, `d != org.apache.spark.sql.types.Decimal`},
		{`format_string('%c', 65L)`, `c != java.lang.Long`},
		{`format_string('%c', -1)`, `IllegalFormatCodePointException`},
		{`format_string('%+x', 1)`, `FormatFlagsConversionMismatchException`},
	} {
		_, err := BindValue(mustParse(t, c.e), rels)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.e, err, c.want)
		}
	}
	rowsAre(t, rels, rec, []struct{ e, want string }{
		{`format_string('%.2f', CAST(s AS DOUBLE))`, `ERR|1.00|nu`},
		{`format_string('%s', CAST(s AS DOUBLE))`, `ERR|1.0|null`},
		{`format_string('%s', CAST(s AS DOUBLE) * 1e-310)`, `9.999999999999968E-288|ERR|null`},
		{`format_string('%s', CAST(s AS FLOAT) * CAST(1e8 AS FLOAT))`, `1.0E31|ERR|null`},
		{`format_string('%S', concat(s, 'ﬀ'))`, `ERR|ERR|NULL`},
		{`format_string('%d', CAST(s AS DOUBLE))`, `ERR|ERR|null`},
		{`format_string(concat('%', s), n)`, `ERR|ERR|NULL`},
		{`format_string(concat('%', s, '$s'), 'x')`, `ERR|x|NULL`},
	})
}

// Spark formats thousands of doubles as this package does: random bits
// from 2^-1022 to 2^52 and from 2^85, short decimals and ties of every magnitude, with
// the precisions where Java's half-up rounding of its shortest digits
// differs from rounding the binary value.
func TestFormatStringDoublesAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	r := rand.New(rand.NewSource(28))
	var texts []*string
	add := func(x float64) {
		v := strconv.FormatFloat(x, 'e', -1, 64)
		texts = append(texts, &v)
	}
	for i := 0; i < 600; i++ {
		add(math.Float64frombits(r.Uint64()&(1<<52-1) | uint64(1+r.Intn(1074))<<52))   // 2^-1022 to 2^52
		add(math.Float64frombits(r.Uint64()&(1<<52-1) | uint64(1108+r.Intn(938))<<52)) // 2^85 and more
		add(float64(r.Intn(2000001)-1000000) * math.Pow(10, float64(-r.Intn(25))))
		add((float64(r.Intn(100000)) + 0.5) / math.Pow(10, float64(r.Intn(8))))
	}
	sc, rec, vals := regexBatch(t, texts)
	var exprs []string
	for _, f := range []string{"%s", "%e", "%.0e", "%.3e", "%.16e", "%f", "%.0f", "%.1f", "%.2f", "%.5f", "%.20f", "%g", "%.1g", "%.3g", "%.17g", "%,.2f", "%a", "%.1a", "%.3a", "%+020.13A"} {
		exprs = append(exprs, "format_string('"+f+"', CAST(s AS DOUBLE))")
	}
	sparkAgrees(t, s, sc, rec, exprs, vals, "n, s")
}
