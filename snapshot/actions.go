package snapshot

import (
	"maps"
	"slices"
	"time"

	"github.com/deltalite-go/deltalite/protocol"
)

// Properties are the table properties, typed.
func (s *Snapshot) TableProperties() protocol.Properties {
	return protocol.Properties(s.state.Metadata.Configuration)
}

// CheckpointActions is the reconciled state as a checkpoint holds it:
// protocol, metaData, txns, domains, live adds, and the tombstones that
// have not expired at now (delta.deletedFileRetentionDuration).
func (s *Snapshot) CheckpointActions(now time.Time) ([]protocol.Action, error) {
	retention, err := s.TableProperties().DeletedFileRetention()
	if err != nil {
		return nil, err
	}
	cutoff := now.Add(-retention).UnixMilli()
	out := []protocol.Action{{Protocol: s.state.Protocol}, {Metadata: s.state.Metadata}}
	for _, id := range slices.Sorted(maps.Keys(s.state.Txns)) {
		t := s.state.Txns[id]
		out = append(out, protocol.Action{Txn: &t})
	}
	for _, d := range slices.Sorted(maps.Keys(s.state.Domains)) {
		dm := s.state.Domains[d]
		out = append(out, protocol.Action{DomainMetadata: &dm})
	}
	for _, a := range s.state.Files() {
		out = append(out, protocol.Action{Add: a})
	}
	for _, r := range s.state.Tombstones() {
		if r.DeletionTimestamp != nil && *r.DeletionTimestamp < cutoff {
			continue
		}
		out = append(out, protocol.Action{Remove: r})
	}
	return out, nil
}
