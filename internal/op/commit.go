package op

import (
	"context"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Commit is the one commit of a row-rewriting operation: what it read (so
// that the conflict checker sees it) and what it changes.
type Commit struct {
	Op      txn.Operation
	Options txn.Options
	// Read selects the files whose concurrent addition or removal changes
	// the operation's result (its predicate's files); nil reads the whole
	// table. ReadDescription names it in conflict messages.
	Read            func(*protocol.Add) bool
	ReadDescription string
	// ReadFiles are the files the operation read or removes.
	ReadFiles []*protocol.Add
	Removes   []*protocol.Remove
	Adds      []*protocol.Add
	// CDC are the change data files of the change (op.Written.CDC).
	CDC     []*protocol.CDC
	Metrics map[string]any
	// NewMetadata, when set, is committed before the files: the table's
	// metadata with a schema the operation evolved.
	NewMetadata *protocol.Metadata
	// AppID, when set, records the app transaction (AppID, AppVersion).
	AppID      string
	AppVersion int64
}

// Run commits against snap and returns the table at the new version (nil
// when it cannot be loaded: the commit stands, the caller reloads). When
// the commit certainly did not land, the added files are deleted.
func (c Commit) Run(ctx context.Context, snap *snapshot.Snapshot) (*snapshot.Snapshot, int64, error) {
	t := txn.Begin(snap, c.Op, c.Options)
	if c.Read == nil {
		t.ReadWholeTable()
	} else {
		t.ReadPredicate(c.Read, c.ReadDescription)
	}
	t.ReadFiles(c.ReadFiles...)
	if c.NewMetadata != nil {
		t.Add(protocol.Action{Metadata: c.NewMetadata})
	}
	for _, r := range c.Removes {
		t.Add(protocol.Action{Remove: r})
	}
	for _, a := range c.Adds {
		t.Add(protocol.Action{Add: a})
	}
	for _, f := range c.CDC {
		t.Add(protocol.Action{CDC: f})
	}
	if c.AppID != "" {
		t.SetAppTxn(c.AppID, c.AppVersion)
	}
	t.SetOperationMetrics(c.Metrics)
	res, err := t.Commit(ctx)
	if err != nil {
		if txn.NotLanded(err) {
			c.DeleteWritten(ctx, snap.Store())
		}
		return nil, 0, err
	}
	post := res.Snapshot
	if post == nil {
		post, _ = snapshot.LoadVersion(context.WithoutCancel(ctx), snap.Store(), res.Version)
	}
	return post, res.Version, nil
}

// DeleteWritten deletes the files the commit's change wrote, for a commit
// that did not land (or was never tried): its new data and change data
// files and the deletion vector files of its re-adds, never the data file
// a re-add keeps. Files it cannot delete are orphans for vacuum.
func (c Commit) DeleteWritten(ctx context.Context, st storage.Store) {
	datafile.DeleteAdded(context.WithoutCancel(ctx), st, c.written(st))
}

// written are the files DeleteWritten deletes.
func (c Commit) written(st storage.Store) []*protocol.Add {
	removed := make(map[string]bool, len(c.Removes))
	for _, r := range c.Removes {
		removed[r.Path] = true
	}
	out := make([]*protocol.Add, 0, len(c.Adds)+len(c.CDC))
	for _, a := range c.Adds {
		if !removed[a.Path] {
			out = append(out, a)
			continue
		}
		if a.DeletionVector == nil {
			continue
		}
		if key, err := dv.FileKey(st, a.DeletionVector); err == nil && key != "" {
			out = append(out, &protocol.Add{Path: key})
		}
	}
	for _, f := range c.CDC {
		out = append(out, &protocol.Add{Path: f.Path})
	}
	return out
}
