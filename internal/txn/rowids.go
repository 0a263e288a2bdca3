package txn

import (
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// Row ids (PROTOCOL.md "Row Tracking", Spark's RowId.assignFreshRowIds and
// ConflictChecker.reassignOverlappingRowIds): on a table that supports row
// tracking every add of a commit gets a baseRowId above the table's high
// water mark and its commit's version as defaultRowCommitVersion, and the
// delta.rowTracking domain records the new mark in the same commit. The
// caller's actions never hold the fresh ids: each attempt assigns them
// again from the mark of the newest commit it follows, so a retry after a
// lost race never reuses the winner's ids. An add that already has a
// baseRowId (a file re-added with a deletion vector) keeps it and its
// defaultRowCommitVersion.

// nameMaterializedRowColumns gives the table's metaData the names of the
// materialized row id and commit version columns once its protocol has
// row tracking, as Spark names them on every metaData of such a table
// (protocol.WithMaterializedRowColumns), adding a metaData action to a
// commit that upgrades the protocol alone. It returns the metaData in
// effect after the commit.
func (t *Txn) nameMaterializedRowColumns(p *protocol.Protocol, md *protocol.Metadata) *protocol.Metadata {
	var old *protocol.Metadata
	if t.snap != nil {
		old = t.snap.Metadata()
	}
	named := protocol.WithMaterializedRowColumns(p, old, md, newUUID)
	if named == md {
		return md
	}
	for i, a := range t.actions {
		if a.Metadata != nil {
			t.actions[i] = protocol.Action{Metadata: named}
			return named
		}
	}
	t.actions = append(t.actions, protocol.Action{Metadata: named})
	return named
}

// checkRowIDAdds refuses, before any attempt, a commit that sets the high
// water mark itself or adds a file whose row count is unknown.
func (t *Txn) checkRowIDAdds(p *protocol.Protocol, md *protocol.Metadata) error {
	for _, a := range t.actions {
		if a.DomainMetadata != nil && a.DomainMetadata.Domain == protocol.RowTrackingDomain {
			return invalid("a commit may not set domain %s: the transaction assigns row ids and records their high water mark", protocol.RowTrackingDomain)
		}
	}
	if !protocol.RowTrackingSupported(p, md) {
		return nil
	}
	for _, a := range t.actions {
		if a.Add == nil || a.Add.BaseRowID != nil {
			continue
		}
		if _, ok := a.Add.NumRecords(); !ok {
			return errs.New(errs.InvalidArgument, a.Add.Path,
				"the table tracks row ids (feature rowTracking), which needs each added file's row count: the add has no numRecords in its statistics")
		}
	}
	return nil
}

// readHighWaterMark is the row id high water mark of the read snapshot.
func (t *Txn) readHighWaterMark() (int64, error) {
	if t.snap == nil || !protocol.RowTrackingSupported(t.snap.Protocol(), t.snap.Metadata()) {
		return protocol.NoHighWaterMark, nil
	}
	cfg, ok := t.snap.DomainMetadata(protocol.RowTrackingDomain)
	if !ok {
		return protocol.NoHighWaterMark, nil
	}
	m, err := protocol.RowIDHighWaterMark(cfg)
	if err != nil {
		return 0, errs.Wrap(errs.CorruptTable, t.st.URL(), err, "reading the row id high water mark")
	}
	return m, nil
}

// winnerHighWaterMark is the mark a winning commit recorded, if it did.
func winnerHighWaterMark(w *winner) (int64, bool, error) {
	for _, a := range w.actions {
		if d := a.DomainMetadata; d != nil && d.Domain == protocol.RowTrackingDomain && !d.Removed {
			m, err := protocol.RowIDHighWaterMark(d.Configuration)
			if err != nil {
				return 0, false, errs.Wrap(errs.CorruptTable, protocol.CommitKey(w.version), err, "reading a concurrent commit's row id high water mark")
			}
			return m, true, nil
		}
	}
	return 0, false, nil
}

// withRowIDs returns the attempt's actions with fresh row ids and commit
// versions assigned (copies of the adds that get them) and the new high
// water mark appended, when the table supports row tracking.
func withRowIDs(actions []protocol.Action, p *protocol.Protocol, md *protocol.Metadata, at attempt) []protocol.Action {
	if !protocol.RowTrackingSupported(p, md) {
		return actions
	}
	mark := at.highWaterMark
	for i, a := range actions {
		if a.Add == nil || (a.Add.BaseRowID != nil && a.Add.DefaultRowCommitVersion != nil) {
			continue
		}
		c := *a.Add
		if c.BaseRowID == nil {
			n, _ := c.NumRecords() // checkRowIDAdds made sure it is there
			base := mark + 1
			c.BaseRowID = &base
			mark += n
		}
		if c.DefaultRowCommitVersion == nil {
			v := at.version
			c.DefaultRowCommitVersion = &v
		}
		actions[i] = protocol.Action{Add: &c}
	}
	if mark != at.highWaterMark {
		actions = append(actions, protocol.RowIDHighWaterMarkAction(mark))
	}
	return actions
}

// preservesRowTracking reports whether the commit's commitInfo says it
// kept row identities (protocol.RowTrackingPreservedTag "true"), as Spark
// writes it (RowTracking.addPreservedRowTrackingTagIfNotSet): on a read
// snapshot with row tracking enabled, for the operations that copy or
// update rows, which keep them here (the rowTracking writer rule refuses
// one that would not). Spark's appends, overwrites, RESTORE and metadata
// commits carry no tag, and neither do ours. The "false" Spark writes
// after a concurrent enablement cannot arise: a winner's metaData change
// conflicts here.
func (t *Txn) preservesRowTracking() bool {
	if t.snap == nil || !protocol.RowTrackingEnabled(t.snap.Protocol(), t.snap.Metadata()) {
		return false
	}
	switch t.op.Name {
	case OpDelete, OpUpdate, OpMerge, OpOptimize, OpReorg:
		return true
	}
	return false
}
