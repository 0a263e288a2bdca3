//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	bindings "github.com/duckdb/duckdb-go-bindings"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite"
)

// ChangesFunctionName is the table function that reads a table's change
// data feed, a macro over RawChangesFunctionName_N as delta_scan is (see
// FunctionName): every argument but the URI defaults to NULL, which means
// not given.
const (
	ChangesFunctionName    = "delta_changes"
	RawChangesFunctionName = "deltalite_changes"
)

// changesMacro defines delta_changes on a connection over the table
// function raw.
func changesMacro(raw string) string {
	return `CREATE OR REPLACE TEMP MACRO ` + ChangesFunctionName + `(uri, from_version := NULL, to_version := NULL,
	from_timestamp := NULL, to_timestamp := NULL, filter := '') AS TABLE
SELECT * FROM ` + raw + `(coalesce(CAST(uri AS VARCHAR), ''),
	from_version => coalesce(CAST(from_version AS BIGINT), 0), from_version_given => from_version IS NOT NULL,
	to_version => coalesce(CAST(to_version AS BIGINT), 0), to_version_given => to_version IS NOT NULL,
	from_timestamp => coalesce(CAST(from_timestamp AS VARCHAR), ''), from_timestamp_given => from_timestamp IS NOT NULL,
	to_timestamp => coalesce(CAST(to_timestamp AS VARCHAR), ''), to_timestamp_given => to_timestamp IS NOT NULL,
	filter => coalesce(CAST(filter AS VARCHAR), ''))`
}

// changesFunction is delta_changes' table function: one thread reads the
// feed in commit order.
func changesFunction(opts ScanOptions) (duckdb.ChunkTableFunction, error) {
	ti, err := types(duckdb.TYPE_VARCHAR, duckdb.TYPE_BIGINT, duckdb.TYPE_BOOLEAN)
	if err != nil {
		return duckdb.ChunkTableFunction{}, err
	}
	varchar, bigint, boolean := ti[0], ti[1], ti[2]
	named := map[string]duckdb.TypeInfo{"filter": varchar}
	for _, bound := range []string{"from", "to"} {
		named[bound+"_version"], named[bound+"_version_given"] = bigint, boolean
		named[bound+"_timestamp"], named[bound+"_timestamp_given"] = varchar, boolean
	}
	return duckdb.ChunkTableFunction{
		Config: duckdb.TableFunctionConfig{Arguments: []duckdb.TypeInfo{varchar}, NamedArguments: named},
		BindArgumentsContext: func(ctx context.Context, named map[string]any, args ...any) (duckdb.ChunkTableSource, error) {
			src, err := bindChanges(ctx, opts, named, args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", ChangesFunctionName, err)
			}
			return src, nil
		},
	}, nil
}

// bindChanges resolves the range and opens the feed once, so that a range
// the reader refuses fails the query here; it reads no data.
func bindChanges(ctx context.Context, opts ScanOptions, named map[string]any, args []any) (*changesSource, error) {
	uri, _ := args[0].(string)
	if uri == "" {
		return nil, errors.New("the first argument is the table URI, e.g. delta_changes('/data/sales', from_version => 0)")
	}
	co := deltalite.ChangesOptions{BatchSize: opts.BatchSize}
	co.Where, _ = named["filter"].(string)
	var toTS *time.Time
	from, fromTS, err := rangeBound(named, "from")
	if err != nil {
		return nil, err
	}
	switch {
	case from != nil:
		co.FromVersion = *from
	case fromTS != nil:
		co.FromTimestamp = *fromTS
	default:
		return nil, errors.New("give from_version or from_timestamp, the start of the changes, e.g. delta_changes('/data/sales', from_version => 0)")
	}
	if co.ToVersion, toTS, err = rangeBound(named, "to"); err != nil {
		return nil, err
	}
	if toTS != nil {
		co.ToTimestamp = *toTS
	}
	t, err := openTable(ctx, opts, uri)
	if err != nil {
		return nil, err
	}
	s := &changesSource{ctx: ctx, table: t, opts: co, uri: deltalite.RedactURL(uri), conn: opts.conn}
	rr, err := s.open(nil)
	if err != nil {
		return nil, err
	}
	s.fields = rr.Schema().Fields()
	rr.Release()
	if s.infos, err = columnInfos(s.fields); err != nil {
		return nil, err
	}
	return s, nil
}

