// Package deltalite is a Go-native Delta Lake engine: open a table on local
// disk or an object store, read it as Arrow with projection, partition
// pruning and time travel, and (in later layers) write, upsert, merge and
// maintain it.
//
// The root package is the facade: it holds no protocol logic of its own and
// delegates to snapshot (the log), scan (data files) and storage.
package deltalite

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Table is an open Delta table: a store and the snapshot it currently
// shows. Its methods are safe for concurrent use; Reload and Load* swap the
// snapshot atomically.
type Table struct {
	store storage.Store
	mu    sync.RWMutex
	snap  *snapshot.Snapshot
}

type openConfig struct {
	version        *int64
	timestamp      *time.Time
	storageOptions map[string]string
	store          storage.Store
}

// Option configures Open.
type Option func(*openConfig)

// WithVersion opens the table at a version (time travel).
func WithVersion(v int64) Option { return func(c *openConfig) { c.version = &v } }

// WithTimestamp opens the table at the newest version committed at or before t
// (the times History reports); a t after the latest commit is
// ErrInvalidArgument naming that commit's time, as in Spark.
func WithTimestamp(t time.Time) Option { return func(c *openConfig) { c.timestamp = &t } }

// WithStorageOptions passes object-store settings, keyed as delta-rs spells
// them (AWS_REGION, AZURE_STORAGE_ACCOUNT_NAME, ...), case-insensitive.
func WithStorageOptions(o map[string]string) Option {
	return func(c *openConfig) { c.storageOptions = o }
}

// WithStore uses a Store the caller built instead of resolving the URI.
func WithStore(s storage.Store) Option { return func(c *openConfig) { c.store = s } }

func resolve(ctx context.Context, uri string, opts []Option) (*openConfig, storage.Store, error) {
	cfg := &openConfig{}
	for _, o := range opts {
		o(cfg)
	}
	if cfg.version != nil && cfg.timestamp != nil {
		return nil, nil, errs.New(errs.InvalidArgument, uri, "choose a version or a timestamp, not both")
	}
	if cfg.store != nil {
		return cfg, cfg.store, nil
	}
	st, err := storage.Open(ctx, uri, cfg.storageOptions)
	if err != nil {
		return nil, nil, errs.Wrap(errs.InvalidArgument, uri, err, "opening storage")
	}
	return cfg, st, nil
}

// storeOf opens uri for an operation as Open would: store, when not nil,
// is used as it is; otherwise the URI is resolved with storageOptions.
func storeOf(ctx context.Context, uri string, storageOptions map[string]string, store storage.Store) (storage.Store, error) {
	_, st, err := resolve(ctx, uri, []Option{WithStorageOptions(storageOptions), WithStore(store)})
	return st, err
}

// Open opens the Delta table at uri (a path, file://, memory://, or a cloud
// URL once storage/cloud is imported) at its latest version, or at the
// version or timestamp an option asks for.
func Open(ctx context.Context, uri string, opts ...Option) (*Table, error) {
	cfg, st, err := resolve(ctx, uri, opts)
	if err != nil {
		return nil, err
	}
	t := &Table{store: st}
	var snap *snapshot.Snapshot
	switch {
	case cfg.version != nil:
		if *cfg.version < 0 {
			return nil, errs.New(errs.InvalidArgument, uri, "version %d is negative", *cfg.version)
		}
		snap, err = snapshot.LoadVersion(ctx, st, *cfg.version)
	case cfg.timestamp != nil:
		snap, err = snapshot.LoadAt(ctx, st, *cfg.timestamp)
	default:
		snap, err = snapshot.Load(ctx, st)
	}
	if err != nil {
		return nil, err
	}
	t.snap = snap
	return t, nil
}

