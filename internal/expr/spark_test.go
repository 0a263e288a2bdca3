package expr

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// sparkRowsSQL is the columns i8, s, dec, d and f64 of the allTypes rows
// as an inline Spark table, n the row's number.
const sparkRowsSQL = `VALUES
(0, 1Y, 'alpha', CAST(12.34 AS DECIMAL(10,2)), DATE'2026-01-01', 2.5D),
(1, -2Y, 'Beta', CAST(-0.50 AS DECIMAL(10,2)), DATE'2026-01-02', CAST('NaN' AS DOUBLE)),
(2, CAST(NULL AS TINYINT), CAST(NULL AS STRING), CAST(NULL AS DECIMAL(10,2)), CAST(NULL AS DATE), CAST(NULL AS DOUBLE)),
(3, 127Y, 'a%b_c', CAST(99999999.99 AS DECIMAL(10,2)), DATE'1969-12-31', 0.1D),
(4, 0Y, '', CAST(0.00 AS DECIMAL(10,2)), DATE'2000-02-29', -0.0D) AS t(n, i8, s, dec, d, f64)`

// sparkValueExprs are evaluated here and by Spark SQL; values and types
// must agree.
var sparkValueExprs = []string{
	`CASE WHEN i8 > 0 THEN 'pos' WHEN i8 < 0 THEN 'neg' END`,
	`CASE i8 WHEN 1 THEN 'one' WHEN NULL THEN 'null' ELSE 'other' END`,
	`CASE s WHEN 'alpha' THEN 1 WHEN 'Beta' THEN 2 END`,
	`CASE WHEN i8 = 0 OR i8 IS NULL THEN -1 ELSE 100 DIV i8 END`,
	`CASE WHEN i8 = 1 THEN '42' ELSE i8 END`,
	`CASE WHEN i8 > 0 THEN dec ELSE 1.5 END`,
	`CASE WHEN i8 > 0 THEN d ELSE '2000-01-01' END`,
	`if(i8 > 0, s, 'x')`,
	`if(i8 IS NULL OR i8 = 0, NULL, 7 DIV i8)`,
	`nullif(i8, 0)`,
	`nullif(dec, 12.34)`,
	`greatest(i8, 5, NULL)`,
	`least(dec, 1)`,
	`greatest(f64, 1)`,
	`least(s, 'B')`,
	`round(dec, 1)`,
	`round(dec, -1)`,
	`round(dec)`,
	`round(f64, 1)`,
	`round(2.675D, 2)`,
	`round(-2.5)`,
	`round(i8 - 15, -1)`,
	`floor(dec)`,
	`ceil(dec)`,
	`floor(f64)`,
	`ceil(f64)`,
	`concat_ws('-', s, NULL, 'x')`,
	`concat_ws('/', i8, d)`,
	`replace(s, 'a', 'AA')`,
	`replace(s, 'l')`,
	`lpad(s, 7, 'xy')`,
	`rpad(s, 7, 'xy')`,
	`rpad(s, 3)`,
	`lpad(s, 2, '')`,
	`lpad(s, i8)`,
	`date_add(d, 1)`,
	// Arguments Spark casts to INT (or BIGINT) implicitly.
	`substring(s, CAST(i8 AS BIGINT), 2.9D)`,
	`lpad(s, '6', 'x')`,
	`date_add(d, CAST(i8 AS SMALLINT))`,
	`date_sub(d, ' 2 ')`,
	`add_months(d, CAST(i8 AS BIGINT))`,
	`make_date(CAST(2000 + i8 AS BIGINT), 1.9, '2')`,
	`make_timestamp(2024, 1, 2, 3, 4, '5.5')`,
	`timestampadd(SECOND, 3000000000L, CAST(d AS TIMESTAMP))`,
	`timestampadd(HOUR, 1.5, CAST(d AS TIMESTAMP))`,
	`sha2(s, 256.9)`,
	`date_sub(d, i8)`,
	`datediff(d, '2026-01-01')`,
	`hash(i8)`,
	`hash(s)`,
	`hash(dec)`,
	`hash(d)`,
	`hash(f64)`,
	`hash(CAST(i8 AS BIGINT))`,
	`hash(CAST(i8 AS FLOAT))`,
	`hash(CAST(dec AS DECIMAL(30,2)))`,
	`hash(repeat(s, 9))`,
	`hash(i8 > 0)`,
	`hash(i8, s, dec, d, f64)`,
	`pmod(hash(s), 16)`,
	`pmod(i8, 3)`,
	`pmod(i8, 3Y)`,
	`pmod(CAST(i8 AS BIGINT), -3)`,
	`xxhash64(i8)`,
	`xxhash64(s)`,
	`xxhash64(dec)`,
	`xxhash64(d)`,
	`xxhash64(f64)`,
	`xxhash64(CAST(dec AS DECIMAL(30,2)))`,
	`xxhash64(repeat(s, 9))`,
	`xxhash64(i8, s, dec, d, f64)`,
}

