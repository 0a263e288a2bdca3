package iohandler

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/write"
)

// TypeHandler moves one kind of value in and out of Delta tables: the
// DuckDB and Spark integrations plug in through it. The handler resolves
// everything (table URI, mode semantics with a partition key, predicates,
// merge scoping, properties) into the request; a type handler only moves
// data, and returns the metadata only it knows (OutNumRows, and for
// merges OutNumOutputRows and OutMergeStats): the handler adds the rest.
type TypeHandler interface {
	Handles(t reflect.Type) bool
	Write(ctx context.Context, req *WriteRequest, v any) (Metadata, error)
	Read(ctx context.Context, req *ReadRequest, t reflect.Type) (any, error)
}

// TypeNamer is optionally implemented by a TypeHandler to name the types
// it handles in the error for an unsupported type.
type TypeNamer interface {
	TypeNames() []string
}

var registry struct {
	sync.RWMutex
	list []TypeHandler
}

// RegisterTypeHandler adds th to the handlers every Handler consults, after
// those registered before it and before the built-in Arrow/struct handler:
// the first whose Handles reports true takes the value.
func RegisterTypeHandler(th TypeHandler) {
	registry.Lock()
	defer registry.Unlock()
	registry.list = append(registry.list, th)
}

// handlerFor finds the type handler of t; verb (store, load) words the
// error, which lists the supported types.
func handlerFor(t reflect.Type, verb string) (TypeHandler, error) {
	registry.RLock()
	list := append(append([]TypeHandler(nil), registry.list...), builtin)
	registry.RUnlock()
	if t != nil {
		for _, th := range list {
			if th.Handles(t) {
				return th, nil
			}
		}
	}
	var names []string
	for _, th := range list {
		if n, ok := th.(TypeNamer); ok {
			names = append(names, n.TypeNames()...)
		} else {
			names = append(names, fmt.Sprintf("%T", th))
		}
	}
	what := "<nil>"
	if t != nil {
		what = t.String()
	}
	return nil, fmt.Errorf("no type handler can %s a %s; supported types: %s", verb, what, strings.Join(names, ", "))
}

// WriteRequest is one resolved write.
type WriteRequest struct {
	Asset    string
	TableURI string
	// StorageOptions open the table (secret values: never log them).
	StorageOptions map[string]string
	// Mode is what to do: overwrite, append, error, ignore (the table is
	// missing, or the key's partition was empty: write), merge or
	// create_or_replace. An ignore that skips never reaches a type
	// handler; one with a key carries PartitionPredicate as WriteOptions'
	// IgnoreWhere, so that the write decides again on the table it commits
	// to and skips when a concurrent run wrote the partition first.
	Mode       string
	SchemaMode string // "", merge or overwrite
	// PartitionKeys are the run's keys; PartitionBy the table's partition
	// columns (from delta/partition_expr), nil for an unpartitioned asset.
	PartitionKeys []string
	PartitionBy   []string
	// ClusterBy are the clustering columns of a table the write creates
	// (delta/cluster_by), nil for a table that is not clustered.
	ClusterBy []string
	// PartitionPredicate selects the keys' rows ("" without keys), typed
	// against the table's schema when it exists.
	PartitionPredicate string
	// ReplaceWhere is the predicate an overwrite replaces (the keys'
	// partition); "" replaces the whole table.
	ReplaceWhere string
	// Merge is the merge of mode merge, already scoped to the partition
	// and carrying the properties and engine knobs below.
	Merge       *merge.Options
	TableConfig map[string]string // the table's properties
	Writer      WriterProperties
	Commit      CommitProperties
	Engine      EngineSettings
	// SessionTimeZone is the time zone the write reads a TIMESTAMP in
	// (Config.SessionTimeZone; "" is UTC).
	SessionTimeZone string
	// Table is the table as the handler opened it (its configuration
	// applied), nil when it is missing: a type handler writes through it
	// (Table.Write, Table.Merge), so one write reads the log once.
	Table *deltalite.Table
}