// rangeBound is the version or the timestamp the caller gave for the
// bound ("from" or "to") of the range, or neither. The macro's flags say
// what was given; a version goes to the reader as given (it refuses a
// negative one).
func rangeBound(named map[string]any, bound string) (*int64, *time.Time, error) {
	va, ta := bound+"_version", bound+"_timestamp"
	given := func(arg string) bool { g, _ := named[arg+"_given"].(bool); return g }
	switch {
	case given(va) && given(ta):
		return nil, nil, fmt.Errorf("give %s or %s, not both", va, ta)
	case given(va):
		v, _ := named[va].(int64)
		return &v, nil, nil
	case given(ta):
		ts, _ := named[ta].(string)
		at, err := parseTime(ta, ts)
		if err != nil {
			return nil, nil, err
		}
		return nil, &at, nil
	}
	return nil, nil, nil
}

// changesSource is one delta_changes call: bound once, run once per
// execution (Init, then FillChunk until an empty chunk).
type changesSource struct {
	ctx    context.Context
	table  *deltalite.Table
	opts   deltalite.ChangesOptions
	uri    string // for messages: credentials redacted
	fields []arrow.Field
	infos  []duckdb.ColumnInfo
	conn   bindings.Connection // for the bulk path (bulk.go)

	mu   sync.Mutex
	exec *changesExecution // the current execution's, set by Init
}

// changesExecution is an execution's reader of the feed, opened with the
// projection of its first chunk.
type changesExecution struct {
	*reading
	projection
	started bool
}

// open opens the feed with the columns names (nil: all) on a goroutine.
func (s *changesSource) open(names []string) (array.RecordReader, error) {
	opts := s.opts
	opts.Columns = names
	return goRecordReader(func() (array.RecordReader, error) { return s.table.Changes(s.ctx, opts) })
}

func (s *changesSource) ColumnInfos() []duckdb.ColumnInfo { return s.infos }

func (s *changesSource) Cardinality() *duckdb.CardinalityInfo { return nil }

func (s *changesSource) Init() {
	e := &changesExecution{reading: &reading{}}
	// DuckDB may drop an execution unfinished (a LIMIT): its reader goes
	// with it.
	runtime.AddCleanup(e, (*reading).release, e.reading)
	s.mu.Lock()
	s.exec = e
	s.mu.Unlock()
}

// FillChunk copies the feed's next rows, up to a vector, into ch; the
// first chunk tells the projection the feed is opened with.
func (s *changesSource) FillChunk(ch duckdb.DataChunk) error {
	s.mu.Lock()
	e := s.exec
	s.mu.Unlock()
	if !e.started {
		e.started = true
		e.projection = project(s.fields, ch, s.conn.Ptr != nil)
		// A non-nil empty list reads no column (count(*)).
		rr, err := s.open(append([]string{}, e.names...))
		if err != nil {
			return fmt.Errorf("%s(%q): %w", ChangesFunctionName, s.uri, err)
		}
		e.rr = rr
	}
	ok, err := e.next()
	if err != nil {
		return fmt.Errorf("%s(%q): %w", ChangesFunctionName, s.uri, err)
	}
	if !ok {
		return ch.SetSize(0)
	}
	n := min(int(e.rec.NumRows())-e.off, duckdb.GetDataChunkCapacity())
	if err := e.fill(ch, e.reading, s.conn, n); err != nil {
		return fmt.Errorf("%s(%q): %w", ChangesFunctionName, s.uri, err)
	}
	return nil
}
