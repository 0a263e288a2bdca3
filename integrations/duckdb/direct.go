//go:build duckdb_arrow

package duckdbio

// DuckDB's own Parquet reader reads a data file faster than arrow-go's
// reader and the hand-over of Arrow batches together (about half the CPU;
// bench/README.md). So delta_scan lets DuckDB read the files it can read
// exactly, and reads the others itself:
//
//   - delta_scan(...) is a table macro over DuckDB's query() of the SQL
//     that the scalar function deltalite_scan_plan_N returns for the call.
//     DuckDB folds a non-volatile function of constants while it binds, so
//     the plan runs once per query, at bind: it opens the table (version,
//     timestamp), prunes the files with the filter (partition values,
//     statistics) and writes the SQL.
//   - The SQL is a UNION ALL of the table function deltalite_scan_N over
//     the files deltalite reads (given by a token of the plan, which the
//     function's binds take), and read_parquet calls of the files DuckDB
//     reads, each column read by its physical name (column mapping) and
//     cast to the type delta_scan declares. The files whose paths spell
//     the log's partition values exactly (col=value/..., hivePath) share
//     one read_parquet that reads them from the paths (hive_partitioning
//     with the columns' types); the others get a read_parquet per set of
//     partition values, each partition column a constant of the log's
//     value. One read_parquet instead of one per partition costs DuckDB
//     less to bind and to run (bench/README.md). A data column no file of
//     a read_parquet holds reads as NULL (directGroup.write).
//   - DuckDB reads a file when it reads every row of it exactly as the
//     scan would: the table is on the local file system (DuckDB opens the
//     path itself, offline, so its enable_external_access must be on),
//     every column has a primitive type (booleans, integers, floats,
//     strings, binary, dates, decimals, microsecond timestamps, read
//     through epoch microseconds whatever the file's timestamp type), the
//     file has no deletion vector, the log proves that every row matches
//     the filter (the scan filters the rows of the others), its statistics
//     count its rows and name every data column (a file written before a
//     column was added lacks it), and its path holds no glob character. A
//     table with a timestamp data column gets a read_parquet per file (up
//     to maxFileBranches). deltalite reads the rest, as before
//     (ScanOptions.ArrowOnly: all of them).
//
// The table function comes first in the UNION ALL, so its columns name the
// result and its bind takes the token before anything else can fail.
// DuckDB's optimizer pushes the query's projection into every branch, its
// filters into read_parquet (row groups skipped by their statistics) and
// drops a branch whose partition constants fail the WHERE clause.

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"weak"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// plannedScan is what the plan of a delta_scan call leaves to deltalite's
// scan: the files it reads, and the call's stat, recorded once the table
// function runs.
type plannedScan struct {
	call  *call
	files []*protocol.Add
	stat  *ScanStat
	once  sync.Once
}

// pendingPlan is a plan not yet taken by the table function of its SQL,
// with the DuckDB connection that planned it.
type pendingPlan struct {
	plan *plannedScan
	conn int64
	seq  int64 // the token's number: the order plans were made in
}

// maxPending bounds the plans awaiting their table function. A plan is
// taken microseconds after it is made (in the same bind of the same
// query), so pending plans are as many as the queries binding at once;
// past the bound the oldest are dropped.
const maxPending = 256

// The plans of delta_scan calls by token: pending from the plan until the
// table function of its SQL binds; then held weakly, for as long as a
// source reads it, because DuckDB may bind the same SQL again within the
// query (a CTE inlined at each reference) without planning it again.
//
// A query that fails or stops between a plan and its bind (the plan
// function called by itself, an interrupt) leaves its plan pending: the
// next plan on the same connection drops it. A connection binds one query
// at a time, and a query binds the SQL of each plan right after making it,
// before it plans another delta_scan call, so when a connection plans, any
// plan it left pending is abandoned.
var (
	planMu     sync.Mutex
	pending    = map[string]pendingPlan{}
	bound      = map[string]weak.Pointer[plannedScan]{}
	planTokens atomic.Int64
)

// putPlan records p, planned on DuckDB connection conn, and returns its
// token.
func putPlan(p *plannedScan, conn int64) string {
	seq := planTokens.Add(1)
	token := strconv.FormatInt(seq, 10)
	planMu.Lock()
	defer planMu.Unlock()
	sweepBound()
	for k, e := range pending {
		if e.conn == conn {
			delete(pending, k)
		}
	}
	for len(pending) >= maxPending {
		oldest, seqMin := "", int64(math.MaxInt64)
		for k, e := range pending {
			if e.seq < seqMin {
				oldest, seqMin = k, e.seq
			}
		}
		delete(pending, oldest)
	}
	pending[token] = pendingPlan{plan: p, conn: conn, seq: seq}
	return token
}

