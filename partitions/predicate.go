package partitions

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
)

// Filter is one condition of a delta-rs partition filter; Filters writes
// only =, >= and <, with a string value, or an int64 for an integer column.
//
// Deprecated: use scan.Filter.
type Filter = scan.Filter

// Columns returns the table columns def's dimensions are stored in, as e
// maps them: the one column of a single dimension definition, or each
// dimension's column in the order e writes the dimensions (Expr.Order),
// which is the partition column order of a table the asset creates.
func Columns(def Definition, e Expr) ([]string, error) {
	if _, err := dimensions(def, e, nil); err != nil {
		return nil, err
	}
	if e.Columns == nil {
		return []string{e.Column}, nil
	}
	order := e.dimensionOrder()
	cols := make([]string, len(order))
	for i, dim := range order {
		cols[i] = e.Columns[dim]
	}
	return cols, nil
}

// dim is one dimension as a predicate sees it.
type dim struct {
	name  string // "" for a single dimension definition
	def   Definition
	col   string
	ident string      // col quoted for SQL
	typ   schema.Type // nil without a schema: the seed's string bounds
}

func defErr(def Definition) error {
	switch d := def.(type) {
	case *TimeWindow:
		return d.err
	case *StaticKeys:
		return d.err
	case *MultiKeys:
		return d.err
	}
	return nil
}

func dimensions(def Definition, e Expr, sc *schema.Struct) ([]dim, error) {
	if def == nil {
		return nil, invalid("the asset is not partitioned (no partitions definition), but a partition key or expression was given")
	}
	if err := defErr(def); err != nil {
		return nil, err
	}
	if e.IsZero() {
		return nil, invalid("delta/partition_expr is required for a partitioned asset (%s): set it to the partition column's name, or for a multi definition to a JSON object mapping each dimension to its column", def.Kind())
	}
	var dims []dim
	m, isMulti := def.(*MultiKeys)
	switch {
	case !isMulti && e.Columns != nil:
		return nil, invalid("delta/partition_expr %s is a JSON object, but a %s definition has one dimension: set it to the partition column's name", e, def.Kind())
	case !isMulti:
		dims = []dim{{def: def, col: e.Column}}
	case e.Columns == nil:
		return nil, invalid("delta/partition_expr %q is a column name, but the multi definition has dimensions %s: set it to a JSON object mapping each dimension to its column, e.g. %s", e.Column, quoteList(m.names, 0), m.exprExample())
	default:
		for _, name := range m.names {
			col, ok := e.Columns[name]
			if !ok {
				return nil, invalid("delta/partition_expr %s has no column for dimension %q: add \"%s\": \"<column>\"", e, name, name)
			}
			dims = append(dims, dim{name: name, def: m.dims[name], col: col})
		}
		for name := range e.Columns {
			if m.dims[name] == nil {
				return nil, invalid("delta/partition_expr %s maps %q, which is not a dimension of the multi definition (%s)", e, name, quoteList(m.names, 0))
			}
		}
	}
	for i := range dims {
		d := &dims[i]
		d.ident = expr.QuoteIdent(d.col)
		if sc == nil {
			continue
		}
		f := sc.Field(d.col)
		if f == nil {
			names := make([]string, len(sc.Fields))
			for j, f := range sc.Fields {
				names[j] = f.Name
			}
			return nil, invalid("partition column %q (delta/partition_expr) is not a column of the table; its columns are %s", d.col, quoteList(names, 30))
		}
		d.typ = f.Type
	}
	return dims, nil
}

func (m *MultiKeys) exprExample() string {
	cols := map[string]string{}
	for _, n := range m.names {
		cols[n] = n + "_column"
	}
	return Expr{Columns: cols}.String()
}

