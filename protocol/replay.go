package protocol

import (
	"net/url"
	"sort"
	"strings"
)

// State is the reconciled table state after applying actions in log order
// ("Action Reconciliation" in PROTOCOL.md): the latest protocol and
// metaData win, txn by appId, domainMetadata by domain, and file actions by
// (canonical path, deletion vector id).
type State struct {
	Protocol   *Protocol
	Metadata   *Metadata
	Txns       map[string]Txn
	Domains    map[string]DomainMetadata
	files      map[FileKey]*Add
	tombstones map[FileKey]*Remove
	root       string
}

// FileKey identifies a logical file: its canonical path and DV unique id.
type FileKey struct {
	Path string
	DV   string
}

// NewState returns an empty state for the table rooted at rootURL (used to
// recognise absolute paths that name files inside the table).
func NewState(rootURL string) *State {
	return &State{
		Txns:       map[string]Txn{},
		Domains:    map[string]DomainMetadata{},
		files:      map[FileKey]*Add{},
		tombstones: map[FileKey]*Remove{},
		root:       strings.TrimSuffix(rootURL, "/"),
	}
}

// Clone returns an independent copy sharing the (immutable) actions.
func (s *State) Clone() *State {
	c := NewState(s.root)
	c.Protocol, c.Metadata = s.Protocol, s.Metadata
	for k, v := range s.Txns {
		c.Txns[k] = v
	}
	for k, v := range s.Domains {
		c.Domains[k] = v
	}
	for k, v := range s.files {
		c.files[k] = v
	}
	for k, v := range s.tombstones {
		c.tombstones[k] = v
	}
	return c
}

// CanonicalPath makes the different spellings of one file the same key:
// URI-decoded, "file:/x" and "file:///x" as "/x", and an absolute path
// under the table root as a relative one.
func (s *State) CanonicalPath(p string) string {
	d, err := url.PathUnescape(p)
	if err != nil {
		d = p
	}
	return canonical(d, s.root)
}

func canonical(d, root string) string {
	if strings.HasPrefix(d, "file:") {
		d = "/" + strings.TrimLeft(strings.TrimPrefix(d, "file:"), "/")
	}
	if root != "" {
		r := root
		if strings.HasPrefix(r, "file:") {
			r = "/" + strings.TrimLeft(strings.TrimPrefix(r, "file:"), "/")
		}
		if rel, ok := strings.CutPrefix(d, r+"/"); ok {
			return rel
		}
	}
	return d
}

// Apply folds one action into the state. Actions must come in log order:
// a checkpoint's first, then each commit's in version order.
func (s *State) Apply(a *Action) {
	switch {
	case a.Add != nil:
		k := FileKey{s.CanonicalPath(a.Add.Path), a.Add.DeletionVector.UniqueID()}
		s.files[k] = a.Add
		delete(s.tombstones, k)
	case a.Remove != nil:
		k := FileKey{s.CanonicalPath(a.Remove.Path), a.Remove.DeletionVector.UniqueID()}
		delete(s.files, k)
		s.tombstones[k] = a.Remove
	case a.Metadata != nil:
		s.Metadata = a.Metadata
	case a.Protocol != nil:
		s.Protocol = a.Protocol
	case a.Txn != nil:
		s.Txns[a.Txn.AppID] = *a.Txn
	case a.DomainMetadata != nil:
		if a.DomainMetadata.Removed {
			delete(s.Domains, a.DomainMetadata.Domain)
		} else {
			s.Domains[a.DomainMetadata.Domain] = *a.DomainMetadata
		}
	}
}

// Files returns the live add actions sorted by path.
func (s *State) Files() []*Add {
	out := make([]*Add, 0, len(s.files))
	for _, a := range s.files {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// NumFiles is the number of live files.
func (s *State) NumFiles() int { return len(s.files) }

// Tombstones returns the remove actions still remembered, sorted by path.
func (s *State) Tombstones() []*Remove {
	out := make([]*Remove, 0, len(s.tombstones))
	for _, r := range s.tombstones {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
