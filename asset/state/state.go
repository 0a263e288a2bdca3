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
	"time"
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