// sweepBound forgets the bound plans no source holds any more; planMu is
// held.
func sweepBound() {
	for k, w := range bound {
		if w.Value() == nil {
			delete(bound, k)
		}
	}
}

func takePlan(token string) (*plannedScan, bool) {
	planMu.Lock()
	defer planMu.Unlock()
	if e, ok := pending[token]; ok {
		delete(pending, token)
		bound[token] = weak.Make(e.plan)
		return e.plan, true
	}
	if p := bound[token].Value(); p != nil {
		return p, true
	}
	delete(bound, token)
	return nil, false
}

// planCounts are the plans pending and bound (those a source holds).
func planCounts() (pendingPlans, boundPlans int) {
	planMu.Lock()
	defer planMu.Unlock()
	sweepBound()
	return len(pending), len(bound)
}

// planFunction is the scalar function deltalite_scan_plan_N(uri, version,
// version_given, timestamp, timestamp_given, filter, external_access,
// connection_id): the SQL of a delta_scan call over the table function raw.
// external_access is DuckDB's enable_external_access: without it DuckDB may
// not open files, and our scan reads them all. connection_id (DuckDB's
// current_connection_id()) lets the plans of abandoned queries be dropped
// (putPlan).
type planFunction struct {
	opts    ScanOptions
	raw     string
	in      []duckdb.TypeInfo
	varchar duckdb.TypeInfo
}

func newPlanFunction(opts ScanOptions, raw string) (*planFunction, error) {
	ti, err := types(duckdb.TYPE_VARCHAR, duckdb.TYPE_BIGINT, duckdb.TYPE_BOOLEAN)
	if err != nil {
		return nil, err
	}
	varchar, bigint, boolean := ti[0], ti[1], ti[2]
	return &planFunction{opts: opts, raw: raw, varchar: varchar,
		in: []duckdb.TypeInfo{varchar, bigint, boolean, varchar, boolean, varchar, boolean, bigint}}, nil
}

// Config: not volatile, so that DuckDB folds the call while binding.
func (f *planFunction) Config() duckdb.ScalarFuncConfig {
	return duckdb.ScalarFuncConfig{InputTypeInfos: f.in, ResultTypeInfo: f.varchar}
}

func (f *planFunction) Executor() duckdb.ScalarFuncExecutor {
	return duckdb.ScalarFuncExecutor{RowContextExecutor: func(ctx context.Context, v []driver.Value) (any, error) {
		named := map[string]any{"version": v[1], "version_given": v[2], "timestamp": v[3], "timestamp_given": v[4], "filter": v[5]}
		external, _ := v[6].(bool)
		conn, _ := v[7].(int64)
		q, err := planSQL(ctx, f.opts, f.raw, named, []any{v[0]}, external, conn)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", FunctionName, err)
		}
		return q, nil
	}}
}

// maxFileBranches bounds the read_parquet calls of a plan that reads each
// file on its own (timestamp columns): DuckDB binds each, reading its
// footer, on one thread.
const maxFileBranches = 256

// directColumn is a column of the table as read_parquet gives it.
type directColumn struct {
	name, physical string
	sqlType        string
	// timestamp is the function that makes the column's type of epoch
	// microseconds (make_timestamptz, make_timestamp) for a timestamp
	// column, "" for the others.
	timestamp string
	partition *schema.Field // the partition column, nil for a data column
}

// value is the SQL expression of the column in a read_parquet branch whose
// partition constants are consts.
func (c directColumn) value(consts []string, i int) string {
	switch {
	case c.partition != nil:
		return consts[i]
	case c.timestamp != "":
		// A file may store the column as INT96 (DuckDB reads a wall-clock
		// TIMESTAMP of UTC) or as instants (TIMESTAMPTZ): epoch_us reads
		// both as microseconds of UTC, where a cast between the two would
		// take the session's time zone.
		return fmt.Sprintf("%s(epoch_us(f.%s))", c.timestamp, quoteIdent(c.physical))
	}
	// f.: the file's column, never an alias of the select list.
	return fmt.Sprintf("CAST(f.%s AS %s)", quoteIdent(c.physical), c.sqlType)
}

