package expr

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// strExprs are the functions of strfuncs.go, evaluated here and by Spark
// over timeRows.
var strExprs = []string{
	`md5(s)`, `sha1(s2)`, `sha(s)`, `sha2(s, 256)`, `sha2(s2, 512)`, `sha2(s, 224)`, `sha2(s, 384)`, `sha2(s, 0)`, `sha2(s, 1)`,
	`crc32(s)`, `base64(s2)`, `hex(s2)`, `hex(sec)`, `hex(n - 3)`, `md5(concat(s, 'é'))`,
	`left(s, 4)`, `right(s2, 4)`, `left(s, 0)`, `right(s, 100)`, `left(s2, -2)`, `repeat(s2, 2)`, `repeat(s2, -1)`,
	`reverse(concat(s2, 'ñ'))`, `instr(s, '-')`, `instr(s2, '/20')`, `instr(s, 'zz')`, `instr(concat('ñ', s), '2')`,
	`ascii(s2)`, `ascii('')`, `ascii(concat('é', s))`, `initcap(concat('hello wORLD  x-y ', s2))`,
	`pmod(sec, 7)`, `pmod(n - 3, 4)`, `pmod(-7, n + 1)`,
}

// Spark 4 computes the same values as this package for the functions of
// strfuncs.go, morefuncs.go and zonefuncs.go (daylight-saving gaps and
// overlaps included).
func TestStringFunctionsAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	sc, rec := timeBatch(t)
	s := peers.Spark(t)
	sparkAgrees(t, s, sc, rec, strExprs, timeValues(), "n, ts, ts2, d, s, s2, sec")
	sparkAgrees(t, s, sc, rec, moreExprs, timeValues(), "n, ts, ts2, d, s, s2, sec")
}

// pmod by zero fails as Spark's ANSI mode fails it; a number is no string
// to hash; a time zone must be one.
func TestStringFunctionRefusals(t *testing.T) {
	sc, rec := timeBatch(t)
	row := rec.NewSlice(0, 1)
	defer row.Release()
	b, err := BindValue(mustParse(t, `pmod(sec, n - 0)`), map[string]*schema.Struct{"": sc})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Eval(t.Context(), row); err == nil || !strings.Contains(err.Error(), "division by zero") {
		t.Errorf("pmod by zero: %v", err)
	}
	if _, err := BindValue(mustParse(t, `md5(n)`), map[string]*schema.Struct{"": sc}); err == nil || !strings.Contains(err.Error(), "md5 needs a string or binary") {
		t.Errorf("md5(n): %v", err)
	}
	if _, err := BindValue(mustParse(t, `from_utc_timestamp(ts, 'Mars/Olympus')`), map[string]*schema.Struct{"": sc}); err == nil || !strings.Contains(err.Error(), `unknown time zone "Mars/Olympus"`) {
		t.Errorf("an unknown zone: %v", err)
	}
}

// moreExprs are the functions of morefuncs.go, evaluated here and by
// Spark over timeRows.
var moreExprs = []string{
	`substring_index(s, '-', 2)`, `substring_index(s, '-', -1)`, `substring_index(s2, '/', 5)`, `substring_index(s2, '/', -5)`,
	`substring_index('aaaa', 'aa', 2)`, `substring_index('aaaa', 'aa', -2)`, `substring_index(s, '', 1)`, `substring_index(s, ':', 0)`,
	`locate('0', s)`, `locate('0', s, 3)`, `locate('', s)`, `locate('0', s, 0)`, `locate('x', s2)`, `position('/', concat('ñ', s2))`,
	`locate('', s, 30)`, `translate(s, '-:0', '/_')`, `translate(concat('ñab', s2), 'ñb/', 'nB')`, `space(n)`, `concat('[', space(n - 3), ']')`,
	`octet_length(concat('é', s))`, `bit_length(s2)`, `chr(n + 64)`, `char(n + 320)`, `chr(n - 3)`, `chr(256)`,
	`levenshtein(s, s2)`, `levenshtein(s2, 'ñ')`, `nvl2(s, n, -1)`, `nvl2(s, 'x', 'y')`,
	`isnan(CAST('NaN' AS DOUBLE) + n)`, `isnan(sqrt(n - 3))`, `nanvl(sqrt(n - 3), -1)`, `sign(n - 3)`, `signum(sec)`, `sqrt(sec)`,
	`bin(n - 3)`, `bin(sec)`, `shiftleft(n, 31)`, `shiftleft(sec, 33)`, `shiftright(n - 3, 1)`, `shiftrightunsigned(n - 3, 28)`,
	`shiftrightunsigned(sec, 65)`,
	`from_utc_timestamp(TIMESTAMP '2024-03-10 07:30:00', 'America/New_York')`,
	`to_utc_timestamp(TIMESTAMP '2024-03-10 02:30:00', 'America/New_York')`,
	`to_utc_timestamp(TIMESTAMP '2024-11-03 01:30:00', 'America/New_York')`,
	`to_utc_timestamp(TIMESTAMP '2024-11-03 00:59:59.999999', 'America/New_York')`,
	`to_utc_timestamp(TIMESTAMP '2024-10-06 02:15:00', 'Australia/Lord_Howe')`,
	`to_utc_timestamp(TIMESTAMP '2024-04-07 01:45:00', 'Australia/Lord_Howe')`,
	`to_utc_timestamp(ts, 'Asia/Kolkata')`, `from_utc_timestamp(ts, '+08:00')`, `from_utc_timestamp(ts2, 'Europe/Paris')`,
	`to_utc_timestamp(ts2, 'Europe/Paris')`, `to_utc_timestamp(ts, 'UTC')`, `from_utc_timestamp(d, 'Australia/Lord_Howe')`,
	`from_utc_timestamp(ts, '-3')`, `from_utc_timestamp(ts, 'GMT+05:30')`, `to_utc_timestamp(ts, 'America/Sao_Paulo')`,
}
