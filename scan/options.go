package scan

import (
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/arrowmem"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/scanhook"
	"github.com/deltalite-go/deltalite/protocol"
)

// Defaults of the read options.
const (
	DefaultBatchSize   = 8192
	DefaultParallelism = 1
)

// Scan is a planned-on-demand read of a Source. It is immutable: options
// are fixed by New, and With derives a new Scan. Its methods are safe for
// concurrent use.
type Scan struct {
	src           Source
	files         []*protocol.Add // with chosen: the files to read instead of src's
	chosen        bool
	columns       []string // nil: every column, in schema order
	filters       []Filter
	given         []*expr.Bound                // predicates the engine gave bound (withBound)
	rowsOnly      map[*protocol.Add]*dv.Bitmap // files read at these positions only (withRowsOnly)
	rowIndex      bool                         // append RowIndexColumn (WithRowIndex)
	rowTracking   bool                         // append RowIDColumn and RowCommitVersionColumn (WithRowTracking)
	wheres        []string                     // SQL predicates, bound when the scan is planned
	zone          string                       // the session time zone they are bound in (WithSessionTimeZone)
	batchSize     int
	limit         int64 // < 0: no limit
	parallelism   int
	columnsAtOnce bool     // decode a file's columns concurrently (no WithParallelism)
	dictionaries  []string // columns that may stay dictionaries (WithDictionaries)
	mem           memory.Allocator
}

// Option configures a Scan.
type Option func(*Scan)

// New returns a scan of src.
func New(src Source, opts ...Option) *Scan {
	s := &Scan{src: src, batchSize: DefaultBatchSize, limit: -1, parallelism: DefaultParallelism, columnsAtOnce: true, mem: arrowmem.Default}
	for _, o := range opts {
		o(s)
	}
	return s
}

// With returns a copy of s with more options applied.
func (s *Scan) With(opts ...Option) *Scan {
	c := *s
	c.columns = append([]string(nil), s.columns...)
	if s.columns == nil {
		c.columns = nil
	}
	c.files = append([]*protocol.Add(nil), s.files...)
	c.filters = append([]Filter(nil), s.filters...)
	c.given = append([]*expr.Bound(nil), s.given...)
	c.wheres = append([]string(nil), s.wheres...)
	for _, o := range opts {
		o(&c)
	}
	return &c
}

// WithColumns selects the columns to read, by logical name, in output
// order. With no names the batches have no columns, only a row count.
// Without this option every column is read in schema order.
func WithColumns(names ...string) Option {
	return func(s *Scan) { s.columns = append(make([]string, 0, len(names)), names...) }
}

// RowIndexColumn is the column WithRowIndex appends: each row's position
// in its data file, counting rows a deletion vector deletes (Spark's
// _metadata.row_index).
const RowIndexColumn = "_metadata.row_index"

// WithRowIndex appends RowIndexColumn (int64, not null) after the selected
// columns: the physical position of each row in its file, the position a
// deletion vector names.
func WithRowIndex() Option {
	return func(s *Scan) { s.rowIndex = true }
}

// WithFiles makes the scan read exactly these files, in this order, instead
// of the source's live files: an operation reads the files it planned
// (iceberg-go's ReadTasks). They must be files of the source's table; the
// source still gives the schema, partition columns and store. Predicates
// and filters still skip files among them.
func WithFiles(files ...*protocol.Add) Option {
	return func(s *Scan) {
		s.files = append(make([]*protocol.Add, 0, len(files)), files...)
		s.chosen = true
	}
}

// WithFilters adds filters; a row is returned only if it satisfies all of
// them. Filters on partition columns prune files exactly; filters on data
// columns skip files whose statistics prove no row matches, and are then
// applied to the rows of the files that are read.
func WithFilters(f ...Filter) Option {
	return func(s *Scan) { s.filters = append(s.filters, f...) }
}

// WithWhere adds a SQL predicate in Spark's syntax, e.g.
// "day >= '2026-01-01' AND score > 8"; a row is returned only if it IS
// TRUE for the row. It is bound against the source's schema when the scan
// is planned (an error then names what does not parse or bind). Files
// whose partition values and statistics rule out every row are not read;
// the rows of the others are filtered. The predicate may read columns the
// scan does not return.
func WithWhere(sql string) Option {
	return func(s *Scan) { s.wheres = append(s.wheres, sql) }
}

// WithSessionTimeZone is the time zone WithWhere's predicates and
// WithFilters' values read a TIMESTAMP in, as Spark's
// spark.sql.session.timeZone: a timestamp literal or text without a zone
// is a local time there, and CAST(ts AS DATE), hour(ts), date_format(ts,
// ...) and the like take the local date and time; a generated partition
// column (d = CAST(ts AS DATE)) is taken as computed in it when a
// predicate on its source skips partitions. A region ("America/New_York"),
// "UTC", "Z" or an offset ("+05:30"); "" is UTC, the default. A zone Spark
// would not read fails the scan when it is planned.
func WithSessionTimeZone(zone string) Option {
	return func(s *Scan) { s.zone = zone }
}

// withBound adds a predicate the engine bound itself (scanhook.WithBound):
// decided and evaluated as WithWhere's. A nil predicate is ignored.
func withBound(p *expr.Bound) Option {
	return func(s *Scan) {
		if p != nil {
			s.given = append(s.given, p)
		}
	}
}

// withRowsOnly reads only the given positions of the given files
// (scanhook.WithRowsOnly).
func withRowsOnly(rows map[*protocol.Add]*dv.Bitmap) Option {
	return func(s *Scan) { s.rowsOnly = rows }
}

func init() {
	scanhook.WithBound = func(p *expr.Bound) any { return withBound(p) }
	scanhook.WithRowsOnly = func(rows map[*protocol.Add]*dv.Bitmap) any { return withRowsOnly(rows) }
}

// WithBatchSize sets the number of rows per record batch read from a file
// (default 8192). Batches never span files or row groups, and batches of
// files with deleted or filtered rows are smaller.
func WithBatchSize(n int) Option {
	return func(s *Scan) {
		if n > 0 {
			s.batchSize = n
		}
	}
}

// WithLimit stops the scan once n rows were produced (n ≥ 0).
func WithLimit(n int64) Option {
	return func(s *Scan) {
		if n >= 0 {
			s.limit = n
		}
	}
}

// WithParallelism sets how many files are read at the same time, each
// decoded on one goroutine. Without it, files are read one at a time and
// the columns of a file are decoded concurrently: the cores are used with
// the memory of one file's readers (its pages and dictionaries), not n
// files'. Output order is the plan's file order whatever the parallelism.
func WithParallelism(n int) Option {
	return func(s *Scan) {
		if n > 0 {
			s.parallelism = n
			s.columnsAtOnce = false
		}
	}
}

// WithAllocator sets the allocator of every Arrow buffer the scan makes
// (default: the pool described in the package documentation).
func WithAllocator(mem memory.Allocator) Option {
	return func(s *Scan) {
		if mem != nil {
			s.mem = mem
		}
	}
}