// planSQL opens the table of a delta_scan call, plans its files and
// returns the SQL that reads them (see the top of the file); conn is
// DuckDB's id of the connection of the call.
func planSQL(ctx context.Context, opts ScanOptions, raw string, named map[string]any, args []any, external bool, conn int64) (string, error) {
	c, err := openCall(ctx, opts, named, args)
	if err != nil {
		return "", err
	}
	plan, err := c.explain(ctx)
	if err != nil {
		return "", err
	}
	stat := &ScanStat{URI: c.uri, Version: c.snap.Version(), Filter: c.filter,
		FilesLive: c.snap.NumFiles(), FilesRead: len(plan.Files), FilesSkipped: len(plan.Skipped)}
	cols, root, direct := directColumns(c)
	direct = direct && external
	var (
		ours   []*protocol.Add
		groups = map[string]*directGroup{}
		order  []*directGroup
	)
	// A timestamp data column may be INT96 in one file (a wall-clock
	// TIMESTAMP to DuckDB) and instants in another; one read_parquet of
	// both would cast one type to the other in the session's time zone.
	// So such a table gets a read_parquet per file, for up to
	// maxFileBranches files; our scan reads the others.
	perFile := slices.ContainsFunc(cols, func(c directColumn) bool { return c.timestamp != "" && c.partition == nil })
	// Files whose paths spell the log's partition values share one
	// read_parquet that takes them from the paths (hivePath).
	hive := !perFile && !strings.Contains(root, "=") && slices.ContainsFunc(cols, func(c directColumn) bool { return c.partition != nil })
	for _, f := range plan.Files {
		rows, ok := int64(0), false
		path := filepath.Join(root, filepath.FromSlash(f.Key))
		if direct && !strings.ContainsAny(path, "*?[]{}") && (!perFile || stat.FilesDirect < maxFileBranches) {
			rows, ok = directFile(f, cols)
		}
		if !ok {
			ours = append(ours, f.Add)
			continue
		}
		var key string
		var consts []string
		switch {
		case hive && hivePath(f.Key, cols, f.Add):
			key = "\x00hive"
		default:
			if consts, key, err = partitionConstants(cols, f.Add); err != nil {
				return "", err
			}
			if perFile {
				key = path
			}
		}
		g := groups[key]
		if g == nil {
			g = &directGroup{consts: consts, hive: consts == nil}
			groups[key] = g
			order = append(order, g)
		}
		g.files = append(g.files, quote(path))
		stat.FilesDirect++
		stat.Rows += rows
	}
	token := putPlan(&plannedScan{call: c, files: ours, stat: stat}, conn)
	var b strings.Builder
	fmt.Fprintf(&b, `SELECT * FROM %s('', version => 0, version_given => false, "timestamp" => '', timestamp_given => false, filter => '', plan => %s)`, raw, quote(token))
	for _, g := range order {
		b.WriteString("\nUNION ALL ")
		g.write(&b, cols)
	}
	return b.String(), nil
}

// directGroup is a read_parquet of a plan: files with the same partition
// values, given as constants, or with hive files whose paths hold their
// partition values.
type directGroup struct {
	consts []string // per column, the partition constant ("" for a data column); nil with hive
	hive   bool
	files  []string // quoted paths
}

// write writes the SELECT of g's files, each column as cols declares it.
//
// A file may lack a data column whose statistics the log gives (the
// kernel-rs corpus's parsed-stats table: values for a timestamp column its
// files do not hold), and read_parquet's union by name has no column that
// none of its files hold. So its rows are unioned by name with an empty
// row of every data column: a column no file holds is NULL, as Delta reads
// a missing column. Its columns take their type from the files
// (union by name over NULL); a timestamp column's empty value is a DATE,
// which widens to whichever timestamp type the files hold without a time
// zone conversion, and epoch_us still reads it.
func (g *directGroup) write(b *strings.Builder, cols []directColumn) {
	b.WriteString("SELECT ")
	for i, col := range cols {
		if i > 0 {
			b.WriteString(", ")
		}
		v := ""
		if g.hive && col.partition != nil {
			v = "f." + quoteIdent(col.physical) // typed by hive_types
		} else {
			v = col.value(g.consts, i)
		}
		fmt.Fprintf(b, "%s AS %s", v, quoteIdent(col.name))
	}
	b.WriteString(" FROM (")
	var empty []string
	for _, col := range cols {
		switch {
		case col.partition != nil:
		case col.timestamp != "":
			empty = append(empty, "CAST(NULL AS DATE) AS "+quoteIdent(col.physical))
		default:
			empty = append(empty, "NULL AS "+quoteIdent(col.physical))
		}
	}
	if len(empty) > 0 {
		b.WriteString("SELECT " + strings.Join(empty, ", ") + " WHERE false UNION ALL BY NAME ")
	}
	fmt.Fprintf(b, "SELECT * FROM read_parquet([%s], union_by_name = true, ", strings.Join(g.files, ", "))
	if !g.hive {
		b.WriteString("hive_partitioning = false)) AS f")
		return
	}
	var types []string
	for _, col := range cols {
		if col.partition != nil {
			types = append(types, quote(col.physical)+": "+quote(col.sqlType))
		}
	}
	fmt.Fprintf(b, "hive_partitioning = true, hive_types = {%s}, hive_types_autocast = false)) AS f", strings.Join(types, ", "))
}

