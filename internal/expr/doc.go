// Package expr is the SQL predicate layer: it parses the Spark SQL
// expression subset that Delta operations take as text (replaceWhere,
// DELETE and MERGE conditions, update values), binds it against one or
// more named Delta schemas with Spark's coercion rules, evaluates it on
// Arrow record batches with SQL three-valued logic, decides from partition
// values and file statistics whether a file can hold a matching row, and
// renders a bound expression back to canonical SQL text.
//
// The flow is Parse (text to Expr), Bind (Expr to *Bound, against
// relation schemas), then any of Eval / Filter / FilterNot (rows),
// Decide / EvalPartition / CanSkip (files) and String (commit info).
// ParsePredicate and Compile do the first two steps at once and name the
// column of the input in their errors. BindValue binds a value of any
// type and Assign brings it to a column's type with Spark's store
// assignment (UPDATE SET, INSERT VALUES). SplitAnd and And split a
// condition into its conjuncts and join them back (a MERGE's join keys,
// one-side filters and residual).
//
// Grammar: comparisons (= == != <> < <= > >= and null-safe <=>), AND, OR,
// NOT (also !), parentheses, [NOT] IN (...), [NOT] BETWEEN a AND b,
// IS [NOT] NULL / TRUE / FALSE / UNKNOWN, IS [NOT] DISTINCT FROM,
// [NOT] LIKE / ILIKE with % and _ and ESCAPE (and ANY / SOME / ALL of a
// list of patterns), arithmetic + - * / % DIV, bitwise & | ^ ~ and
// || on strings, trim(BOTH|LEADING|TRAILING [chars] FROM s),
// position(sub IN s), overlay(s PLACING r FROM p [FOR l]), CAST(x AS type) and x::type; literals: integers, decimals,
// floats (1e3) with Spark's suffixes (10L, 1S, 1Y, 2.5D, 2.5F, 1.5BD),
// strings in single or double quotes with backslash escapes (a doubled
// quote character stands for one; adjacent strings join), X'hex', TRUE,
// FALSE, NULL, DATE '...', TIMESTAMP '...' and TIMESTAMP_NTZ '...';
// identifiers plain or `backquoted`, dotted for a
// relation qualifier (s.id) or struct fields (a.b.c), matched
// case-insensitively; CASE WHEN c THEN v ... [ELSE v] END and
// CASE x WHEN a THEN v ... [ELSE v] END; functions lower, upper, trim,
// ltrim, rtrim, length, coalesce, ifnull, nvl, if, nullif, greatest,
// least, abs, round, floor, ceil (ceiling), substring, substr, concat,
// concat_ws, replace, lpad, rpad, date, to_date, year, month, day,
// date_add, date_sub, datediff, current_date, current_timestamp (also
// now; both also without parentheses), isnull, isnotnull, startswith,
// endswith, contains.
//
// CASE, IF, GREATEST and LEAST take their values' wider common type as
// Spark does (a string meeting an integer gives a BIGINT). A CASE branch,
// and every condition after the first, is evaluated only on the rows that
// reach it, so CASE WHEN d = 0 THEN NULL ELSE n / d END never divides by
// zero; a constant that fails there is left to fail at run time. ROUND
// rounds half up (a double as its shortest decimal text, as Spark does).
// CURRENT_DATE() and CURRENT_TIMESTAMP() are read once when the
// expression is bound: every row of an operation sees the same instant,
// as every row of a Spark query does.
//
// Semantics follow Spark with ANSI mode on (Spark 4's default): integer
// overflow, division by zero and a cast of an invalid string are errors,
// never silent nulls; a string literal compared with a date, timestamp,
// number or boolean column is parsed as that type when the predicate is
// bound; / on integers divides as doubles. An expression is bound in a
// Session, whose time zone (Spark's spark.sql.session.timeZone; UTC by
// default, since a table records no zone) is fixed then and carried in
// the Bound: a timestamp literal or text without a zone is a local time
// there, and date(ts), hour(ts), date_format, date_trunc, from_unixtime,
// unix_timestamp, to_timestamp, months_between, timestampadd by days and
// more, timestampdiff and the casts of a TIMESTAMP to a DATE, a
// TIMESTAMP_NTZ or a string take its local date and time, daylight-saving
// gaps and overlaps resolved as java.time resolves them. Floats order as Spark orders them: NaN equals NaN and sorts
// above every number; -0.0 equals 0.0.
//
// File decisions are conservative: a file is ruled out only when no
// content its log entry allows could match. A float column's bounds are
// trusted as Spark's data skipping trusts them (Spark and this engine write
// no usable max when a NaN is present), so they rule out x > v; they never
// prove x < v or x = v true for every row, which a NaN row would break.
//
// Every failure is an *errs.Error: InvalidArgument for a predicate that does
// not parse, bind or evaluate. No panic reaches a caller. The package never
// does I/O and keeps no global mutable state; evaluation allocates through
// the allocator carried by the context (exec.WithAllocator of arrow's
// compute/exec package), else the default one.
package expr
