package duckdbio

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// FunctionName is the name of the table function RegisterDeltaScan adds.
// It is a temporary table macro of the connection over a table function
// named RawFunctionName_N: duckdb-go requires every named argument of a
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
)

// registrations numbers the table functions of the process.
var registrations atomic.Int64

// macro defines delta_scan on a connection over the table function raw.
// "timestamp" is a keyword in DuckDB's grammar: callers quote it as well
// ("timestamp" => '2026-01-02').
func macro(raw string) string {
	return `CREATE OR REPLACE TEMP MACRO ` + FunctionName + `(uri, version := NULL, "timestamp" := NULL, filter := '') AS TABLE
SELECT * FROM ` + raw + `(coalesce(CAST(uri AS VARCHAR), ''),
	version => coalesce(CAST(version AS BIGINT), 0), version_given => version IS NOT NULL,
	"timestamp" => coalesce(CAST("timestamp" AS VARCHAR), ''), timestamp_given => "timestamp" IS NOT NULL,
	filter => coalesce(CAST(filter AS VARCHAR), ''))`
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
	// Rows is the number of rows handed to DuckDB.
	Rows int64
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

func (s *Stats) setColumns(st *ScanStat, names []string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Columns = names
}

func (s *Stats) addRows(st *ScanStat, n int) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st.Rows += int64(n)
}

// RegisterDeltaScan adds the table function delta_scan to conn:
//
//	delta_scan('uri' [, version => N] [, "timestamp" => '...'] [, filter => 'SQL'])
//
// "timestamp" reads the version current at that time (RFC 3339, or a UTC
// date or timestamp); filter is a predicate in Spark SQL syntax that prunes
// files by partition values and statistics and filters the rows.
func RegisterDeltaScan(ctx context.Context, conn *sql.Conn, opts ScanOptions) error {
	raw, err := registerScan(conn, opts)
	if err != nil {
		return err
	}
	return addMacro(ctx, conn, raw)
}

// registerScan registers the table function of opts on conn's database
// and returns its name.
func registerScan(conn *sql.Conn, opts ScanOptions) (string, error) {
	varchar, err := duckdb.NewTypeInfo(duckdb.TYPE_VARCHAR)
	if err != nil {
		return "", err
	}
	bigint, err := duckdb.NewTypeInfo(duckdb.TYPE_BIGINT)
	if err != nil {
		return "", err
	}
	boolean, err := duckdb.NewTypeInfo(duckdb.TYPE_BOOLEAN)
	if err != nil {
		return "", err
	}
	fn := duckdb.ParallelChunkTableFunction{
		Config: duckdb.TableFunctionConfig{
			Arguments: []duckdb.TypeInfo{varchar},
			NamedArguments: map[string]duckdb.TypeInfo{
				"version": bigint, "version_given": boolean,
				"timestamp": varchar, "timestamp_given": boolean,
				"filter": varchar,
			},
		},
		BindArgumentsContext: func(ctx context.Context, named map[string]any, args ...any) (duckdb.ParallelChunkTableSource, error) {
			src, err := bind(ctx, opts, named, args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", FunctionName, err)
			}
			return src, nil
		},
	}
	raw := fmt.Sprintf("%s_%d", RawFunctionName, registrations.Add(1))
	return raw, duckdb.RegisterTableUDF(conn, raw, fn)
}

// addMacro defines delta_scan on conn over the table function raw.
func addMacro(ctx context.Context, conn *sql.Conn, raw string) error {
	_, err := conn.ExecContext(ctx, macro(raw))
	return err
}

// bind opens the table: it reads the log (the schema, for DuckDB's binder),
// not the data.
func bind(ctx context.Context, opts ScanOptions, named map[string]any, args []any) (*source, error) {
	uri, _ := args[0].(string)
	if uri == "" {
		return nil, errors.New("the first argument is the table URI, e.g. delta_scan('/data/sales')")
	}
	open := []deltalite.Option{deltalite.WithStorageOptions(opts.StorageOptions)}
	if opts.stores != nil {
		if st, ok := opts.stores.Load(uri); ok {
			open = []deltalite.Option{deltalite.WithStore(st.(storage.Store))}
		}
	}
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
		open = append(open, deltalite.WithVersion(version))
	case hasTS:
		micros, err := schema.ParseTimestamp(ts)
		if err != nil {
			return nil, fmt.Errorf("timestamp %q: use RFC 3339 (2026-01-02T15:04:05Z) or a UTC date or timestamp (2026-01-02, 2026-01-02 15:04:05)", ts)
		}
		open = append(open, deltalite.WithTimestamp(time.UnixMicro(micros).UTC()))
	}
	t, err := deltalite.Open(ctx, uri, open...)
	if err != nil {
		return nil, err
	}
	filter, _ := named["filter"].(string)
	base := t.Scan()
	if opts.BatchSize > 0 {
		base = base.With(scan.WithBatchSize(opts.BatchSize))
	}
	if filter != "" {
		base = base.With(scan.WithWhere(filter))
		// Bind the filter now, so that a bad one fails the query at
		// once, naming what does not parse.
		if _, err := base.Explain(ctx); err != nil {
			return nil, fmt.Errorf("filter %q: %w", filter, err)
		}
	}
	sc, err := base.Schema()
	if err != nil {
		return nil, err
	}
	s := &source{ctx: ctx, table: t, base: base, uri: deltalite.RedactURL(uri), filter: filter, stats: opts.Stats, fields: sc.Fields()}
	for _, f := range s.fields {
		ti, err := typeInfo(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		s.infos = append(s.infos, duckdb.ColumnInfo{Name: f.Name, T: ti})
	}
	return s, nil
}

