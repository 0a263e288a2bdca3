//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// FunctionName is the name of the table function RegisterDeltaScan adds.
// It is a temporary table macro of the connection over the table function
// named RawFunctionName_N (through DuckDB's query() of the SQL the scalar
// function PlanFunctionName_N plans, see direct.go, unless
// ScanOptions.ArrowOnly): duckdb-go requires every named argument of a
// table function, so the macro supplies them all. version and timestamp
// default to NULL, and the macro tells the function whether each was given
// in a flag of its own: no value a caller can pass (a negative version, an
// empty timestamp) means "not given", so such a value reaches Open and is
// refused there. No NULL reaches the table function either (duckdb-go
// aborts the process reading a NULL argument): a NULL filter is no filter,
// a NULL URI an empty one. The table function is database-wide, so each
// registration gets a name of its own, which keeps its options.
const (
	FunctionName    = "delta_scan"
	RawFunctionName = "deltalite_scan"
	// PlanFunctionName is the scalar function that plans a delta_scan
	// call into SQL (direct.go).
	PlanFunctionName = "deltalite_scan_plan"
)

// registrations numbers the table functions of the process.
var registrations atomic.Int64

// macro defines delta_scan on a connection over the functions fns: the
// table function fns.scan, or with fns.plan DuckDB's query() of the SQL
// that fns.plan makes of the call (direct.go). "timestamp" is a keyword in
// DuckDB's grammar: callers quote it as well ("timestamp" => '2026-01-02').
func macro(fns functions) string {
	head := `CREATE OR REPLACE TEMP MACRO ` + FunctionName + `(uri, version := NULL, "timestamp" := NULL, filter := '') AS TABLE
`
	if fns.plan != "" {
		return head + `SELECT * FROM query(` + fns.plan + `(coalesce(CAST(uri AS VARCHAR), ''),
	coalesce(CAST(version AS BIGINT), 0), version IS NOT NULL,
	coalesce(CAST("timestamp" AS VARCHAR), ''), "timestamp" IS NOT NULL,
	coalesce(CAST(filter AS VARCHAR), ''), CAST(current_setting('enable_external_access') AS BOOLEAN),
	CAST(current_connection_id() AS BIGINT)))`
	}
	return head + `SELECT * FROM ` + fns.scan + `(coalesce(CAST(uri AS VARCHAR), ''),
	version => coalesce(CAST(version AS BIGINT), 0), version_given => version IS NOT NULL,
	"timestamp" => coalesce(CAST("timestamp" AS VARCHAR), ''), timestamp_given => "timestamp" IS NOT NULL,
	filter => coalesce(CAST(filter AS VARCHAR), ''), plan => '')`
}

// ScanOptions configure the delta_scan function of a connection.
type ScanOptions struct {
	// StorageOptions open every table the function reads (credentials,
	// endpoints; see deltalite.WithStorageOptions). They never appear in
	// errors.
	StorageOptions map[string]string
	// Stats, when set, records each scan's files read and skipped.
	Stats *Stats
	// stores are stores already open by URI (a Resource's, filled by its
	// IO handler loads with the handler's storage options): a table at
	// one of these URIs is opened on its store.
	stores *sync.Map
	// conn is DuckDB's handle of the registering connection, whose
	// settings convert Arrow batches in bulk (see bulk.go); nil keeps
	// the per-value path.
	conn bindings.Connection
	// perValue turns the bulk path off (tests compare the two).
	perValue bool
	// snapshots keeps the snapshots of the registration's calls
	// (snapcache.go); nil opens every table from its log.
	snapshots *snapshotCache
	// ArrowOnly reads every file through deltalite's scan, handed to
	// DuckDB as Arrow batches; by default the files DuckDB's Parquet
	// reader reads exactly go to it (direct.go).
	ArrowOnly bool

	// BatchSize is the number of rows the engine reads per Arrow batch
	// (default scan.DefaultBatchSize); DuckDB takes them a vector
	// (2048 rows) at a time.
	BatchSize int
}