// IsDeltaTable reports whether uri holds a readable Delta log. A missing
// table is (false, nil); a table that exists but is corrupt is an error.
func IsDeltaTable(ctx context.Context, uri string, opts ...Option) (bool, error) {
	_, st, err := resolve(ctx, uri, opts)
	if err != nil {
		return false, err
	}
	for o, err := range st.List(ctx, protocol.LogDir, "") {
		if err != nil {
			return false, errs.Wrap(errs.Internal, st.URL(), err, "listing the transaction log")
		}
		if f := protocol.ParseLogFile(o.Key); f.Kind != protocol.OtherFile {
			return true, nil
		}
	}
	return false, nil
}

// Snapshot is the state the table currently shows.
func (t *Table) Snapshot() *snapshot.Snapshot {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.snap
}

func (t *Table) set(s *snapshot.Snapshot) {
	t.mu.Lock()
	t.snap = s
	t.mu.Unlock()
}

// moveTo moves t to the table an operation committed (post), else to the
// refreshed snapshot it read.
func (t *Table) moveTo(read, post *snapshot.Snapshot) {
	if post != nil {
		t.set(post)
	} else if read != t.Snapshot() {
		t.set(read)
	}
}

// Store is the store rooted at the table.
func (t *Table) Store() storage.Store { return t.store }

// URI is the table location.
func (t *Table) URI() string { return t.store.URL() }

// Version is the version the table currently shows.
func (t *Table) Version() int64 { return t.Snapshot().Version() }

// Reload moves the table to its newest version, reading only the commits
// after the current one.
func (t *Table) Reload(ctx context.Context) error {
	s, err := t.Snapshot().Refresh(ctx)
	if err != nil {
		return err
	}
	t.set(s)
	return nil
}

// LoadVersion moves the table to version v.
func (t *Table) LoadVersion(ctx context.Context, v int64) error {
	if v < 0 {
		return errs.New(errs.InvalidArgument, t.URI(), "version %d is negative", v)
	}
	s, err := snapshot.LoadVersion(ctx, t.store, v)
	if err != nil {
		return err
	}
	t.set(s)
	return nil
}

// LoadTimestamp moves the table to the newest version committed at or before
// ts, refusing a ts after the latest commit as WithTimestamp does.
func (t *Table) LoadTimestamp(ctx context.Context, ts time.Time) error {
	s, err := snapshot.LoadAt(ctx, t.store, ts)
	if err != nil {
		return err
	}
	t.set(s)
	return nil
}

// Schema is the table schema as Arrow (logical column names).
func (t *Table) Schema() (*arrow.Schema, error) {
	return schema.ToArrow(t.Snapshot().Schema(), schema.ArrowOptions{})
}

// DeltaSchema is the table schema as Delta types.
func (t *Table) DeltaSchema() *schema.Struct { return t.Snapshot().Schema() }

// PartitionColumns are the table's partition columns.
func (t *Table) PartitionColumns() []string { return t.Snapshot().PartitionColumns() }

// Metadata is the table's metaData action.
func (t *Table) Metadata() *protocol.Metadata { return t.Snapshot().Metadata() }

// Protocol is the table's protocol action.
func (t *Table) Protocol() *protocol.Protocol { return t.Snapshot().Protocol() }

// FileURIs lists the absolute URIs of the table's live data files.
func (t *Table) FileURIs() []string {
	files := t.Snapshot().Files()
	root := strings.TrimSuffix(t.URI(), "/")
	out := make([]string, len(files))
	for i, f := range files {
		p, err := protocol.DecodePath(f.Path)
		if err != nil {
			p = f.Path
		}
		if protocol.HasScheme(p) || strings.HasPrefix(p, "/") {
			out[i] = p
		} else {
			out[i] = root + "/" + p
		}
	}
	return out
}

// History returns up to limit commits, newest first (all when limit <= 0).
func (t *Table) History(ctx context.Context, limit int) ([]snapshot.Commit, error) {
	return snapshot.History(ctx, t.store, limit)
}

// Scan reads the version the table shows; see package scan for options
// (columns, partition and statistics filters, limit, batch size).
func (t *Table) Scan(opts ...scan.Option) *scan.Scan { return scan.New(t.Snapshot(), opts...) }
