package snapshot

import (
	"time"

	"github.com/deltalite-go/deltalite/protocol"
)

// Advance returns the snapshot after applying commits, which must be the
// actions of versions s.Version()+1, +2, ... in order, as a committer holds
// them after a successful commit. It reads nothing, so the result is the
// table at exactly the last of those versions even when other writers have
// committed since. modTime stands in for the newest commit file's time.
// s is left unchanged; the actions are shared, not copied, and must not be
// modified afterwards.
func (s *Snapshot) Advance(commits [][]protocol.Action, modTime time.Time) (*Snapshot, error) {
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
		segStart: s.segStart, modTime: modTime}
	if err := ns.validate(); err != nil {
		return nil, err
	}
	return ns, nil
}