// ScanStat is what one delta_scan call read.
type ScanStat struct {
	URI     string
	Version int64
	Filter  string
	// Columns are the columns DuckDB asked for (projection pushdown).
	Columns []string
	// FilesLive is the number of files in the snapshot, FilesRead the
	// number the scan read, FilesSkipped those the filter ruled out by
	// partition values or statistics.
	FilesLive, FilesRead, FilesSkipped int
	// FilesDirect is the number of the files read that DuckDB's own
	// Parquet reader read (direct.go); deltalite's scan read the others.
	FilesDirect int
	// Rows is the number of rows handed to DuckDB: those deltalite's scan
	// read, plus the row counts the log records of the files DuckDB's
	// reader was given.
	Rows int64
	// BulkColumns are the columns handed to DuckDB as whole Arrow
	// vectors; the other Columns are copied value by value.
	BulkColumns []string
	// DictionaryColumns are the BulkColumns that came as dictionary
	// vectors (a string or binary column a file stores dictionary-encoded
	// throughout), in the order first seen.
	DictionaryColumns []string
}

// Stats collects the ScanStat of every delta_scan call of the connections
// that share it. It is safe for concurrent use.
type Stats struct {
	mu    sync.Mutex
	scans []*ScanStat
}

// Scans returns a copy of the recorded scans, in the order they started.
func (s *Stats) Scans() []ScanStat {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ScanStat, len(s.scans))
	for i, st := range s.scans {
		out[i] = *st
	}
	return out
}

// Reset forgets the recorded scans.
func (s *Stats) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scans = nil
}

func (s *Stats) add(st *ScanStat) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.scans = append(s.scans, st)
}

func (s *Stats) setColumns(st *ScanStat, names, bulk []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Columns, st.BulkColumns = names, bulk
}

// addDictionaries records the dictionary columns of a batch schema.
func (s *Stats) addDictionaries(st *ScanStat, sc *arrow.Schema) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, f := range sc.Fields() {
		if f.Type.ID() == arrow.DICTIONARY && !slices.Contains(st.DictionaryColumns, f.Name) {
			st.DictionaryColumns = append(st.DictionaryColumns, f.Name)
		}
	}
}

func (s *Stats) addRows(st *ScanStat, n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Rows += int64(n)
}

// RegisterDeltaScan adds the table functions delta_scan and delta_changes
// to conn:
//
//	delta_scan('uri' [, version => N] [, "timestamp" => '...'] [, filter => 'SQL'])
//	delta_changes('uri', from_version => N | from_timestamp => '...'
//		[, to_version => M | to_timestamp => '...'] [, filter => 'SQL'])
//
// "timestamp" reads the version current at that time (RFC 3339, or a UTC
// date or timestamp); filter is a predicate in Spark SQL syntax that prunes
// files by partition values and statistics and filters the rows.
// delta_changes reads the change data feed as deltalite's Table.Changes.
// The functions hand Arrow batches to DuckDB in bulk with conn's handle:
// they are for conn (whose temporary macros delta_scan and delta_changes
// are), while it is open.
func RegisterDeltaScan(ctx context.Context, conn *sql.Conn, opts ScanOptions) error {
	fns, err := registerFunctions(conn, opts)
	if err != nil {
		return err
	}
	return addMacros(ctx, conn, fns)
}

// functions are the names of the functions of one registration; plan is
// empty with ScanOptions.ArrowOnly.
type functions struct{ scan, changes, plan string }

// registerFunctions registers the table functions of opts on conn's
// database and returns their names.
func registerFunctions(conn *sql.Conn, opts ScanOptions) (functions, error) {
	n := registrations.Add(1)
	opts.snapshots = newSnapshotCache()
	fns := functions{scan: fmt.Sprintf("%s_%d", RawFunctionName, n), changes: fmt.Sprintf("%s_%d", RawChangesFunctionName, n)}
	// Without the handle delta_scan still works, value by value.
	if !opts.perValue {
		opts.conn, _ = rawConn(conn)
	}
	scanFn, err := scanFunction(opts)
	if err != nil {
		return fns, err
	}
	if err := duckdb.RegisterTableUDF(conn, fns.scan, scanFn); err != nil {
		return fns, err
	}
	if !opts.ArrowOnly {
		fns.plan = fmt.Sprintf("%s_%d", PlanFunctionName, n)
		pf, err := newPlanFunction(opts, fns.scan)
		if err != nil {
			return fns, err
		}
		if err := duckdb.RegisterScalarUDF(conn, fns.plan, pf); err != nil {
			return fns, err
		}
	}
	changesFn, err := changesFunction(opts)
	if err != nil {
		return fns, err
	}
	return fns, duckdb.RegisterTableUDF(conn, fns.changes, changesFn)
}

