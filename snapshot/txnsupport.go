package snapshot

import (
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// Empty is the table about to be created in st with this protocol and
// metaData (and domains, e.g. a clustered table's delta.clustering):
// version -1, no files. An operation plans against it as against any
// table, and its transaction commits version 0 with the protocol,
// metaData and domains, so creating a table and its first rows is one
// commit. Refresh returns the real table once one exists.
func Empty(st storage.Store, p *protocol.Protocol, md *protocol.Metadata, domains ...*protocol.DomainMetadata) (*Snapshot, error) {
	state := protocol.NewState(st.URL())
	state.Apply(&protocol.Action{Protocol: p})
	state.Apply(&protocol.Action{Metadata: md})
	for _, d := range domains {
		state.Apply(&protocol.Action{DomainMetadata: d})
	}
	s := &Snapshot{store: st, version: -1, state: state, segStart: -1}
	if err := s.validate(); err != nil {
		return nil, err
	}
	return s, nil
}

// IsEmpty reports a snapshot made by Empty, of a table not yet created.
func (s *Snapshot) IsEmpty() bool { return s.version < 0 }

// Advance returns the snapshot after applying commits, which must be the
// actions of versions s.Version()+1, +2, ... in order, as a committer holds
// them after a successful commit. It reads nothing, so the result is the
// table at exactly the last of those versions even when other writers have
// committed since.
// s is left unchanged; the actions are shared, not copied, and must not be
// modified afterwards.
func (s *Snapshot) Advance(commits [][]protocol.Action) (*Snapshot, error) {
	if len(commits) == 0 {
		return s, nil
	}
	state := s.state.Clone()
	for _, c := range commits {
		for i := range c {
			state.Apply(&c[i])
		}
	}
	ns := &Snapshot{store: s.store, version: s.version + int64(len(commits)), state: state,
		segStart: s.segStart}
	if err := ns.validate(); err != nil {
		return nil, err
	}
	return ns, nil
}
