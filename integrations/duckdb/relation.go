//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/duckdb/duckdb-go/v2"

	"github.com/deltalite-go/deltalite"
)

// Resource holds the DuckDB settings of a job and the database its
// sessions share. The zero value is an in-memory database with DuckDB's
// defaults. Its methods are safe for concurrent use.
type Resource struct {
	// Database is a DuckDB database file; empty means in memory. DuckDB
	// never installs or loads an extension by itself on it (offline).
	Database string
	// Threads is DuckDB's thread count (SET threads); 0 keeps the default.
	Threads int
	// MemoryLimit is DuckDB's memory limit, e.g. "2GB" (SET memory_limit).
	MemoryLimit string
	// StorageOptions open the tables delta_scan reads.
	StorageOptions map[string]string
	// Stats, when set, records the files every delta_scan read.
	Stats *Stats
	// ArrowOnly has deltalite's scan read every file of a delta_scan,
	// none DuckDB's Parquet reader (see ScanOptions.ArrowOnly).
	ArrowOnly bool

	once   sync.Once
	db     *sql.DB
	fns    functions // the database's table functions
	fnConn *sql.Conn // the connection they were registered on, kept open: its settings convert Arrow batches
	stores sync.Map  // URI -> storage.Store open for delta_scan (ScanOptions.stores)
	err    error
}

func (r *Resource) open() (*sql.DB, error) {
	r.once.Do(func() {
		var connector *duckdb.Connector
		var dsn string
		if dsn, r.err = offlineDSN(r.Database); r.err != nil {
			return
		}
		connector, r.err = duckdb.NewConnector(dsn, nil)
		if r.err != nil {
			r.err = fmt.Errorf("opening DuckDB database %q: %w", r.Database, r.err)
			return
		}
		r.db = sql.OpenDB(connector)
		// One set of table functions for the database, with the
		// resource's options; each session adds its macros over them.
		// The connection stays open until Close: the functions convert
		// Arrow batches with its handle (bulk.go).
		if r.fnConn, r.err = r.db.Conn(context.Background()); r.err != nil {
			return
		}
		r.fns, r.err = registerFunctions(r.fnConn, ScanOptions{StorageOptions: r.StorageOptions, Stats: r.Stats, stores: &r.stores, ArrowOnly: r.ArrowOnly})
	})
	return r.db, r.err
}

// offlineDSN is the DuckDB DSN of database (a file, "" in memory, either
// with DuckDB settings after "?") with DuckDB's automatic extension
// install and load turned off: a query that needs an extension (httpfs for
// read_csv('s3://...')) fails at once instead of downloading code from the
// network. SQL can still INSTALL and LOAD one on purpose.
func offlineDSN(database string) (string, error) {
	path, query, _ := strings.Cut(database, "?")
	settings, err := url.ParseQuery(query)
	if err != nil {
		return "", fmt.Errorf("DuckDB database %q: the settings after ? do not parse: %w", database, err)
	}
	settings.Set("autoinstall_known_extensions", "false")
	settings.Set("autoload_known_extensions", "false")
	return path + "?" + settings.Encode(), nil
}