// WriteOptions are the engine's write options of a request that is not a
// merge.
func (r *WriteRequest) WriteOptions() write.Options {
	o := write.Options{Mode: write.Mode(r.Mode), SchemaMode: write.SchemaMode(r.SchemaMode), PartitionBy: r.PartitionBy,
		ClusterBy: r.ClusterBy, ReplaceWhere: r.ReplaceWhere, IgnoreWhere: r.ignoreWhere(), Properties: r.TableConfig, TargetFileSize: r.Writer.TargetFileSize,
		Compression: strings.ToLower(r.Writer.Compression), CommitMetadata: r.Commit.CustomMetadata,
		StorageOptions: r.StorageOptions, SessionTimeZone: r.SessionTimeZone}
	o.CommitMaxRetries = r.Commit.EngineRetries()
	o.AppID, o.AppVersion = r.Commit.AppTxn()
	return o
}

// ignoreWhere is what a keyed ignore's write must find empty.
func (r *WriteRequest) ignoreWhere() string {
	if r.Mode != ModeIgnore {
		return ""
	}
	return r.PartitionPredicate
}

// ReadRequest is one resolved read.
type ReadRequest struct {
	Asset          string
	TableURI       string
	StorageOptions map[string]string
	// Columns to read, in order; nil reads every column.
	Columns []string
	// Version is the version read (nil: the latest).
	Version *int64
	// PartitionKeys are the run's keys and Predicate their rows ("" reads
	// every row), typed against the table's schema.
	PartitionKeys []string
	Predicate     string
	Engine        EngineSettings
	// SessionTimeZone is the time zone Predicate reads a TIMESTAMP in
	// (Config.SessionTimeZone; "" is UTC).
	SessionTimeZone string
	// Table is the table, opened at Version, for handlers in this process.
	Table *deltalite.Table
	// Changes, when set, asks for the change rows instead of the table's
	// (delta/read=changes); only the built-in handler reads them.
	Changes *ChangesRead
}

// ChangesRead is what a changes load reads: the change rows of the
// versions after After up to the Table's version, or with After nil the
// table's rows as inserts at its version.
type ChangesRead struct {
	After *int64
}

// explain adds to an error reading changes what the consumer can do; err
// as it is when c is nil.
func (c *ChangesRead) explain(err error) error {
	if c == nil || c.After == nil {
		return err
	}
	return errs.Wrap(errs.Internal, "", err, "reading the changes after version %d (a full materialization reads the whole table again instead)", *c.After)
}

// scopeMerge limits o to the rows of the partition predicate pred (over
// the target's columns): pred, qualified with the target alias, is ANDed
// into the ON condition, so no target row outside the partition matches,
// and into every NOT MATCHED BY SOURCE clause, so none outside it is
// updated or deleted. A preset becomes its clauses.
func scopeMerge(o merge.Options, pred string) (merge.Options, error) {
	clauses, err := o.Plan()
	if err != nil {
		return o, err
	}
	p, err := expr.Parse(pred)
	if err != nil {
		return o, err
	}
	_, target := o.Aliases()
	q := expr.Qualify(p, target).String()
	o.Predicate = "(" + o.Predicate + ") AND (" + q + ")"
	for i, c := range clauses {
		if c.When != merge.NotMatchedBySource {
			continue
		}
		if c.Predicate == "" {
			clauses[i].Predicate = q
		} else {
			clauses[i].Predicate = "(" + c.Predicate + ") AND (" + q + ")"
		}
	}
	o.MergeType, o.Clauses = merge.TypeCustom, clauses
	return o, nil
}

// EngineRetries is MaxCommitRetries as the engine's options
// (CommitMaxRetries) spell it: 0 there means the default, and a negative
// count none, where the seed's 0 means none. The maintenance verbs of
// package asset commit with it too.
func (c CommitProperties) EngineRetries() int {
	switch {
	case c.MaxCommitRetries == nil:
		return 0
	case *c.MaxCommitRetries == 0:
		return -1
	}
	return *c.MaxCommitRetries
}

// AppTxn is the app transaction of the commit as the engine's options
// spell it (AppID "" when none).
func (c CommitProperties) AppTxn() (string, int64) {
	if len(c.AppTransactions) == 1 {
		return c.AppTransactions[0].AppID, c.AppTransactions[0].Version
	}
	return "", 0
}

// WriteArrow writes a stream of record batches as req asks, every mode
// and merge included, as the built-in Arrow handler does: a type handler
// whose values convert to Arrow (DuckDB's results) writes through it.
func WriteArrow(ctx context.Context, req *WriteRequest, rr array.RecordReader) (Metadata, error) {
	return writeArrow(ctx, req, rr)
}
