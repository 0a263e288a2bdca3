package op

import (
	"context"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/rewrite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Change is what a row-changing operation does to the table, in the one
// form the spine writes (Write). Every operation describes its effect so:
// DELETE, UPDATE, MERGE and OPTIMIZE.
type Change struct {
	// Drop are files every live row of which leaves, decided without
	// reading them (by the log): a DELETE whose predicate holds for the
	// whole file.
	Drop []*protocol.Add
	// Files are the files some rows of which leave or change. Rows decides
	// each of their batches (rewrite.Func): the rows Keep leaves out
	// leave; row i of Replace, when given, is the new value of the batch's
	// row i (an update of the row at that position) and Changed counts
	// them.
	Files []*protocol.Add
	Rows  rewrite.Func
	// Insert writes the rows that come in (MERGE's inserts): it is called
	// once, after the Files, with a function that writes batches of the
	// written schema. The batches stay the caller's.
	Insert func(ctx context.Context, write func(arrow.RecordBatch) error) error
	// Rearrange says no row changes, only the files that hold them
	// (OPTIMIZE): the removes and adds are dataChange=false.
	Rearrange bool
}

// Written is a Change as written: the actions of the operation's commit,
// and what was read and written.
type Written struct {
	// Removes remove the Drop files, then the Files.
	Removes []*protocol.Remove
	// Adds are the data files written.
	Adds []*protocol.Add
	// Counts are the rewrite's of the Files (the Drop files are in none of
	// them: they were not read).
	rewrite.Counts
}

// Write writes ch to the table snap shows, within opt (rewrite.Options;
// its Append and Rearrange come from ch). It is the one place that decides
// how a row change is written, from the change and the table's features:
// the rows that stay and the new values of changed rows are written into
// new data files and the touched files are removed (copy-on-write), for
// every table this engine writes today. Tables whose features would need
// more from a row change (change data files, deletion vectors, row ids)
// are refused before an attempt by Operate's check (txn.CheckRewrite)
// until Write writes them. On error nothing it wrote is left behind.
func Write(ctx context.Context, snap *snapshot.Snapshot, ch Change, opt rewrite.Options) (Written, error) {
	if opt.Append != nil {
		return Written{}, errs.New(errs.Internal, "", "a change's inserted rows are its Insert, not rewrite.Options.Append")
	}
	opt.Append, opt.Rearrange = ch.Insert, ch.Rearrange
	res, err := rewrite.Run(ctx, snap, ch.Files, ch.Rows, opt)
	if err != nil {
		return Written{}, err
	}
	now := time.Now
	if opt.Now != nil {
		now = opt.Now
	}
	at := now().UnixMilli()
	w := Written{Adds: res.Adds, Counts: res.Counts, Removes: make([]*protocol.Remove, 0, len(ch.Drop)+len(res.Removes))}
	for _, a := range ch.Drop {
		r := protocol.RemoveOf(a, at)
		r.DataChange = !ch.Rearrange
		w.Removes = append(w.Removes, r)
	}
	w.Removes = append(w.Removes, res.Removes...)
	return w, nil
}