// runKeys validates the keys of one run and splits multi keys: one row
// per distinct key, one entry per dimension, in the order of dims.
func runKeys(def Definition, dims []dim, keys []string) ([][]string, error) {
	if len(keys) == 0 {
		return nil, invalid("no partition key was given; without one there is no partition to select, so operate on the whole table instead")
	}
	seen := map[string]bool{}
	var rows [][]string
	for _, k := range keys {
		var row []string
		if m, ok := def.(*MultiKeys); ok {
			parts, err := m.Split(k)
			if err != nil {
				return nil, err
			}
			for _, d := range dims {
				row = append(row, parts[d.name])
			}
		} else {
			if err := def.Validate(k); err != nil {
				return nil, err
			}
			row = []string{k}
		}
		id := strings.Join(row, "\x00")
		if !seen[id] {
			seen[id] = true
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// Predicate returns the SQL predicate selecting the partitions of keys
// (the keys of one run) in the columns e maps def's dimensions to.
//
// A time window key gives col >= lo AND col < hi; several keys of a
// single dimension are OR'ed ranges (time) or col IN (...) (static,
// dynamic). Multi dimensions are AND'ed in dimension name order; when the
// keys are the full product of each dimension's values the product is
// factored (a time dimension with several values becoming IN of its keys,
// as rivers writes it); otherwise the keys are grouped by the first
// dimension into factored blocks that are OR'ed.
//
// With sc nil the bounds are the keys' strings (rivers' forms exactly).
// With the table schema they are typed against the column: DATE and
// TIMESTAMP literals (the window's instants with their offset in the
// definition's zone; for a timestamp_ntz column its wall clocks there,
// without offset), numbers for an integer column; and a time
// dimension with several values in a product stays a set of ranges.
func Predicate(def Definition, e Expr, keys []string, sc *schema.Struct) (string, error) {
	dims, err := dimensions(def, e, sc)
	if err != nil {
		return "", err
	}
	rows, err := runKeys(def, dims, keys)
	if err != nil {
		return "", err
	}
	p := planner{dims: dims}
	s, _, err := p.factor(rows, 0)
	return s, err
}

// Filters returns the same partitions as delta-rs partition filters in
// disjunctive normal form: one conjunction per key, dimensions in name
// order.
func Filters(def Definition, e Expr, keys []string, sc *schema.Struct) ([][]scan.Filter, error) {
	dims, err := dimensions(def, e, sc)
	if err != nil {
		return nil, err
	}
	rows, err := runKeys(def, dims, keys)
	if err != nil {
		return nil, err
	}
	out := make([][]scan.Filter, 0, len(rows))
	for _, row := range rows {
		var conj []scan.Filter
		for i, d := range dims {
			if w, ok := d.def.(*TimeWindow); ok {
				lo, hi, err := d.timeBounds(w, row[i])
				if err != nil {
					return nil, err
				}
				conj = append(conj, scan.Filter{Column: d.col, Op: ">=", Value: lo.value}, scan.Filter{Column: d.col, Op: "<", Value: hi.value})
				continue
			}
			v, err := d.keyValue(row[i])
			if err != nil {
				return nil, err
			}
			conj = append(conj, scan.Filter{Column: d.col, Op: "=", Value: v.value})
		}
		out = append(out, conj)
	}
	return out, nil
}

type planner struct{ dims []dim }

// factor writes the predicate of rows over dims[from:]; or reports
// whether the text is a disjunction (to be parenthesized inside an AND).
func (p planner) factor(rows [][]string, from int) (text string, or bool, err error) {
	if cartesian(rows, from, len(p.dims)) {
		var parts []string
		for j := from; j < len(p.dims); j++ {
			t, tor, err := p.term(p.dims[j], distinct(rows, j))
			if err != nil {
				return "", false, err
			}
			parts = append(parts, paren(t, tor && len(p.dims)-from > 1))
		}
		return strings.Join(parts, " AND "), false, nil
	}
	// Group by this dimension's value, merging the values whose other
	// dimensions hold the same set of keys.
	type block struct {
		values []string
		rows   [][]string
	}
	var blocks []*block
	bySig := map[string]*block{}
	for _, v := range distinct(rows, from) {
		var rest [][]string
		var sig []string
		for _, r := range rows {
			if r[from] == v {
				rest = append(rest, r)
				sig = append(sig, strings.Join(r[from+1:], "\x00"))
			}
		}
		slices.Sort(sig)
		id := strings.Join(sig, "\x01")
		if b := bySig[id]; b != nil {
			b.values = append(b.values, v)
			b.rows = append(b.rows, rest...)
			continue
		}
		b := &block{values: []string{v}, rows: rest}
		bySig[id] = b
		blocks = append(blocks, b)
	}
	var parts []string
	for _, b := range blocks {
		head, hor, err := p.term(p.dims[from], b.values)
		if err != nil {
			return "", false, err
		}
		sub, sor, err := p.factor(b.rows, from+1)
		if err != nil {
			return "", false, err
		}
		parts = append(parts, paren(head, hor)+" AND "+paren(sub, sor))
	}
	if len(parts) == 1 {
		return parts[0], false, nil
	}
	for i := range parts {
		parts[i] = "(" + parts[i] + ")"
	}
	return strings.Join(parts, " OR "), true, nil
}

func paren(s string, yes bool) string {
	if yes {
		return "(" + s + ")"
	}
	return s
}

// cartesian reports whether rows, over columns [from, to), are exactly
// the product of each column's distinct values.
func cartesian(rows [][]string, from, to int) bool {
	seen := map[string]bool{}
	for _, r := range rows {
		seen[strings.Join(r[from:to], "\x00")] = true
	}
	n := 1
	for j := from; j < to; j++ {
		n *= len(distinct(rows, j))
		if n > len(seen) {
			return false
		}
	}
	return n == len(seen)
}

// distinct is column j's values in order of first appearance.
func distinct(rows [][]string, j int) []string {
	var out []string
	for _, r := range rows {
		if !slices.Contains(out, r[j]) {
			out = append(out, r[j])
		}
	}
	return out
}

// term is one dimension's predicate for a set of its keys.
func (p planner) term(d dim, keys []string) (string, bool, error) {
	w, isTime := d.def.(*TimeWindow)
	if !isTime {
		vals := make([]string, len(keys))
		for i, k := range keys {
			v, err := d.keyValue(k)
			if err != nil {
				return "", false, err
			}
			vals[i] = v.sql
		}
		return in(d.ident, vals), false, nil
	}
	ranges := make([]string, len(keys))
	days := make([]string, len(keys)) // DATE literals, when every window is one whole day
	for i, k := range keys {
		lo, hi, err := d.timeBounds(w, k)
		if err != nil {
			return "", false, err
		}
		ranges[i] = d.ident + " >= " + lo.sql + " AND " + d.ident + " < " + hi.sql
		if days != nil && lo.oneDay {
			days[i] = lo.sql
		} else {
			days = nil
		}
	}
	switch {
	case len(keys) == 1:
		return ranges[0], false, nil
	case d.typ == nil && len(p.dims) > 1:
		// rivers: a time dimension with several values in a product is
		// IN of its key strings.
		quoted := make([]string, len(keys))
		for i, k := range keys {
			quoted[i] = sqlString(k)
		}
		return in(d.ident, quoted), false, nil
	case days != nil && len(p.dims) > 1:
		return in(d.ident, days), false, nil
	}
	for i := range ranges {
		ranges[i] = "(" + ranges[i] + ")"
	}
	return strings.Join(ranges, " OR "), true, nil
}

func in(ident string, vals []string) string {
	if len(vals) == 1 {
		return ident + " = " + vals[0]
	}
	return ident + " IN (" + strings.Join(vals, ", ") + ")"
}

// sqlString quotes s as a SQL string literal: ' doubled (rivers' form,
// which Spark 4 and this engine read) and \ escaped, which Spark and this
// engine would otherwise read as an escape.
func sqlString(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}

// literal is one bound: its SQL text and its partition filter value.
type literal struct {
	sql    string
	value  any
	oneDay bool // a DATE lower bound whose window is exactly that day
}

// columnClass groups column types by how bounds compare with them.
func columnClass(t schema.Type) string {
	p, ok := t.(*schema.Primitive)
	switch {
	case t == nil:
		return "untyped"
	case !ok:
		return "other"
	}
	switch p.Name {
	case schema.Byte, schema.Short, schema.Integer, schema.Long:
		return "integer"
	}
	return p.Name
}

// timeBounds are the bounds of key's window for d's column.
func (d dim) timeBounds(w *TimeWindow, key string) (lo, hi literal, err error) {
	start, end, err := w.Window(key)
	if err != nil {
		return lo, hi, d.keyErr(err)
	}
	switch class := columnClass(d.typ); class {
	case "untyped", schema.String:
		// Both bounds in the key format, compared as strings, as rivers does.
		a, b := w.layout.format(start), w.layout.format(end)
		return literal{sql: sqlString(a), value: a}, literal{sql: sqlString(b), value: b}, nil
	case schema.Date:
		if !isMidnight(start) || !isMidnight(end) {
			return lo, hi, invalid("partition column %q is a date, but the %s window of key %q runs from %s to %s, not from midnight to midnight; store the partition in a timestamp or string column",
				d.col, w.kind, key, start.Format(time.DateTime), end.Format(time.DateTime))
		}
		a, b := start.Format(time.DateOnly), end.Format(time.DateOnly)
		oneDay := time.Date(start.Year(), start.Month(), start.Day()+1, 0, 0, 0, 0, start.Location()).Equal(end)
		return literal{sql: "DATE '" + a + "'", value: a, oneDay: oneDay}, literal{sql: "DATE '" + b + "'", value: b}, nil
	case schema.Timestamp:
		return timestampLiteral(start), timestampLiteral(end), nil
	case schema.TimestampNTZ:
		return ntzLiteral(start), ntzLiteral(end), nil
	case "integer":
		a, aerr := strconv.ParseInt(w.layout.format(start), 10, 64)
		b, berr := strconv.ParseInt(w.layout.format(end), 10, 64)
		if aerr != nil || berr != nil {
			return lo, hi, invalid("partition column %q is an integer, but keys in format %q are not whole numbers (key %q); use a format such as \"%%Y\" or a string, date or timestamp column", d.col, w.layout.src, key)
		}
		return literal{sql: strconv.FormatInt(a, 10), value: a}, literal{sql: strconv.FormatInt(b, 10), value: b}, nil
	default:
		return lo, hi, invalid("partition column %q is %s; a time window dimension needs a date, timestamp, timestamp_ntz, string or integer column", d.col, d.typ)
	}
}

func isMidnight(t time.Time) bool { return t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 }

// timestampLiteral is the instant t with its offset in the definition's
// zone, which Spark and this engine read whatever their session zone.
func timestampLiteral(t time.Time) literal {
	v, _ := schema.FormatPartitionValue(&schema.Primitive{Name: schema.Timestamp}, arrow.Timestamp(t.UnixMicro()))
	return literal{sql: "TIMESTAMP '" + t.Format("2006-01-02 15:04:05-07:00") + "'", value: v}
}

// ntzLiteral is t's wall clock in the definition's zone (a timestamp
// without zone holds wall clocks), as a TIMESTAMP literal without zone:
// Spark and this engine compare it with the column as wall clocks, and
// DataFusion (delta-rs) reads no TIMESTAMP_NTZ literal.
func ntzLiteral(t time.Time) literal {
	wallUTC := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, time.UTC)
	v, _ := schema.FormatPartitionValue(&schema.Primitive{Name: schema.TimestampNTZ}, arrow.Timestamp(wallUTC.UnixMicro()))
	return literal{sql: "TIMESTAMP '" + wallUTC.Format(time.DateTime) + "'", value: v}
}

// keyValue is a static or dynamic key as a value of d's column: a number
// for an integer column, else a string.
func (d dim) keyValue(key string) (literal, error) {
	if columnClass(d.typ) == "integer" {
		v, ok, err := schema.ParsePartitionValue(d.typ, key)
		n, isInt := toInt64(v)
		if err != nil || !ok || !isInt {
			return literal{}, invalid("partition key %q is not a whole number, but partition column %q is %s", key, d.col, d.typ)
		}
		return literal{sql: strconv.FormatInt(n, 10), value: n}, nil
	}
	return literal{sql: sqlString(key), value: key}, nil
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int16:
		return int64(x), true
	case int8:
		return int64(x), true
	}
	return 0, false
}

// keyErr names the dimension a key error is about.
func (d dim) keyErr(err error) error {
	if d.name == "" {
		return err
	}
	return invalid("dimension %q: %s", d.name, unwrapMsg(err))
}
