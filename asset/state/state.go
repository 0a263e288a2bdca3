// Package state records which asset partitions are materialized, at which
// table version and with which metadata, for the asset runtime. Store is
// the interface the runtime uses; File is the embedded store: one JSON
// file under a state directory, needing no server, safe for concurrent
// processes (an exclusive lock on a lock file beside it, and every write
// an atomic rename). File also hands out the runtime's claims to the
// processes sharing its directory (Claimer).
package state

import (
	"context"
	"fmt"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Record is one materialized asset partition. Key is "" for an
// unpartitioned asset (or an asset materialized as a whole).
type Record struct {
	Asset string `json:"asset"`
	Key   string `json:"key,omitempty"`
	// Version is the table version the materialization produced, or -1
	// when its handler reported none.
	Version        int64          `json:"version"`
	Metadata       map[string]any `json:"metadata,omitempty"`
	MaterializedAt time.Time      `json:"materialized_at"`
	// Upstream are the table versions of the upstream assets whose changes
	// the materialization read (inputs read as changes), by asset: the
	// next materialization reads the changes after them.
	Upstream map[string]int64 `json:"upstream,omitempty"`
}

// Store holds records, one per (asset, key). Implementations must be safe
// for concurrent use.
type Store interface {
	// Put records recs, replacing those with the same asset and key.
	Put(ctx context.Context, recs ...Record) error
	// Get returns the record of asset and key, and whether there is one.
	Get(ctx context.Context, asset, key string) (Record, bool, error)
	// List returns the records of asset, ordered by key.
	List(ctx context.Context, asset string) ([]Record, error)
	// Clear removes the records of asset with the given keys, or every
	// record of asset when keys is empty.
	Clear(ctx context.Context, asset string, keys ...string) error
}

// LastRead is the version of upstream whose changes consumer's
// materialization of keys (none: the whole asset) read last, nil when it
// never read them. The keys of a backfill must have read the same
// version, as one read serves them all; an error says so otherwise.
func LastRead(ctx context.Context, st Store, consumer, upstream string, keys []string) (*int64, error) {
	if len(keys) == 0 {
		keys = []string{""}
	}
	var out *int64
	for i, k := range keys {
		rec, found, err := st.Get(ctx, consumer, k)
		if err != nil {
			return nil, err
		}
		var last *int64
		if v, ok := rec.Upstream[upstream]; found && ok {
			last = &v
		}
		if i > 0 && !sameVersion(last, out) {
			return nil, errs.New(errs.InvalidArgument, "", "partition keys %q and %q of %q read the changes of %q up to different versions (%s and %s): run them one at a time, or read the whole table again",
				keys[0], k, consumer, upstream, versionText(out), versionText(last))
		}
		out = last
	}
	return out, nil
}

func sameVersion(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func versionText(v *int64) string {
	if v == nil {
		return "never"
	}
	return fmt.Sprint(*v)
}
