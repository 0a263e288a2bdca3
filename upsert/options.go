package upsert

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/metrics"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Prune strategies.
const (
	// PruneProbe prunes files by statistics, then reads the key columns of
	// the rest and rewrites only files holding a source key.
	PruneProbe = "probe"
	// PruneStats prunes files by statistics only and rewrites the rest.
	PruneStats = "stats"
	// PruneNone rewrites every file of a touched partition.
	PruneNone = "none"
)

// Defaults of the options.
const (
	DefaultMaxParallelPartitions = 2
	DefaultMaxParallelFiles      = limits.DefaultMaxParallelFiles
	DefaultMaxBufferedBytes      = limits.DefaultMaxBufferedBytes
	DefaultProbeConcurrency      = 8
	DefaultReadBatchSize         = limits.DefaultReadBatchSize
	// NoSourceLimit as MaxSourceBytes turns the source guard off.
	NoSourceLimit = -1
)

// Options configure one upsert. The zero value of every knob means its
// default, so Options{PrimaryKeys: ...} is a complete configuration.
type Options struct {
	// PrimaryKeys name the key columns: top-level table columns of any
	// comparable type (integers, floats, booleans, decimals, dates,
	// timestamps, strings, binaries). Required.
	PrimaryKeys []string
	// PartitionBy is an optional hint: the table's partitioning decides.
	// On a partitioned table it must name one of its partition columns, or
	// all of them in order; an unpartitioned table ignores it. A table the
	// upsert creates is partitioned by these columns.
	PartitionBy []string
	// CreateIfMissing lets deltalite.Upsert create the table when there is
	// none, in the same commit as the rows (version 0): its columns are the
	// source's (less DeleteColumn), partitioned by PartitionBy, with
	// Properties. An upsert that fails or has no rows creates nothing.
	CreateIfMissing bool
	// Properties are the table properties of a table the upsert creates
	// (delta.* and user keys).
	Properties map[string]string
	// ClusterBy makes a table the upsert creates clustered by these
	// columns (liquid clustering); it excludes PartitionBy.
	ClusterBy []string
	// Deprecated: PartitionKey is PartitionBy as one comma-separated
	// string (the Python deltalite's partition_key); PartitionBy wins.
	PartitionKey string
	// Deprecated: TableProperties is Properties' old name; Properties wins.
	TableProperties map[string]string
	// MaxParallelPartitions is how many partitions are rewritten at once
	// (default 2).
	MaxParallelPartitions int
	// MaxParallelFiles is how many files of one partition are read at once
	// (default 4).
	MaxParallelFiles int
	// MaxBufferedBytes bounds the data buffered in memory (default 64 MiB):
	// half for decoded batches in flight, half for the writers' buffers.
	MaxBufferedBytes int64
	// PruneStrategy is PruneProbe (default), PruneStats or PruneNone.
	PruneStrategy string
	// ProbeConcurrency is how many files are probed at once (default 8).
	ProbeConcurrency int
	// ReadBatchSize caps the rows of a decoded batch (default 8192); wide
	// rows get smaller batches.
	ReadBatchSize int
	// TargetFileSize is the size of written files; 0 takes the table's
	// delta.targetFileSize, else 100 MiB.
	TargetFileSize int64
	// CopyOnWrite rewrites the files whose rows change even where the table
	// has deletion vectors on (delta.enableDeletionVectors), which by
	// default mark the rows that leave a file instead (the CLI's
	// --deletion-vectors=off).
	CopyOnWrite bool
	// MaxSourceBytes refuses a source whose estimated footprint (its Arrow
	// bytes, row selections and key sets) exceeds it, with
	// deltalite.ErrSourceTooLarge. 0 takes the process limit
	// (DELTALITE_MAX_SOURCE_BYTES, default 2 GiB, where 0 disables the
	// guard); NoSourceLimit disables it for this call.
	MaxSourceBytes int64
	// MultipartThreshold and MultipartPartSize size the uploads of this
	// call's data files on cloud stores (storage.UploadTuner): a file of
	// more than MultipartThreshold bytes goes up in parts of
	// MultipartPartSize. 0 keeps the store's setting, from its storage
	// options MULTIPART_THRESHOLD_BYTES / MULTIPART_PART_SIZE_BYTES, else
	// DELTALITE_MULTIPART_THRESHOLD_BYTES / ..._PART_SIZE_BYTES, else 64 /
	// 16 MiB. Local and memory stores have no uploads to size.
	MultipartThreshold, MultipartPartSize int64
	// CommitMaxRetries is how many times a commit that lost the race for a
	// version is retried (default 15), and how many times an upsert whose
	// commit conflicts with another writer's plans again on the newer
	// table; negative means none.
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// AppID and AppVersion make the upsert idempotent: the commit carries a
	// txn action (AppID, AppVersion), and an upsert whose AppID the table
	// has already seen at AppVersion or later is skipped (Stats.Skipped).
	AppID      string
	AppVersion int64
	// DeleteColumn names an optional boolean source column: rows where it
	// is true delete their key (the matched row is removed, nothing is
	// inserted). It is not written to the table.
	DeleteColumn string
	// SessionTimeZone is the time zone this operation reads a TIMESTAMP
	// in, as Spark's spark.sql.session.timeZone: for
	// the table's generated columns and CHECK constraints (CAST(ts AS
	// DATE), hour(ts), date_format(ts, ...), from_unixtime, ...). A region
	// ("America/New_York"), "UTC", "Z" or an offset ("+05:30"); "" is UTC,
	// the default (a table does not record its writers' zone). Give the
	// zone the table's Spark writers run with.
	SessionTimeZone string
	// AllowEmptyCommit makes an upsert of an empty source commit one
	// action-less commit (carrying CommitMetadata and the txn action);
	// otherwise an empty source commits nothing.
	AllowEmptyCommit bool
	// Limits are the process limits the call's budget draws from (default
	// limits.Process()).
	Limits *limits.Limits
	// Metrics record the upsert (default metrics.Default()).
	Metrics *metrics.Metrics
	// StorageOptions are the object-store settings deltalite.Upsert opens
	// the table's URI with, keyed as delta-rs spells them; Store, when set,
	// is used instead of resolving the URI. Run is handed a snapshot and
	// ignores both.
	StorageOptions map[string]string
	Store          storage.Store

	// mem allocates every Arrow buffer; tests count allocations with it.
	mem memory.Allocator
	// trace, when set, counts what the probe read and skipped.
	trace *trace
}