// Session returns a new session: one connection of the resource's
// database, with delta_scan and the settings. A session is for one
// goroutine at a time; take one per goroutine.
func (r *Resource) Session(ctx context.Context) (*Session, error) {
	db, err := r.open()
	if err != nil {
		return nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	s := &Session{conn: conn}
	if err := s.setup(ctx, r); err != nil {
		conn.Close()
		return nil, err
	}
	return s, nil
}

func (s *Session) setup(ctx context.Context, r *Resource) error {
	// threads and memory_limit are database-wide in DuckDB: every session
	// sets the same values.
	if r.Threads > 0 {
		if _, err := s.conn.ExecContext(ctx, fmt.Sprintf("SET threads = %d", r.Threads)); err != nil {
			return fmt.Errorf("threads %d: %w", r.Threads, err)
		}
	}
	if r.MemoryLimit != "" {
		if _, err := s.conn.ExecContext(ctx, "SET memory_limit = "+quote(r.MemoryLimit)); err != nil {
			return fmt.Errorf("memory limit %q: %w", r.MemoryLimit, err)
		}
	}
	return addMacros(ctx, s.conn, r.fns)
}

// Close closes the database; sessions still open fail from then on.
func (r *Resource) Close() error {
	if r.db == nil {
		return nil
	}
	if r.fnConn != nil {
		r.fnConn.Close()
	}
	return r.db.Close()
}

// Session is one DuckDB connection with delta_scan: the relations of a
// step are loaded on one session and may be joined with each other.
type Session struct {
	conn *sql.Conn
}

// Conn is the session's connection, for SQL of the caller's own.
func (s *Session) Conn() *sql.Conn { return s.conn }

// Close returns the connection; the session's views go with it.
func (s *Session) Close() error { return s.conn.Close() }

// Load returns the Delta table at uri as a lazy relation: nothing is read
// until it is executed.
func (s *Session) Load(uri string, opts ...LoadOption) *Relation {
	var lo loadOptions
	for _, o := range opts {
		o(&lo)
	}
	args := []string{quote(uri)}
	if lo.version != nil {
		args = append(args, fmt.Sprintf("version => %d", *lo.version))
	}
	if lo.timestamp != "" {
		args = append(args, `"timestamp" => `+quote(lo.timestamp))
	}
	if lo.filter != "" {
		args = append(args, "filter => "+quote(lo.filter))
	}
	cols := "*"
	if len(lo.columns) > 0 {
		q := make([]string, len(lo.columns))
		for i, c := range lo.columns {
			q[i] = quoteIdent(c)
		}
		cols = strings.Join(q, ", ")
	}
	return s.SQL(fmt.Sprintf("SELECT %s FROM %s(%s)", cols, FunctionName, strings.Join(args, ", ")))
}

// SQL returns a lazy relation of a query on the session (which may read
// delta_scan, the session's views and DuckDB's own sources).
func (s *Session) SQL(query string) *Relation { return &Relation{s: s, query: query} }

// LoadOption selects what Load reads.
type LoadOption func(*loadOptions)

type loadOptions struct {
	version   *int64
	timestamp string
	filter    string
	columns   []string
}

// AtVersion reads the table as of version v.
func AtVersion(v int64) LoadOption { return func(o *loadOptions) { o.version = &v } }

// AtTimestamp reads the version current at ts (RFC 3339, or a UTC date or
// timestamp).
func AtTimestamp(ts string) LoadOption { return func(o *loadOptions) { o.timestamp = ts } }

// Where prunes files and filters rows by a predicate in Spark SQL syntax,
// e.g. the partition predicate of an asset's partitions.
func Where(predicate string) LoadOption { return func(o *loadOptions) { o.filter = predicate } }

// Columns reads only these columns, in this order.
func Columns(names ...string) LoadOption { return func(o *loadOptions) { o.columns = names } }

// Relation is a query on a session that runs only when executed (Query,
// Write, Merge). Compose relations through SQL, by View names or by
// embedding SQL() as a subquery.
type Relation struct {
	s     *Session
	query string
}

// SQL is the relation's query.
func (r *Relation) SQL() string { return r.query }

// View names the relation on its session (a temporary view), so other
// queries of the session can join it. Creating it reads no data.
func (r *Relation) View(ctx context.Context, name string) error {
	_, err := r.s.conn.ExecContext(ctx, "CREATE OR REPLACE TEMP VIEW "+quoteIdent(name)+" AS "+r.query)
	if err != nil {
		return fmt.Errorf("view %q: %w", name, err)
	}
	return nil
}

// Query runs the relation and streams its result as Arrow record batches.
// Release the reader when done; the session runs nothing else meanwhile.
func (r *Relation) Query(ctx context.Context) (array.RecordReader, error) {
	var rr array.RecordReader
	err := r.s.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a DuckDB connection")
		}
		ar, err := duckdb.NewArrowFromConn(c)
		if err != nil {
			return err
		}
		rr, err = ar.QueryContext(ctx, r.query)
		return err
	})
	if err != nil {
		return nil, offlineHint(err)
	}
	return rr, nil
}

// offlineHint says why DuckDB lacks an extension a query needs (see
// offlineDSN), which DuckDB's own message does not.
func offlineHint(err error) error {
	var de *duckdb.Error
	if errors.As(err, &de) && (de.Type == duckdb.ErrorTypeMissingExtension || de.Type == duckdb.ErrorTypeAutoLoad) {
		return fmt.Errorf("%w\n\nDuckDB installs and loads no extension by itself here, so that nothing is downloaded; "+
			"delta_scan reads Delta tables on s3://, az:// and gs:// without one", err)
	}
	return err
}

// Write streams the relation's result into the Delta table at uri, as
// deltalite.Write does (every mode; one commit).
func (r *Relation) Write(ctx context.Context, uri string, wo deltalite.WriteOptions) (*deltalite.WriteResult, error) {
	rr, err := r.Query(ctx)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	return deltalite.Write(ctx, uri, rr, wo)
}

// Merge merges the relation's result into the Delta table at uri, as
// deltalite.Merge does.
func (r *Relation) Merge(ctx context.Context, uri string, mo deltalite.MergeOptions) (deltalite.MergeStats, error) {
	rr, err := r.Query(ctx)
	if err != nil {
		return deltalite.MergeStats{}, err
	}
	defer rr.Release()
	return deltalite.Merge(ctx, uri, rr, mo)
}

// quote is s as a SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quoteIdent is s as a SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