// source is one delta_scan call: DuckDB binds it once and runs it once
// per execution: Init, then FillChunk on up to one thread per file, each
// with a local state, until every local state returned an empty chunk.
type source struct {
	ctx    context.Context
	table  *deltalite.Table
	base   *scan.Scan
	uri    string // for messages and stats: credentials redacted
	filter string
	stats  *Stats
	fields []arrow.Field
	infos  []duckdb.ColumnInfo

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

	once    sync.Once
	cols    []int // the projected columns, by index in fields
	writers []writer
	names   []string
}

// local is one thread's state: the file it reads.
type local struct {
	*reading
}

// reading is the reader of a thread's current file and the batch being
// copied, from row off. It is apart from local so that a cleanup can
// release it when DuckDB drops the local state unfinished (a LIMIT).
type reading struct {
	rr  array.RecordReader
	rec arrow.RecordBatch
	off int
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
}

func (s *source) ColumnInfos() []duckdb.ColumnInfo { return s.infos }

// Cardinality is the row count the log records, when every file has
// statistics: DuckDB's join planner uses it.
func (s *source) Cardinality() *duckdb.CardinalityInfo {
	var n uint
	for _, add := range s.table.Snapshot().Files() {
		rows, ok := numRecords(add)
		if !ok {
			return nil
		}
		n += uint(rows)
	}
	return &duckdb.CardinalityInfo{Cardinality: n, Exact: s.filter == "" && !s.hasDeletionVectors()}
}

func (s *source) hasDeletionVectors() bool {
	for _, add := range s.table.Snapshot().Files() {
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
	plan, err := s.base.Explain(s.ctx)
	if err != nil {
		e.err = err
		return duckdb.ParallelTableSourceInfo{MaxThreads: 1}
	}
	for _, f := range plan.Files {
		e.files = append(e.files, f.Add)
	}
	e.stat = &ScanStat{URI: s.uri, Version: s.table.Version(), Filter: s.filter,
		FilesLive: len(s.table.Snapshot().Files()), FilesRead: len(plan.Files), FilesSkipped: len(plan.Skipped)}
	s.stats.add(e.stat)
	return duckdb.ParallelTableSourceInfo{MaxThreads: max(1, len(e.files))}
}

func (s *source) NewLocalState() any {
	l := &local{reading: &reading{}}
	runtime.AddCleanup(l, (*reading).release, l.reading)
	return l
}

// project learns from a chunk which columns DuckDB projected: GetVector
// fails for the others.
func (s *source) project(e *execution, ch duckdb.DataChunk) {
	e.once.Do(func() {
		for i, f := range s.fields {
			if _, err := ch.GetVector(i); err == nil {
				e.cols = append(e.cols, i)
				e.writers = append(e.writers, writerFor(f.Type))
				e.names = append(e.names, f.Name)
			}
		}
		s.stats.setColumns(e.stat, e.names)
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
	for l.rec == nil || l.off >= int(l.rec.NumRows()) {
		if l.rec != nil {
			l.rec.Release()
			l.rec = nil
		}
		if l.rr != nil && l.rr.Next() {
			l.rec = l.rr.RecordBatch()
			l.rec.Retain()
			l.off = 0
			continue
		}
		if l.rr != nil {
			err := l.rr.Err()
			l.release()
			if err != nil {
				return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
			}
		}
		i := int(e.next.Add(1) - 1)
		if i >= len(e.files) {
			return ch.SetSize(0)
		}
		sc := s.base.With(scan.WithColumns(e.names...), scan.WithFiles(e.files[i]))
		rr, err := ScanReader(s.ctx, sc)
		if err != nil {
			return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
		}
		l.rr = rr
	}
	n := min(int(l.rec.NumRows())-l.off, duckdb.GetDataChunkCapacity())
	for j, col := range e.cols {
		if err := e.writers[j](ch, col, l.rec.Column(j), l.off, n); err != nil {
			return fmt.Errorf("%s(%q): column %q: %w", FunctionName, s.uri, s.fields[col].Name, err)
		}
	}
	l.off += n
	s.stats.addRows(e.stat, n)
	return ch.SetSize(n)
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
