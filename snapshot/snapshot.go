// Package snapshot builds immutable table states from the Delta log: the
// newest usable checkpoint plus later commits, at the latest version, at a
// version or at a timestamp, and refreshes a state incrementally.
//
// It reads only the log (never data files) and never writes.
package snapshot

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// Snapshot is the state of a table at one version. It is immutable.
type Snapshot struct {
	store    storage.Store
	version  int64
	state    *protocol.State
	schema   *schema.Struct
	mode     schema.Mode
	segStart int64 // checkpoint version the state was built from (-1: commit 0)
}

// Load builds the latest snapshot of the table in st.
func Load(ctx context.Context, st storage.Store) (*Snapshot, error) {
	return LoadVersion(ctx, st, -1)
}

// LoadVersion builds the snapshot at version v (latest when v < 0).
func LoadVersion(ctx context.Context, st storage.Store, v int64) (*Snapshot, error) {
	s, err := replay(ctx, st, v)
	if err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// replay applies the log up to version v (latest when v < 0) without
// checking that the result is a table this engine can read: History lists
// the commits of a table whose schema it could not read.
func replay(ctx context.Context, st storage.Store, v int64) (*Snapshot, error) {
	seg, err := buildSegment(ctx, st, v)
	if err != nil {
		return nil, err
	}
	state := protocol.NewState(st.URL())
	if len(seg.checkpoint) > 0 {
		if err := applyCheckpoint(ctx, st, seg, state); err != nil {
			return nil, err
		}
	}
	if err := applyCommits(ctx, st, seg.commits, state); err != nil {
		return nil, err
	}
	return &Snapshot{store: st, version: seg.version, state: state, segStart: seg.checkpointVersion}, nil
}

func applyCheckpoint(ctx context.Context, st storage.Store, seg *segment, state *protocol.State) error {
	err := readCheckpoint(ctx, st, seg.checkpoint, func(a protocol.Action) error {
		state.Apply(&a)
		return nil
	})
	return errs.Wrap(errs.CorruptTable, seg.checkpoint[0].Key, err, "reading checkpoint")
}

// commitReadAhead bounds how many commit files are fetched at once; they
// are applied strictly in version order.
const commitReadAhead = 16

func applyCommits(ctx context.Context, st storage.Store, commits []storage.ObjectInfo, state *protocol.State) error {
	for lo := 0; lo < len(commits); lo += commitReadAhead {
		hi := min(lo+commitReadAhead, len(commits))
		batch := make([][]protocol.Action, hi-lo)
		errsOut := make([]error, hi-lo)
		var wg sync.WaitGroup
		for i := lo; i < hi; i++ {
			wg.Add(1)
			go func(i int) {
				defer wg.Done()
				batch[i-lo], errsOut[i-lo] = readCommit(ctx, st, commits[i].Key)
			}(i)
		}
		wg.Wait()
		for i, err := range errsOut {
			if err != nil {
				return err
			}
			for j := range batch[i] {
				state.Apply(&batch[i][j])
			}
		}
	}
	return nil
}

func readCommit(ctx context.Context, st storage.Store, key string) ([]protocol.Action, error) {
	data, err := storage.ReadAll(ctx, st, key)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, key, err, "reading commit")
	}
	actions, err := protocol.DecodeCommit(data)
	if err != nil {
		return nil, errs.Wrap(errs.CorruptTable, key, err, "corrupt commit")
	}
	return actions, nil
}

