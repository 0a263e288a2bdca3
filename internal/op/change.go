package op

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Change is what a row-changing operation does to the table, in the one
// form the spine writes (Write). Every operation describes its effect so:
// upsert, DELETE, UPDATE, MERGE, replace-where and OPTIMIZE.
type Change struct {
	// Drop are files every live row of which leaves, decided without
	// reading them (by the log): a DELETE whose predicate holds for the
	// whole file.
	Drop []*protocol.Add
	// Files are the files some rows of which leave or change. Rows decides
	// each of their batches (rewrite.Func, rewrite.Output): the rows Keep
	// leaves out leave; a row Updated marks is updated, Replace's row at
	// its position holding its new values; the other rows stay as they
	// are.
	Files []*protocol.Add
	Rows  rewrite.Func
	// Insert writes the rows that come in (MERGE's inserts): it is called
	// once, after the Files, with a function that writes batches of the
	// written schema. The batches stay the caller's.
	Insert func(ctx context.Context, write func(arrow.RecordBatch) error) error
	// InsertUpdates marks the inserted rows of a batch that are the new
	// values of rows Rows let go as superseded (rewrite.Output.Superseded;
	// the upsert's updates), for the change data feed; nil: all inserts.
	InsertUpdates func(arrow.RecordBatch) ([]bool, error)
	// Decide, when set, are the only columns Rows reads, and Rows never
	// replaces a batch (the upsert's keys): with deletion vectors a file is
	// read for them only.
	Decide []string
	// Rearrange says no row changes, only the files that hold them
	// (OPTIMIZE): the removes and adds are dataChange=false.
	Rearrange bool
	// Where, when set, selects the only rows Rows may change or remove
	// (those for which it IS TRUE); WhereDeletes says Rows removes each of
	// them (DELETE). With deletion vectors a file is then read for Where's
	// columns, and only its selected rows whole (rewrite.Options.Where).
	Where        *expr.Bound
	WhereDeletes bool
	// Selected, when set, are by position the only rows of each of the
	// Files that Rows may change or remove (MERGE's first pass found them):
	// with deletion vectors only they are read whole.
	Selected map[*protocol.Add]*dv.Bitmap
	// InCommitWithRewrites says the change is one part of a commit another
	// part of which rewrites files (the upsert writes a change per
	// partition): with the change data feed on, the commit's change data
	// files are its whole feed, so this part's inserts need them too.
	InCommitWithRewrites bool
	// CopyOnWrite refuses deletion vectors where the table has them on:
	// the caller's choice (--deletion-vectors=off).
	CopyOnWrite bool
}

// Written is a Change as written: the actions of the operation's commit,
// and what was read and written.
type Written struct {
	// Removes remove the Drop files, then the Files.
	Removes []*protocol.Remove
	// Adds are the data files written.
	Adds []*protocol.Add
	// CDC are the change data files written, on a table with the change
	// data feed on.
	CDC []*protocol.CDC
	// Counts are the rewrite's of the Files (the Drop files are in none of
	// them, even when their rows were read for the change data feed).
	rewrite.Counts
}