// hivePath reports whether DuckDB's hive partitioning reads the log's
// partition values of add from its path key exactly: the path is
// col=value/... for the partition columns in order (physical names, as
// writers name the directories), each value the log's text, not null, of
// characters no writer escapes, and of a type whose text DuckDB's cast
// reads as the scan parses it (integers, strings, dates, booleans,
// decimals of no more digits than the type holds). The file name has no "=". The caller checks that the table's
// root has no "=" (DuckDB reads every key=value directory of the path).
func hivePath(key string, cols []directColumn, add *protocol.Add) bool {
	segs := strings.Split(key, "/")
	segs, file := segs[:len(segs)-1], segs[len(segs)-1]
	if strings.Contains(file, "=") {
		return false
	}
	i := 0
	for _, c := range cols {
		if c.partition == nil {
			continue
		}
		if i >= len(segs) {
			return false
		}
		name, value, ok := strings.Cut(segs[i], "=")
		i++
		text, logged := add.PartitionValues[c.physical]
		if !logged {
			text = add.PartitionValues[c.name]
		}
		if !ok || name != c.physical || value != text || !hiveText(c.partition.Type, value) {
			return false
		}
	}
	return i == len(segs)
}

// hiveText reports whether DuckDB reads the hive partition value text of
// type t as the scan parses it.
func hiveText(t schema.Type, text string) bool {
	if text == "" || strings.EqualFold(text, "null") || text == "__HIVE_DEFAULT_PARTITION__" {
		return false
	}
	for _, r := range text {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	digits := func(s string) bool {
		return s != "" && strings.Trim(s, "0123456789") == ""
	}
	switch t := t.(type) {
	case *schema.Primitive:
		switch t.Name {
		case schema.String:
			return true
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			return digits(strings.TrimPrefix(text, "-"))
		case schema.Boolean:
			return text == "true" || text == "false"
		case schema.Date:
			y, rest, _ := strings.Cut(text, "-")
			m, d, _ := strings.Cut(rest, "-")
			return len(y) == 4 && len(m) == 2 && len(d) == 2 && digits(y+m+d)
		}
	case *schema.Decimal:
		// Digits the type holds: DuckDB's cast would round more
		// fractional digits, or fail on more whole ones.
		whole, frac, dot := strings.Cut(strings.TrimPrefix(text, "-"), ".")
		return digits(whole) && len(whole) <= t.Precision-t.Scale && (!dot || digits(frac) && len(frac) <= t.Scale)
	}
	return false
}

// directColumns are the columns of c's table as DuckDB's reader reads
// them, and the table's directory; false when DuckDB reads none of its
// files: the table is not on the local file system, or a column has a
// type DuckDB's reader does not read exactly as delta_scan declares it.
func directColumns(c *call) ([]directColumn, string, bool) {
	local, ok := c.snap.Store().(*storage.Local)
	if !ok {
		return nil, "", false
	}
	sc, err := c.base.Schema()
	if err != nil {
		return nil, "", false
	}
	snap := c.snap
	ds, mode := snap.Schema(), snap.ColumnMapping()
	parts := map[string]bool{}
	for _, p := range snap.PartitionColumns() {
		parts[p] = true
	}
	cols := make([]directColumn, len(sc.Fields()))
	for i, af := range sc.Fields() {
		f := ds.Field(af.Name)
		t, ok := sqlType(af.Type)
		if f == nil || !ok {
			return nil, "", false
		}
		cols[i] = directColumn{name: af.Name, physical: f.PhysicalName(mode), sqlType: t}
		if ts, ok := af.Type.(*arrow.TimestampType); ok {
			cols[i].timestamp = "make_timestamp"
			if ts.TimeZone != "" {
				cols[i].timestamp = "make_timestamptz"
			}
		}
		if parts[f.Name] {
			if af.Type.ID() == arrow.BINARY {
				return nil, "", false
			}
			cols[i].partition = f
		}
	}
	return cols, local.Root(), true
}

// sqlType is DuckDB's type of the Arrow types whose Parquet columns
// DuckDB's reader reads exactly as delta_scan declares them (typeInfo),
// timestamps through epoch microseconds (directColumn.value); not nested
// types (column mapping names their fields too).
func sqlType(dt arrow.DataType) (string, bool) {
	switch t := dt.(type) {
	case *arrow.BooleanType:
		return "BOOLEAN", true
	case *arrow.Int8Type:
		return "TINYINT", true
	case *arrow.Int16Type:
		return "SMALLINT", true
	case *arrow.Int32Type:
		return "INTEGER", true
	case *arrow.Int64Type:
		return "BIGINT", true
	case *arrow.Float32Type:
		return "FLOAT", true
	case *arrow.Float64Type:
		return "DOUBLE", true
	case *arrow.StringType:
		return "VARCHAR", true
	case *arrow.BinaryType:
		return "BLOB", true
	case *arrow.Date32Type:
		return "DATE", true
	case *arrow.Decimal128Type:
		if t.Precision >= 1 && t.Precision <= 38 {
			return fmt.Sprintf("DECIMAL(%d, %d)", t.Precision, t.Scale), true
		}
	case *arrow.TimestampType:
		if t.Unit != arrow.Microsecond {
			return "", false
		}
		if t.TimeZone == "" {
			return "TIMESTAMP", true
		}
		return "TIMESTAMPTZ", true
	}
	return "", false
}

// directFile reports whether DuckDB's reader reads the file of f exactly,
// with its row count: no deletion vector, every row known to match the
// filter, statistics that count its rows and name every data column. (Its
// caller checks that the path has no glob character: read_parquet would
// expand them.)
func directFile(f scan.FileTask, cols []directColumn) (int64, bool) {
	if f.Add.DeletionVector != nil || !f.AllRowsMatch() {
		return 0, false
	}
	var st struct {
		NumRecords *int64                     `json:"numRecords"`
		NullCount  map[string]json.RawMessage `json:"nullCount"`
	}
	if f.Add.Stats == "" || json.Unmarshal([]byte(f.Add.Stats), &st) != nil || st.NumRecords == nil {
		return 0, false
	}
	for _, c := range cols {
		if c.partition != nil {
			continue
		}
		// A null count is a number: a checkpoint's parsed statistics
		// have a null for a column the file lacks.
		var n *int64
		if json.Unmarshal(st.NullCount[c.physical], &n) != nil || n == nil {
			return 0, false
		}
	}
	return *st.NumRecords, true
}

// partitionConstants are the SQL constants of add's partition values, per
// column ("" for data columns; a typed NULL for a null value), and their
// key. The values are parsed as the scan parses them.
func partitionConstants(cols []directColumn, add *protocol.Add) ([]string, string, error) {
	out := make([]string, len(cols))
	for i, c := range cols {
		if c.partition == nil {
			continue
		}
		text, ok := add.PartitionValues[c.physical]
		if !ok {
			text = add.PartitionValues[c.name]
		}
		v, ok, err := schema.ParsePartitionValue(c.partition.Type, text)
		if err != nil {
			return nil, "", fmt.Errorf("file %s, column %q: %w", add.Path, c.name, err)
		}
		if !ok {
			out[i] = "CAST(NULL AS " + c.sqlType + ")"
			continue
		}
		if out[i], err = constant(c, v); err != nil {
			return nil, "", fmt.Errorf("file %s, column %q: %w", add.Path, c.name, err)
		}
	}
	return out, strings.Join(out, "\x00"), nil
}

// constant is the SQL constant of the partition value v of column c.
func constant(c directColumn, v any) (string, error) {
	typed := func(text string) string { return "CAST(" + quote(text) + " AS " + c.sqlType + ")" }
	switch v := v.(type) {
	case string:
		return typed(v), nil
	case int64, int32, int16, int8:
		return typed(fmt.Sprint(v)), nil
	case bool:
		return typed(strconv.FormatBool(v)), nil
	case float64:
		return typed(floatText(v, 64)), nil
	case float32:
		return typed(floatText(float64(v), 32)), nil
	case arrow.Date32:
		return typed(v.FormattedString()), nil
	case arrow.Timestamp:
		return fmt.Sprintf("%s(%d)", c.timestamp, int64(v)), nil
	case decimal128.Num:
		t, ok := c.partition.Type.(*schema.Decimal)
		if !ok {
			break
		}
		return typed(v.ToString(int32(t.Scale))), nil
	}
	return "", fmt.Errorf("partition value %v of type %T: no SQL constant for it", v, v)
}

// floatText is DuckDB's text of a float of bits 32 or 64.
func floatText(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}
