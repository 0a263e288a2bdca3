//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// DuckDB binds a statement that reads Parquet twice: when it prepares it,
// and again when it runs it (read_parquet asks for a new bind at every
// run, and duckdb-go prepares every query). So each delta_scan call is
// planned twice, and each plan opened the table: the log replayed, every
// add action decoded. The snapshots of a registration's delta_scan calls
// are kept, so that the second plan of a query, and the next query of the
// same table, open it with one listing of the log after the kept version
// and one stat of that version's commit (Refresh), instead of a replay.
//
// The cache holds at most maxCachedTables snapshots and maxCachedFiles
// live files in all, the least recently used dropped first; a snapshot of
// more files is not kept. A kept snapshot whose commit file changed or
// went (the table deleted and written again at its URI, the log cleaned
// up) is read again from the log.
const (
	maxCachedTables = 8
	maxCachedFiles  = 100_000
)

// snapshotCache is the kept snapshots of one registration (one set of
// storage options), by URI and version.
type snapshotCache struct {
	mu      sync.Mutex
	entries map[string]*cachedSnapshot
	clock   int64
}

type cachedSnapshot struct {
	snap   *snapshot.Snapshot
	commit storage.ObjectInfo // the snapshot version's commit file when kept
	used   int64
	// plans are the files the snapshot's scans chose, by filter: the
	// second plan of a query (and a query repeated) prunes no file again
	// and parses no statistics.
	plans map[string]*scan.Explanation
}

// maxPlansPerSnapshot bounds the plans a kept snapshot remembers; past it
// they are forgotten together.
const maxPlansPerSnapshot = 4

// snapshotLoads and snapshotPlans count the snapshots the caches read from
// the log and the scans they planned (tests watch them).
var snapshotLoads, snapshotPlans atomic.Int64

func newSnapshotCache() *snapshotCache {
	return &snapshotCache{entries: map[string]*cachedSnapshot{}}
}

// open returns the snapshot of uri: at version when pinned, else the
// latest; load reads it from the log when none is kept (or the kept one
// is stale). A nil cache always loads.
func (c *snapshotCache) open(ctx context.Context, uri string, version *int64, load func() (*snapshot.Snapshot, error)) (*snapshot.Snapshot, error) {
	if c == nil {
		return load()
	}
	key := uri
	if version != nil {
		key += "\x00@" + strconv.FormatInt(*version, 10)
	}
	c.mu.Lock()
	e := c.entries[key]
	c.mu.Unlock()
	if e != nil {
		if snap, ok := e.fresh(ctx, version == nil); ok {
			c.put(ctx, key, snap, e)
			return snap, nil
		}
	}
	snapshotLoads.Add(1)
	snap, err := load()
	if err != nil {
		return nil, err
	}
	c.put(ctx, key, snap, nil)
	return snap, nil
}

// fresh is e's snapshot, refreshed to the latest version with latest;
// false when its commit file is not the one it was read from, or the
// refresh fails (the caller then reads the log afresh).
func (e *cachedSnapshot) fresh(ctx context.Context, latest bool) (*snapshot.Snapshot, bool) {
	st := e.snap.Store()
	info, err := st.Head(ctx, protocol.CommitKey(e.snap.Version()))
	if err != nil || info.Size != e.commit.Size || !info.ModTime.Equal(e.commit.ModTime) {
		return nil, false
	}
	if !latest {
		return e.snap, true
	}
	snap, err := e.snap.Refresh(ctx)
	if err != nil {
		return nil, false
	}
	return snap, true
}

// put keeps snap under key (prev: the entry it refreshed, whose commit
// stat holds when snap is the same snapshot), within the bounds. The last
// put wins: one older than a concurrent call's is refreshed at its next
// use.
func (c *snapshotCache) put(ctx context.Context, key string, snap *snapshot.Snapshot, prev *cachedSnapshot) {
	if snap.IsEmpty() || snap.NumFiles() > maxCachedFiles {
		return
	}
	info := storage.ObjectInfo{}
	if prev != nil && prev.snap == snap {
		info = prev.commit
	} else {
		var err error
		if info, err = snap.Store().Head(ctx, protocol.CommitKey(snap.Version())); err != nil {
			return // a version whose commit is gone (only a checkpoint): not kept
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clock++
	if old := c.entries[key]; old != nil && old.snap == snap {
		old.used = c.clock // the same snapshot: its plans stay
		return
	}
	c.entries[key] = &cachedSnapshot{snap: snap, commit: info, used: c.clock}
	for {
		files, oldest := 0, ""
		var oldestUsed int64
		for k, e := range c.entries {
			files += e.snap.NumFiles()
			if oldest == "" || e.used < oldestUsed {
				oldest, oldestUsed = k, e.used
			}
		}
		if len(c.entries) <= maxCachedTables && files <= maxCachedFiles {
			return
		}
		delete(c.entries, oldest)
	}
}

// explain is the files a scan of snap with filter reads: plan's, or those
// a scan of the same kept snapshot and filter chose before (snapshots are
// immutable, so the choice is the same). A nil cache always plans.
func (c *snapshotCache) explain(ctx context.Context, snap *snapshot.Snapshot, filter string, plan func(context.Context) (*scan.Explanation, error)) (*scan.Explanation, error) {
	if c == nil {
		return plan(ctx)
	}
	c.mu.Lock()
	var e *cachedSnapshot
	for _, x := range c.entries {
		if x.snap == snap {
			e = x
			break
		}
	}
	if p := e.plan(filter); p != nil {
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()
	snapshotPlans.Add(1)
	p, err := plan(ctx)
	if err != nil || e == nil {
		return p, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.plans == nil || len(e.plans) >= maxPlansPerSnapshot {
		e.plans = map[string]*scan.Explanation{}
	}
	e.plans[filter] = p
	return p, nil
}

// plan is e's plan for filter, nil when none (or no e).
func (e *cachedSnapshot) plan(filter string) *scan.Explanation {
	if e == nil {
		return nil
	}
	return e.plans[filter]
}