// validate checks that the state is a table this engine can read.
func (s *Snapshot) validate() error {
	where := protocol.CommitKey(s.version)
	if s.state.Protocol == nil {
		return errs.New(errs.CorruptTable, where, "the log has no protocol action at version %d", s.version)
	}
	if s.state.Metadata == nil {
		return errs.New(errs.CorruptTable, where, "the log has no metaData action at version %d", s.version)
	}
	if bad := protocol.UnsupportedReaderFeatures(s.state.Protocol); len(bad) > 0 {
		return errs.New(errs.UnsupportedTable, s.store.URL(), "the table needs reader support for %s, which this engine does not have",
			strings.Join(bad, ", "))
	}
	sc, err := schema.Parse(s.state.Metadata.SchemaString)
	if err != nil {
		return errs.Wrap(errs.CorruptTable, where, err, "table schema")
	}
	// A reader must fail on a type change it cannot read (PROTOCOL.md,
	// Reader Requirements for Type Widening), as Spark's
	// assertTableReadable does.
	if p := s.state.Protocol; p.HasFeature(protocol.FeatureTypeWidening) || p.HasFeature(protocol.FeatureTypeWideningPreview) {
		if err := schema.CheckTypeChanges(sc); err != nil {
			return errs.Wrap(errs.UnsupportedTable, s.store.URL(), err, "type widening")
		}
	}
	mode, err := schema.ParseMode(s.state.Metadata.Configuration["delta.columnMapping.mode"])
	if err != nil {
		return errs.Wrap(errs.UnsupportedTable, where, err, "column mapping")
	}
	for _, c := range s.state.Metadata.PartitionColumns {
		if sc.Field(c) == nil {
			return errs.New(errs.CorruptTable, where, "partition column %q is not in the schema", c)
		}
	}
	s.schema, s.mode = sc, mode
	return nil
}

// Store is the store rooted at the table.
func (s *Snapshot) Store() storage.Store { return s.store }

// Version is the table version of this snapshot.
func (s *Snapshot) Version() int64 { return s.version }

// Protocol is the table's protocol action.
func (s *Snapshot) Protocol() *protocol.Protocol { return s.state.Protocol }

// Metadata is the table's metaData action.
func (s *Snapshot) Metadata() *protocol.Metadata { return s.state.Metadata }

// Schema is the logical table schema.
func (s *Snapshot) Schema() *schema.Struct { return s.schema }

// PartitionColumns are the table's partition columns, in order.
func (s *Snapshot) PartitionColumns() []string { return s.state.Metadata.PartitionColumns }

// ColumnMapping is the table's column mapping mode.
func (s *Snapshot) ColumnMapping() schema.Mode { return s.mode }

// Properties is the table configuration (delta.* and user keys).
func (s *Snapshot) Properties() map[string]string { return s.state.Metadata.Configuration }

// Files are the live add actions, sorted by path.
func (s *Snapshot) Files() []*protocol.Add { return s.state.Files() }

// NumFiles is the number of live files.
func (s *Snapshot) NumFiles() int { return s.state.NumFiles() }

// Tombstones are the remove actions the log still remembers.
func (s *Snapshot) Tombstones() []*protocol.Remove { return s.state.Tombstones() }

// AppTransactionVersion is the last version committed by appID.
func (s *Snapshot) AppTransactionVersion(appID string) (int64, bool) {
	t, ok := s.state.Txns[appID]
	return t.Version, ok
}

// DomainMetadata returns the configuration of a domain, if set.
func (s *Snapshot) DomainMetadata(domain string) (string, bool) {
	d, ok := s.state.Domains[domain]
	return d.Configuration, ok
}

// Refresh returns the snapshot at the newest version, applying only the
// commits after this one (no replay from a checkpoint) when the log still
// holds them; it returns s itself when nothing changed.
func (s *Snapshot) Refresh(ctx context.Context) (*Snapshot, error) {
	if s.IsEmpty() {
		fresh, err := Load(ctx, s.store)
		if errors.Is(err, errs.ErrTableNotFound) {
			return s, nil
		}
		return fresh, err
	}
	var commits []storage.ObjectInfo
	next := s.version + 1
	for o, err := range s.store.List(ctx, protocol.LogDir, protocol.VersionPrefix(s.version)+"~") {
		if err != nil {
			return nil, errs.Wrap(errs.Internal, s.store.URL(), err, "listing the transaction log")
		}
		f := protocol.ParseLogFile(o.Key)
		if f.Kind != protocol.CommitFile {
			continue
		}
		if f.Version != next {
			// The commits after s were cleaned up behind a newer
			// checkpoint: rebuild from that checkpoint instead.
			return Load(ctx, s.store)
		}
		commits = append(commits, o)
		next++
	}
	if len(commits) == 0 {
		return s, nil
	}
	state := s.state.Clone()
	if err := applyCommits(ctx, s.store, commits, state); err != nil {
		return nil, err
	}
	ns := &Snapshot{store: s.store, version: next - 1, state: state, segStart: s.segStart}
	if err := ns.validate(); err != nil {
		return nil, err
	}
	return ns, nil
}

func (s *Snapshot) String() string {
	return fmt.Sprintf("%s@v%d", s.store.URL(), s.version)
}