// Write writes ch to the table snap shows, within opt (rewrite.Options;
// its Append, Rearrange and ChangeData come from ch and the table). It is
// the one place that decides how a row change is written, from the change
// and the table's features:
//
//   - on a table with deletion vectors on (txn.DeletionVectors), unless
//     the change is a rearrangement or asks for CopyOnWrite, the rows that
//     leave a file and the old rows of updated ones are marked in the
//     file's deletion vector, the file re-added under its path with it;
//     only the new values of updated rows are written (a file none of
//     whose rows stay is removed);
//   - otherwise the rows that stay and the new values of updated rows are
//     written into new data files and the touched files are removed
//     (copy-on-write);
//   - with the change data feed on (txn.ChangeDataFeed), the change rows
//     go to change data files in the same commit, as Spark writes them:
//     deletes, update pre- and post-images, inserts. A commit with change
//     data files is the whole feed of its version for readers, so the
//     Drop files' rows are then read and written as deletes too. A change
//     that keeps no part of a file (it drops whole files, inserts) writes
//     none, as Spark writes none: readers take its removes and adds;
//   - with row tracking enabled (protocol.RowTrackingEnabled), every row
//     written again keeps its row id, and a copied row its commit version,
//     in the table's materialized columns (rewrite.Options.RowTracking);
//     inserted rows get fresh ids at commit (txn).
//
// On error nothing it wrote is left behind.
func Write(ctx context.Context, snap *snapshot.Snapshot, ch Change, opt rewrite.Options) (Written, error) {
	if opt.Append != nil {
		return Written{}, errs.New(errs.Internal, "", "a change's inserted rows are its Insert, not rewrite.Options.Append")
	}
	opt.Append, opt.AppendUpdates, opt.Rearrange, opt.Decide = ch.Insert, ch.InsertUpdates, ch.Rearrange, ch.Decide
	opt.Where, opt.WhereDeletes, opt.Selected = ch.Where, ch.WhereDeletes, ch.Selected
	opt.ChangeData = !ch.Rearrange && (len(ch.Files) > 0 || ch.InCommitWithRewrites) && txn.ChangeDataFeed(snap.Metadata())
	opt.DeletionVectors = !ch.Rearrange && WritesDeletionVectors(snap, ch.CopyOnWrite)
	opt.RowTracking = protocol.RowTrackingEnabled(snap.Protocol(), snap.Metadata())
	if opt.ChangeData && len(ch.Drop) > 0 {
		return writeDropping(ctx, snap, ch, opt)
	}
	res, err := rewrite.Run(ctx, snap, ch.Files, ch.Rows, opt)
	if err != nil {
		return Written{}, err
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	at := now().UnixMilli()
	w := Written{Adds: res.Adds, CDC: res.CDC, Counts: res.Counts, Removes: make([]*protocol.Remove, 0, len(ch.Drop)+len(res.Removes))}
	for _, a := range ch.Drop {
		r := protocol.RemoveOf(a, at)
		r.DataChange = !ch.Rearrange
		w.Removes = append(w.Removes, r)
	}
	w.Removes = append(w.Removes, res.Removes...)
	w.FilesRemoved += len(ch.Drop)
	return w, nil
}

// WritesDeletionVectors reports whether a row change to the table snap
// shows is written as deletion vectors (see Write): the table has them on
// and the caller did not ask for copy-on-write. Operations that plan
// differently with deletion vectors (MERGE's first pass, the upsert's
// output estimate) ask it.
func WritesDeletionVectors(snap *snapshot.Snapshot, copyOnWrite bool) bool {
	return !copyOnWrite && txn.DeletionVectors(snap.Protocol(), snap.Metadata())
}

// writeDropping writes a change whose Drop files' rows must reach the
// change data files: they are read with the Files, every row leaving, and
// left out of the counts again.
func writeDropping(ctx context.Context, snap *snapshot.Snapshot, ch Change, opt rewrite.Options) (Written, error) {
	drop := make(map[*protocol.Add]bool, len(ch.Drop))
	for _, a := range ch.Drop {
		drop[a] = true
	}
	var dropRows, dropBatches atomic.Int64
	rows := func(ctx context.Context, b rewrite.Batch) (rewrite.Output, error) {
		if !drop[b.File] {
			return ch.Rows(ctx, b)
		}
		dropRows.Add(b.Rec.NumRows())
		dropBatches.Add(1)
		return rewrite.Output{Keep: make([]bool, b.Rec.NumRows())}, nil
	}
	res, err := rewrite.Run(ctx, snap, append(slices.Clip(ch.Drop), ch.Files...), rows, opt)
	if err != nil {
		return Written{}, err
	}
	c := res.Counts
	c.FilesRead -= len(ch.Drop)
	c.RowsRead -= dropRows.Load()
	c.RowsDropped -= dropRows.Load()
	c.Batches -= dropBatches.Load()
	for _, a := range ch.Drop {
		c.BytesRemoved -= a.Size
	}
	return Written{Removes: res.Removes, Adds: res.Adds, CDC: res.CDC, Counts: c}, nil
}