// Spark computes the same values, of the same types, as this package for
// CASE and the functions that came with it: one batched query.
func TestValuesAgreeWithSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	peers.Python(t)
	s := peers.Spark(t)
	sc, rec := allTypes(t)
	var cols []string
	for i, e := range sparkValueExprs {
		cols = append(cols, fmt.Sprintf("CAST(%s AS STRING) AS v%d, typeof(%s) AS t%d", e, i, e, i))
	}
	q := "SELECT n, " + strings.Join(cols, ", ") + " FROM " + sparkRowsSQL
	rows := sparkRows(t, s, q, int(rec.NumRows()))
	for i, e := range sparkValueExprs {
		b, err := BindValue(mustParse(t, e), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		ours, theirs := evalValue(t, b, rec), sparkValues(rows, i)
		if strings.Join(ours, "|") != strings.Join(theirs, "|") {
			t.Errorf("%s = %s here, %s in Spark", e, strings.Join(ours, "|"), strings.Join(theirs, "|"))
		}
		if typ, _ := rows[0][fmt.Sprintf("t%d", i)].(string); !strings.EqualFold(typ, typeName(b.Type())) {
			t.Errorf("%s is of type %s here, %s in Spark", e, typeName(b.Type()), typ)
		}
	}
}

// sparkRows runs query q in Spark, whose column n numbers its rows 0 to
// count-1, and returns the rows in that order (the peer sorts them).
func sparkRows(t *testing.T, s *peers.SparkSession, q string, count int) []map[string]any {
	t.Helper()
	got := s.Run(t, peers.Op{"op": "sql", "sql": q})[0].Table(t)
	rows := make([]map[string]any, count)
	for _, row := range got.Rows {
		if n, err := strconv.Atoi(fmt.Sprint(row["n"])); err == nil && n >= 0 && n < len(rows) {
			rows[n] = row
		}
	}
	for i, row := range rows {
		if row == nil {
			t.Fatalf("Spark returned no row %d: %v", i, got.Rows)
		}
	}
	return rows
}

// sparkValues are column v<i> of Spark's rows as text, NULL for a null.
func sparkValues(rows []map[string]any, i int) []string {
	var out []string
	for _, row := range rows {
		v, _ := row[fmt.Sprintf("v%d", i)].(string)
		if row[fmt.Sprintf("v%d", i)] == nil {
			v = "NULL"
		}
		out = append(out, v)
	}
	return out
}

// sparkAgrees checks that Spark computes the values this package computes
// for exprs over rec (of schema sc): one query over the same rows (vals,
// VALUES tuples of the columns cols, n first), each value compared as
// CAST(... AS STRING).
func sparkAgrees(t *testing.T, s *peers.SparkSession, sc *schema.Struct, rec arrow.RecordBatch, exprs, vals []string, cols string) {
	t.Helper()
	sparkAgreesIn(t, s, Session{}, sc, rec, exprs, vals, cols)
}

// sparkAgreesIn is sparkAgrees with the expressions bound in session
// sess, whose zone the Spark session must have.
func sparkAgreesIn(t *testing.T, s *peers.SparkSession, sess Session, sc *schema.Struct, rec arrow.RecordBatch, exprs, vals []string, cols string) {
	t.Helper()
	var sel []string
	for i, e := range exprs {
		sel = append(sel, fmt.Sprintf("CAST(%s AS STRING) AS v%d", e, i))
	}
	q := "SELECT n, " + strings.Join(sel, ", ") + " FROM VALUES " + strings.Join(vals, ", ") + " AS t(" + cols + ")"
	rows := sparkRows(t, s, q, int(rec.NumRows()))
	for i, e := range exprs {
		b, err := sess.BindValue(mustParse(t, "CAST("+e+" AS STRING)"), map[string]*schema.Struct{"": sc})
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		ours, theirs := evalValue(t, b, rec), sparkValues(rows, i)
		if strings.Join(ours, "|") != strings.Join(theirs, "|") {
			t.Errorf("%s:\n here  %s\n Spark %s", e, strings.Join(ours, "|"), strings.Join(theirs, "|"))
		}
	}
}

// jsonBatch is the batch of schema as holding the JSON objects rows.
func jsonBatch(t *testing.T, as *arrow.Schema, rows []string) arrow.RecordBatch {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, as, strings.NewReader("["+strings.Join(rows, ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(rec.Release)
	return rec
}
