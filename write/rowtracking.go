package write

import (
	"context"
	"slices"

	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Spark's names of the commits that turn row tracking on for an existing
// table (DeltaOperations).
const (
	opUpgradeProtocol     = "UPGRADE PROTOCOL"
	opRowTrackingBackfill = "ROW TRACKING BACKFILL"
)

// backfillFilesPerCommit bounds the adds of one backfill commit, as
// Spark's delta.backfill.maxNumFilesPerCommit does (its default).
const backfillFilesPerCommit = 20000

// enablesRowTracking reports whether setting config on the table snap
// shows turns row tracking on.
func enablesRowTracking(snap *snapshot.Snapshot, config map[string]string) bool {
	on, err := protocol.Properties(config).Bool(protocol.PropEnableRowTracking, false)
	return err == nil && on && !protocol.RowTrackingEnabled(snap.Protocol(), snap.Metadata())
}

// backfillRowIDs prepares the table snap shows for row tracking as Spark's
// RowTrackingBackfillCommand does, before the property commit: a protocol
// upgrade commit adds the rowTracking feature (from then on every writer
// assigns ids to the files it adds), then backfill commits re-add every
// file that has no baseRowId with dataChange=false, which the transaction
// gives fresh ids (txn's rowids.go). A backfill commit conflicts with a
// concurrent removal of a file it re-adds: it is planned again on the
// newer table. It returns the table after the last commit.
func backfillRowIDs(ctx context.Context, snap *snapshot.Snapshot, o PropertiesOptions) (*snapshot.Snapshot, error) {
	if !snap.Protocol().HasFeature("rowTracking") {
		features := slices.Concat(snap.Protocol().EffectiveWriterFeatures(), snap.Protocol().EffectiveReaderFeatures(),
			[]string{"rowTracking", "domainMetadata"})
		want := protocol.MinimalProtocol(features)
		p, _ := keepFeatures(snap.Protocol(), &want)
		t := txn.Begin(snap, txn.Operation{Name: opUpgradeProtocol, Parameters: map[string]any{"newProtocol": p.String()}, WritesNoRows: true},
			txn.Options{MaxRetries: o.CommitMaxRetries, Metadata: o.CommitMetadata})
		t.Add(protocol.Action{Protocol: p})
		r, err := t.Commit(ctx)
		if err != nil {
			return nil, err
		}
		if snap, err = committed(ctx, snap, r); err != nil {
			return nil, err
		}
	}
	retries := txn.Retries(o.CommitMaxRetries)
	for batch := 0; ; {
		var todo []*protocol.Add
		for _, a := range snap.Files() {
			if a.BaseRowID == nil && len(todo) < backfillFilesPerCommit {
				todo = append(todo, a)
			}
		}
		if len(todo) == 0 {
			return snap, nil
		}
		t := txn.Begin(snap, txn.Operation{Name: opRowTrackingBackfill, Parameters: map[string]any{"batchId": batch}, InPlaceFileMetadataUpdate: true},
			txn.Options{MaxRetries: o.CommitMaxRetries, Metadata: o.CommitMetadata})
		t.ReadFiles(todo...)
		for _, a := range todo {
			c := *a
			c.DataChange = false
			t.Add(protocol.Action{Add: &c})
		}
		r, err := t.Commit(ctx)
		if err != nil && txn.Replannable(err) && retries > 0 {
			retries--
			if snap, err = snap.Refresh(ctx); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		if snap, err = committed(ctx, snap, r); err != nil {
			return nil, err
		}
		batch++
	}
}

// committed is the table at a commit's version.
func committed(ctx context.Context, snap *snapshot.Snapshot, r *txn.Result) (*snapshot.Snapshot, error) {
	if r.Snapshot != nil {
		return r.Snapshot, nil
	}
	return snapshot.LoadVersion(ctx, snap.Store(), r.Version)
}