// trace counts the probe's decisions, for tests.
type trace struct {
	narrowFiles, scanFiles                       atomic.Int64
	rowGroupsRead                                atomic.Int64
	rowGroupsSkippedStats, rowGroupsSkippedBloom atomic.Int64
	markedByProbe                                atomic.Int64                  // partitions whose change the full probe's hits made
	budget                                       atomic.Pointer[limits.Budget] // the call's budget, once made
}

// config is Options resolved against a snapshot.
type config struct {
	Options
	strategy  string
	maxSource int64
	budget    limits.CallConfig
	writerBuf int64 // MaxUnwrittenBytes of each partition's writer
	mem       memory.Allocator

	table     *schema.Struct
	tableArw  *arrow.Schema
	mode      schema.Mode
	parts     []*schema.Field // partition columns, in table order of PartitionColumns
	partKeys  []string        // their partitionValues keys
	keyFields []*schema.Field // key columns that are not partition columns, in PrimaryKeys order
	keyIdx    []int           // their index in the table schema
	keyTypes  []arrow.DataType
	allKeys   []*schema.Field // every primary key column, for messages
	// rules are the table's rules of new rows, which the source rows go
	// through as they are read (each attempt numbers them again: run.rules).
	rules *colrules.Rules
	// sess is the session of SessionTimeZone, the rules bound in it.
	sess expr.Session
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

// resolve validates opt against the table snap shows.
func resolve(snap *snapshot.Snapshot, opt Options) (*config, error) {
	c := &config{Options: opt.Normalized()}
	if len(opt.PrimaryKeys) == 0 {
		return nil, invalid("an upsert needs at least one primary key column (PrimaryKeys)")
	}
	switch s := strings.ToLower(strings.TrimSpace(opt.PruneStrategy)); s {
	case "":
		c.strategy = PruneProbe
	case PruneProbe, PruneStats, PruneNone:
		c.strategy = s
	default:
		return nil, invalid("unknown PruneStrategy %q (want %q, %q or %q)", opt.PruneStrategy, PruneProbe, PruneStats, PruneNone)
	}
	if err := errs.NonNegative("upsert: ",
		errs.Knob{Name: "MaxParallelPartitions", Value: int64(opt.MaxParallelPartitions)},
		errs.Knob{Name: "MaxParallelFiles", Value: int64(opt.MaxParallelFiles)},
		errs.Knob{Name: "MaxBufferedBytes", Value: opt.MaxBufferedBytes},
		errs.Knob{Name: "ProbeConcurrency", Value: int64(opt.ProbeConcurrency)},
		errs.Knob{Name: "ReadBatchSize", Value: int64(opt.ReadBatchSize)},
		errs.Knob{Name: "TargetFileSize", Value: opt.TargetFileSize},
		errs.Knob{Name: "MultipartThreshold", Value: opt.MultipartThreshold},
		errs.Knob{Name: "MultipartPartSize", Value: opt.MultipartPartSize}); err != nil {
		return nil, err
	}
	if opt.MaxSourceBytes < NoSourceLimit {
		return nil, invalid("MaxSourceBytes must be 0 (process limit), NoSourceLimit (-1) or positive (got %d)", opt.MaxSourceBytes)
	}
	var err error
	if c.sess, err = op.Session(opt.SessionTimeZone); err != nil {
		return nil, err
	}
	if opt.AppID == "" && opt.AppVersion != 0 {
		return nil, invalid("AppVersion %d was given without an AppID", opt.AppVersion)
	}
	if opt.AppID != "" && opt.AppVersion < 0 {
		return nil, invalid("AppVersion must not be negative (got %d)", opt.AppVersion)
	}
	c.MaxParallelPartitions = orDefault(opt.MaxParallelPartitions, DefaultMaxParallelPartitions)
	c.MaxParallelFiles = orDefault(opt.MaxParallelFiles, DefaultMaxParallelFiles)
	c.ProbeConcurrency = orDefault(opt.ProbeConcurrency, DefaultProbeConcurrency)
	c.ReadBatchSize = orDefault(opt.ReadBatchSize, DefaultReadBatchSize)
	c.CommitMaxRetries = orDefault(opt.CommitMaxRetries, txn.DefaultMaxRetries)
	if opt.CommitMaxRetries < 0 {
		c.CommitMaxRetries = -1
	}
	buffered := opt.MaxBufferedBytes
	if buffered == 0 {
		buffered = DefaultMaxBufferedBytes
	}
	c.MaxBufferedBytes = buffered
	if c.Limits == nil {
		c.Limits = limits.Process()
	}
	if c.Metrics == nil {
		c.Metrics = metrics.Default()
	}
	switch c.maxSource = opt.MaxSourceBytes; c.maxSource {
	case 0:
		c.maxSource = c.Limits.Config().MaxSourceBytes
	case NoSourceLimit:
		c.maxSource = 0 // no guard
	}
	// Half the buffer bounds decoded batches through the budget; the other
	// half is split among the partition writers, whose buffers a budget
	// cannot hold without a writer ever waiting on it.
	c.budget = limits.CallConfig{
		MaxParallelPartitions: c.MaxParallelPartitions,
		MaxParallelFiles:      c.MaxParallelPartitions * c.MaxParallelFiles,
		MaxDecodedBytes:       max(buffered/2, 1),
	}
	c.writerBuf = max(buffered/2/int64(c.MaxParallelPartitions), 256<<10)
	c.mem = opt.mem
	if c.mem == nil {
		c.mem = memory.DefaultAllocator
	}

	c.table = snap.Schema()
	c.mode = snap.ColumnMapping()
	arw, err := schema.ToArrow(c.table, schema.ArrowOptions{})
	if err != nil {
		return nil, errs.Wrap(errs.UnsupportedTable, "", err, "table schema")
	}
	c.tableArw = arw
	if c.rules, err = colrules.For(snap.Metadata(), c.table, c.sess); err != nil {
		return nil, err
	}
	isPart := map[*schema.Field]bool{}
	for _, name := range snap.PartitionColumns() {
		f := c.table.Field(name)
		if f == nil {
			return nil, errs.New(errs.CorruptTable, "", "partition column %q is not in the table schema", name)
		}
		isPart[f] = true
		c.parts = append(c.parts, f)
		c.partKeys = append(c.partKeys, f.PhysicalName(c.mode))
	}
	if err := c.checkHint(); err != nil {
		return nil, err
	}
	seen := map[*schema.Field]bool{}
	for _, name := range opt.PrimaryKeys {
		f := c.table.Field(name)
		if f == nil {
			return nil, errs.New(errs.SchemaMismatch, "", "primary key column %q is not in the table (columns: %s)", name, columnList(c.table))
		}
		if seen[f] {
			return nil, invalid("primary key column %q is named twice", f.Name)
		}
		seen[f] = true
		c.allKeys = append(c.allKeys, f)
		dt := arw.Field(c.table.Index(f.Name)).Type
		if !keyType(dt) {
			return nil, invalid("primary key column %q has type %s, which cannot be a key (keys are integers, floats, booleans, decimals, dates, timestamps, strings or binaries)", f.Name, f.Type)
		}
		if isPart[f] {
			continue // the partition is part of the identity anyway
		}
		c.keyFields = append(c.keyFields, f)
		c.keyIdx = append(c.keyIdx, c.table.Index(f.Name))
		c.keyTypes = append(c.keyTypes, dt)
	}
	if opt.DeleteColumn != "" && c.table.Field(opt.DeleteColumn) != nil {
		return nil, invalid("DeleteColumn %q is also a table column; name a source-only column", opt.DeleteColumn)
	}
	return c, nil
}

// Normalized returns o with the values of its deprecated fields under
// their current names (which win when both are set).
func (o Options) Normalized() Options {
	if len(o.PartitionBy) == 0 && strings.TrimSpace(o.PartitionKey) != "" {
		for _, c := range strings.Split(o.PartitionKey, ",") {
			o.PartitionBy = append(o.PartitionBy, strings.TrimSpace(c))
		}
	}
	if o.Properties == nil {
		o.Properties = o.TableProperties
	}
	o.PartitionKey, o.TableProperties = "", nil
	return o
}

// checkHint compares PartitionBy with the table's partitioning.
func (c *config) checkHint() error {
	given := c.PartitionBy
	if len(given) == 0 || len(c.parts) == 0 {
		return nil
	}
	names := make([]string, len(c.parts))
	for i, f := range c.parts {
		names[i] = f.Name
	}
	ok := len(given) == 1 && slices.ContainsFunc(names, func(n string) bool { return strings.EqualFold(n, given[0]) })
	if !ok && len(given) == len(names) {
		ok = true
		for i := range given {
			ok = ok && strings.EqualFold(given[i], names[i])
		}
	}
	if !ok {
		return invalid("the table is partitioned by %s but the upsert was given partition columns %s", strings.Join(quoted(names), ", "), strings.Join(quoted(given), ", "))
	}
	return nil
}

func keyType(dt arrow.DataType) bool {
	switch dt.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32, arrow.TIMESTAMP, arrow.BOOL,
		arrow.FLOAT32, arrow.FLOAT64, arrow.DECIMAL128, arrow.STRING, arrow.BINARY:
		return true
	}
	return false
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%q", n)
	}
	return out
}

func columnList(sc *schema.Struct) string {
	names := make([]string, len(sc.Fields))
	for i, f := range sc.Fields {
		names[i] = f.Name
	}
	return strings.Join(quoted(names), ", ")
}

// count records into the trace, if any.
func (c *config) count(f func(*trace)) {
	if c.trace != nil {
		f(c.trace)
	}
}