// types returns DuckDB's type infos of ts, in order.
func types(ts ...duckdb.Type) ([]duckdb.TypeInfo, error) {
	out := make([]duckdb.TypeInfo, len(ts))
	for i, t := range ts {
		var err error
		if out[i], err = duckdb.NewTypeInfo(t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// scanFunction is delta_scan's table function.
func scanFunction(opts ScanOptions) (duckdb.ParallelChunkTableFunction, error) {
	ti, err := types(duckdb.TYPE_VARCHAR, duckdb.TYPE_BIGINT, duckdb.TYPE_BOOLEAN)
	if err != nil {
		return duckdb.ParallelChunkTableFunction{}, err
	}
	varchar, bigint, boolean := ti[0], ti[1], ti[2]
	return duckdb.ParallelChunkTableFunction{
		Config: duckdb.TableFunctionConfig{
			Arguments: []duckdb.TypeInfo{varchar},
			NamedArguments: map[string]duckdb.TypeInfo{
				"version": bigint, "version_given": boolean,
				"timestamp": varchar, "timestamp_given": boolean,
				"filter": varchar, "plan": varchar,
			},
		},
		BindArgumentsContext: func(ctx context.Context, named map[string]any, args ...any) (duckdb.ParallelChunkTableSource, error) {
			src, err := bind(ctx, opts, named, args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", FunctionName, err)
			}
			return src, nil
		},
	}, nil
}

// addMacros defines delta_scan and delta_changes on conn over the table
// functions fns.
func addMacros(ctx context.Context, conn *sql.Conn, fns functions) error {
	for _, m := range []string{macro(fns), changesMacro(fns.changes)} {
		if _, err := conn.ExecContext(ctx, m); err != nil {
			return err
		}
	}
	return nil
}

// openTable opens the table at uri for a table function of opts: on a
// store already open for it, else with the storage options.
func openTable(ctx context.Context, opts ScanOptions, uri string, extra ...deltalite.Option) (*deltalite.Table, error) {
	open := []deltalite.Option{deltalite.WithStorageOptions(opts.StorageOptions)}
	if opts.stores != nil {
		if st, ok := opts.stores.Load(uri); ok {
			open = []deltalite.Option{deltalite.WithStore(st.(storage.Store))}
		}
	}
	return deltalite.Open(ctx, uri, append(open, extra...)...)
}

// parseTime reads the timestamp argument arg of a table function.
func parseTime(arg, ts string) (time.Time, error) {
	micros, err := schema.ParseTimestamp(ts)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s %q: use RFC 3339 (2026-01-02T15:04:05Z) or a UTC date or timestamp (2026-01-02, 2026-01-02 15:04:05)", arg, ts)
	}
	return time.UnixMicro(micros).UTC(), nil
}

// bind opens the table: it reads the log (the schema, for DuckDB's binder),
// not the data. A plan token (direct.go) takes the table and files its
// plan holds instead.
func bind(ctx context.Context, opts ScanOptions, named map[string]any, args []any) (*source, error) {
	if token, _ := named["plan"].(string); token != "" {
		p, ok := takePlan(token)
		if !ok {
			return nil, fmt.Errorf("plan %q is unknown or done: call %s, which makes it", token, FunctionName)
		}
		return newSource(ctx, opts, p.call, p)
	}
	c, err := openCall(ctx, opts, named, args)
	if err != nil {
		return nil, err
	}
	return newSource(ctx, opts, c, nil)
}

// call is a delta_scan call resolved: its table's snapshot at the version
// it reads, and its scan, the filter bound.
type call struct {
	snap   *snapshot.Snapshot
	base   *scan.Scan
	uri    string // for messages and stats: credentials redacted
	filter string
	plan   *scan.Explanation // the files, when the filter check planned them
	cache  *snapshotCache    // the snapshots and plans kept (nil: none)
}

// openCall opens the table of a delta_scan call of arguments named and
// args and checks its filter.
func openCall(ctx context.Context, opts ScanOptions, named map[string]any, args []any) (*call, error) {
	uri, _ := args[0].(string)
	if uri == "" {
		return nil, errors.New("the first argument is the table URI, e.g. delta_scan('/data/sales')")
	}
	var (
		open   []deltalite.Option
		pinned *int64 // the version asked for
	)
	// The macro's flags say what the caller gave; the values are checked
	// as given (Open refuses a negative version).
	version, _ := named["version"].(int64)
	ts, _ := named["timestamp"].(string)
	hasVersion, _ := named["version_given"].(bool)
	hasTS, _ := named["timestamp_given"].(bool)
	switch {
	case hasVersion && hasTS:
		return nil, errors.New("give version or timestamp, not both")
	case hasVersion:
		open, pinned = append(open, deltalite.WithVersion(version)), &version
	case hasTS:
		at, err := parseTime("timestamp", ts)
		if err != nil {
			return nil, err
		}
		open = append(open, deltalite.WithTimestamp(at))
	}
	load := func() (*snapshot.Snapshot, error) {
		t, err := openTable(ctx, opts, uri, open...)
		if err != nil {
			return nil, err
		}
		return t.Snapshot(), nil
	}
	cache := opts.snapshots
	if hasTS {
		cache = nil // a timestamp's version is found in the log
	}
	snap, err := cache.open(ctx, uri, pinned, load)
	if err != nil {
		return nil, err
	}
	filter, _ := named["filter"].(string)
	base := scan.New(snap)
	var plan *scan.Explanation
	if opts.BatchSize > 0 {
		base = base.With(scan.WithBatchSize(opts.BatchSize))
	}
	if filter != "" {
		base = base.With(scan.WithWhere(filter))
		// Bind the filter now, so that a bad one fails the query at
		// once, naming what does not parse.
		if plan, err = cache.explain(ctx, snap, filter, base.Explain); err != nil {
			return nil, fmt.Errorf("filter %q: %w", filter, err)
		}
	}
	return &call{snap: snap, base: base, uri: deltalite.RedactURL(uri), filter: filter, plan: plan, cache: cache}, nil
}

// explain is the files c reads: its plan, made once per kept snapshot and
// filter.
func (c *call) explain(ctx context.Context) (*scan.Explanation, error) {
	if c.plan != nil {
		return c.plan, nil
	}
	return c.cache.explain(ctx, c.snap, c.filter, c.base.Explain)
}

// newSource is the table function of call c, reading every file its plan
// chooses, or with p those p holds.
func newSource(ctx context.Context, opts ScanOptions, c *call, p *plannedScan) (*source, error) {
	sc, err := c.base.Schema()
	if err != nil {
		return nil, err
	}
	s := &source{ctx: ctx, snap: c.snap, cache: c.cache, base: c.base, uri: c.uri, filter: c.filter, stats: opts.Stats, fields: sc.Fields(), conn: opts.conn, planned: p}
	if s.infos, err = columnInfos(s.fields); err != nil {
		return nil, err
	}
	return s, nil
}

// columnInfos are DuckDB's columns of a function's Arrow fields.
func columnInfos(fields []arrow.Field) ([]duckdb.ColumnInfo, error) {
	out := make([]duckdb.ColumnInfo, len(fields))
	for i, f := range fields {
		ti, err := typeInfo(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		out[i] = duckdb.ColumnInfo{Name: f.Name, T: ti}
	}
	return out, nil
}

// source is one delta_scan call: DuckDB binds it once and runs it once
// per execution: Init, then FillChunk on up to one thread per file, each
// with a local state, until every local state returned an empty chunk.
type source struct {
	ctx    context.Context
	snap   *snapshot.Snapshot
	cache  *snapshotCache // the plans of kept snapshots (nil: none)
	base   *scan.Scan
	uri    string // for messages and stats: credentials redacted
	filter string
	stats  *Stats
	fields []arrow.Field
	infos  []duckdb.ColumnInfo
	conn   bindings.Connection
	// planned, when set, holds the files to read and the stat to count
	// them in: the plan of a delta_scan call DuckDB's reader shares.
	planned *plannedScan

	mu   sync.Mutex
	exec *execution // the current execution's, set by Init
}

// execution is the state the threads of one execution share: the planned
// files, handed out one at a time, and the projection, known from the
// first chunk.
type execution struct {
	err   error // planning failed
	files []*protocol.Add
	next  atomic.Int64 // index of the next file to hand out
	stat  *ScanStat

	once sync.Once
	projection
}

// projection is what DuckDB asked for of a function's columns, learnt from
// the first chunk of an execution, and moves batches of those columns
// into chunks: in bulk where DuckDB's Arrow conversion gives the declared
// type, else value by value.
type projection struct {
	cols    []int // the projected columns, by index in fields
	writers []writer
	names   []string
	bulk    []int // positions in cols moved in bulk
	slow    []int // positions in cols copied value by value
	// dicts are the bulk columns the scan may hand over as Arrow
	// dictionaries (scan.WithDictionaries): DuckDB's conversion makes them
	// dictionary vectors, sparing the copy of every string.
	dicts []string
}

// project learns from a chunk which of fields DuckDB projected: GetVector
// fails for the others. With no connection handle (bulk false) every
// column is copied value by value.
func project(fields []arrow.Field, ch duckdb.DataChunk, bulk bool) projection {
	var p projection
	for i, f := range fields {
		if _, err := ch.GetVector(i); err == nil {
			j := len(p.cols)
			p.cols = append(p.cols, i)
			p.writers = append(p.writers, writerFor(f.Type))
			p.names = append(p.names, f.Name)
			if bulk && bulkable(f.Type) {
				p.bulk = append(p.bulk, j)
				if dictionaryValues(f.Type) {
					p.dicts = append(p.dicts, f.Name)
				}
			} else {
				p.slow = append(p.slow, j)
			}
		}
	}
	return p
}

// bulkNames are the names of the columns moved in bulk.
func (p *projection) bulkNames() []string {
	var out []string
	for _, j := range p.bulk {
		out = append(out, p.names[j])
	}
	return out
}

// fill moves n rows of the reading's batch (the projected columns, in
// order), from its offset, into ch; it names the column that fails.
func (p *projection) fill(ch duckdb.DataChunk, r *reading, conn bindings.Connection, n int) error {
	if len(p.bulk) > 0 {
		if err := p.fillBulk(&ch, r, conn, n); err != nil {
			return err
		}
	}
	for _, j := range p.slow {
		if err := p.writers[j](ch, p.cols[j], r.rec.Column(j), r.off, n); err != nil {
			return fmt.Errorf("column %q: %w", p.names[j], err)
		}
	}
	r.off += n
	return ch.SetSize(n)
}

// fillBulk points ch's vectors of the bulk columns at DuckDB's conversion
// of n rows of the batch.
func (p *projection) fillBulk(ch *duckdb.DataChunk, r *reading, conn bindings.Connection, n int) error {
	raw, proj, err := rawChunk(ch)
	if err != nil {
		return err
	}
	if r.conv == nil {
		r.conv = &converter{conn: conn, cols: p.bulk}
	}
	out := make([]bindings.Vector, len(p.bulk))
	for k, j := range p.bulk {
		idx := p.cols[j]
		if proj != nil {
			idx = proj[idx]
		}
		out[k] = bindings.DataChunkGetVector(raw, bindings.IdxT(idx))
	}
	if err := r.conv.fill(out, r.rec, r.off, n); err != nil {
		return fmt.Errorf("columns %q: %w", p.bulkNames(), err)
	}
	return nil
}

// local is one thread's state: the file it reads.
type local struct {
	*reading
}

// reading is the reader of a thread's current file and the batch being
// copied, from row off. It is apart from local so that a cleanup can
// release it when DuckDB drops the local state unfinished (a LIMIT).
type reading struct {
	rr   array.RecordReader
	rec  arrow.RecordBatch
	off  int
	conv *converter    // the thread's bulk conversion, made at its first chunk
	seen *arrow.Schema // the last batch schema recorded in the stats
}

// next makes rec a batch with rows left from off, taking the reader's next
// batches as needed; false when there is no reader or it ended (it is then
// released).
func (r *reading) next() (bool, error) {
	for r.rec == nil || r.off >= int(r.rec.NumRows()) {
		if r.rec != nil {
			r.rec.Release()
			r.rec = nil
		}
		if r.rr == nil {
			return false, nil
		}
		if r.rr.Next() {
			r.rec = r.rr.RecordBatch()
			r.rec.Retain()
			r.off = 0
			continue
		}
		err := r.rr.Err()
		r.release()
		return false, err
	}
	return true, nil
}

func (r *reading) release() {
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	if r.rr != nil {
		r.rr.Release()
		r.rr = nil
	}
	if r.conv != nil {
		r.conv.release()
	}
}

func (s *source) ColumnInfos() []duckdb.ColumnInfo { return s.infos }

// Cardinality is the row count the log records, when every file has
// statistics: DuckDB's join planner uses it.
func (s *source) Cardinality() *duckdb.CardinalityInfo {
	var files []*protocol.Add
	if s.planned != nil {
		files = s.planned.files
	} else {
		files = s.snap.Files()
	}
	var n uint
	for _, add := range files {
		rows, ok := numRecords(add)
		if !ok {
			return nil
		}
		n += uint(rows)
	}
	return &duckdb.CardinalityInfo{Cardinality: n, Exact: s.filter == "" && !s.hasDeletionVectors()}
}

func (s *source) hasDeletionVectors() bool {
	for _, add := range s.snap.Files() {
		if add.DeletionVector != nil {
			return true
		}
	}
	return false
}

// Init plans the files of an execution (the filter prunes and skips them)
// and lets DuckDB read them on up to one thread each.
func (s *source) Init() duckdb.ParallelTableSourceInfo {
	e := &execution{}
	s.mu.Lock()
	s.exec = e
	s.mu.Unlock()
	if p := s.planned; p != nil {
		e.files, e.stat = p.files, p.stat
		p.once.Do(func() { s.stats.add(p.stat) })
		return duckdb.ParallelTableSourceInfo{MaxThreads: max(1, len(e.files))}
	}
	plan, err := s.cache.explain(s.ctx, s.snap, s.filter, s.base.Explain)
	if err != nil {
		e.err = err
		return duckdb.ParallelTableSourceInfo{MaxThreads: 1}
	}
	for _, f := range plan.Files {
		e.files = append(e.files, f.Add)
	}
	e.stat = &ScanStat{URI: s.uri, Version: s.snap.Version(), Filter: s.filter,
		FilesLive: s.snap.NumFiles(), FilesRead: len(plan.Files), FilesSkipped: len(plan.Skipped)}
	s.stats.add(e.stat)
	return duckdb.ParallelTableSourceInfo{MaxThreads: max(1, len(e.files))}
}

func (s *source) NewLocalState() any {
	l := &local{reading: &reading{}}
	runtime.AddCleanup(l, (*reading).release, l.reading)
	return l
}

// project learns the execution's projection from its first chunk.
func (s *source) project(e *execution, ch duckdb.DataChunk) {
	e.once.Do(func() {
		e.projection = project(s.fields, ch, s.conn.Ptr != nil)
		s.stats.setColumns(e.stat, e.names, e.bulkNames())
	})
}

// FillChunk copies the next rows of the thread's file, up to a vector,
// into ch, taking the next file when one ends; an empty chunk ends the
// thread's part.
func (s *source) FillChunk(ls any, ch duckdb.DataChunk) error {
	l := ls.(*local)
	s.mu.Lock()
	e := s.exec
	s.mu.Unlock()
	if e.err != nil {
		return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, e.err)
	}
	s.project(e, ch)
	for {
		ok, err := l.next()
		if err != nil {
			return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
		}
		if ok {
			break
		}
		i := int(e.next.Add(1) - 1)
		if i >= len(e.files) {
			return ch.SetSize(0)
		}
		sc := s.base.With(scan.WithColumns(e.names...), scan.WithFiles(e.files[i]), scan.WithDictionaries(e.dicts...))
		if l.rr, err = ScanReader(s.ctx, sc); err != nil {
			return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
		}
	}
	if sc := l.rec.Schema(); sc != l.seen {
		l.seen = sc
		s.stats.addDictionaries(e.stat, sc)
	}
	n := min(int(l.rec.NumRows())-l.off, duckdb.GetDataChunkCapacity())
	if err := e.fill(ch, l.reading, s.conn, n); err != nil {
		return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
	}
	s.stats.addRows(e.stat, n)
	return nil
}

// numRecords is the row count of a file's statistics, for the estimate of
// Cardinality only (the engine's scan reads statistics for pruning).
func numRecords(add *protocol.Add) (int64, bool) {
	var st struct {
		NumRecords *int64 `json:"numRecords"`
	}
	if add.Stats == "" || json.Unmarshal([]byte(add.Stats), &st) != nil || st.NumRecords == nil {
		return 0, false
	}
	return *st.NumRecords, true
}
