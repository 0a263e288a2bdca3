package duckdbio

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
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
)

// FunctionName is the name of the table function RegisterDeltaScan adds.
// It is a temporary table macro of the connection over a table function
// named RawFunctionName_N: duckdb-go requires every named argument of a
// table function, so the macro supplies the defaults (version -1 and empty
// strings: not given). The table function is database-wide, so each
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
	return `CREATE OR REPLACE TEMP MACRO ` + FunctionName + `(uri, version := -1, "timestamp" := '', filter := '') AS TABLE
SELECT * FROM ` + raw + `(uri, version => version, "timestamp" => "timestamp", filter => filter)`
}

// ScanOptions configure the delta_scan function of a connection.
type ScanOptions struct {
	// StorageOptions open every table the function reads (credentials,
	// endpoints; see deltalite.WithStorageOptions). They never appear in
	// errors.
	StorageOptions map[string]string
	// Stats, when set, records each scan's files read and skipped.
	Stats *Stats
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
	fn := duckdb.ChunkTableFunction{
		Config: duckdb.TableFunctionConfig{
			Arguments:      []duckdb.TypeInfo{varchar},
			NamedArguments: map[string]duckdb.TypeInfo{"version": bigint, "timestamp": varchar, "filter": varchar},
		},
		BindArgumentsContext: func(ctx context.Context, named map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
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
	// The macro's defaults mean "not given".
	version, _ := named["version"].(int64)
	ts, _ := named["timestamp"].(string)
	hasVersion, hasTS := version >= 0, ts != ""
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
	s := &source{ctx: ctx, table: t, base: base, uri: uri, filter: filter, stats: opts.Stats, fields: sc.Fields()}
	for _, f := range s.fields {
		ti, err := typeInfo(f.Type)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", f.Name, err)
		}
		s.infos = append(s.infos, duckdb.ColumnInfo{Name: f.Name, T: ti})
	}
	return s, nil
}

// source is one delta_scan call: DuckDB binds it once and runs it
// (Init, then FillChunk until an empty chunk) once per execution.
type source struct {
	ctx    context.Context
	table  *deltalite.Table
	base   *scan.Scan
	uri    string
	filter string
	stats  *Stats
	fields []arrow.Field
	infos  []duckdb.ColumnInfo

	// Per execution, set up by the first FillChunk, when the chunk tells
	// which columns DuckDB projected.
	started bool
	cols    []int // the projected columns, by index in fields
	writers []writer
	rr      array.RecordReader
	rec     arrow.RecordBatch // the batch being copied, from row off
	off     int
	stat    *ScanStat
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

func (s *source) Init() {
	s.release()
	s.started = false
}

func (s *source) release() {
	if s.rec != nil {
		s.rec.Release()
		s.rec = nil
	}
	if s.rr != nil {
		s.rr.Release()
		s.rr = nil
	}
}

// start plans the scan of the projected columns and opens its reader.
func (s *source) start(ch duckdb.DataChunk) error {
	s.started = true
	s.cols = s.cols[:0]
	s.writers = s.writers[:0]
	var names []string
	for i, f := range s.fields {
		// GetVector fails for a column DuckDB did not project.
		if _, err := ch.GetVector(i); err == nil {
			s.cols = append(s.cols, i)
			s.writers = append(s.writers, writerFor(f.Type))
			names = append(names, f.Name)
		}
	}
	sc := s.base.With(scan.WithColumns(names...))
	e, err := sc.Explain(s.ctx)
	if err != nil {
		return err
	}
	files := make([]*protocol.Add, len(e.Files))
	for i, f := range e.Files {
		files[i] = f.Add
	}
	s.stat = &ScanStat{
		URI: s.uri, Version: s.table.Version(), Filter: s.filter, Columns: names,
		FilesLive: len(s.table.Snapshot().Files()), FilesRead: len(e.Files), FilesSkipped: len(e.Skipped),
	}
	s.stats.add(s.stat)
	s.rr, err = ScanReader(s.ctx, sc.With(scan.WithFiles(files...)))
	return err
}

// FillChunk copies the next rows, up to a vector, into ch; an empty chunk
// ends the scan.
func (s *source) FillChunk(ch duckdb.DataChunk) error {
	if !s.started {
		if err := s.start(ch); err != nil {
			s.release()
			return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
		}
	}
	for s.rec == nil || s.off >= int(s.rec.NumRows()) {
		if s.rec != nil {
			s.rec.Release()
			s.rec = nil
		}
		if s.rr == nil || !s.rr.Next() {
			var err error
			if s.rr != nil {
				err = s.rr.Err()
			}
			s.release()
			if err != nil {
				return fmt.Errorf("%s(%q): %w", FunctionName, s.uri, err)
			}
			return ch.SetSize(0)
		}
		s.rec = s.rr.RecordBatch()
		s.rec.Retain()
		s.off = 0
	}
	n := min(int(s.rec.NumRows())-s.off, duckdb.GetDataChunkCapacity())
	for j, col := range s.cols {
		if err := s.writers[j](ch, col, s.rec.Column(j), s.off, n); err != nil {
			return fmt.Errorf("%s(%q): column %q: %w", FunctionName, s.uri, s.fields[col].Name, err)
		}
	}
	s.off += n
	s.stats.addRows(s.stat, n)
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
