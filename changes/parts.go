package changes

import (
	"context"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/scanhook"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// source is the table as the scans of the feed see it: the head's store,
// partition columns and column mapping, a schema (with _change_type for
// change data files), and the version read, which scan names when a file
// is missing. Its files are always given (scan.WithFiles).
type source struct {
	*snapshot.Snapshot
	sc      *schema.Struct
	version int64
}

func (s source) Schema() *schema.Struct { return s.sc }
func (s source) Version() int64         { return s.version }
func (s source) Files() []*protocol.Add { return nil }

// part is files of one commit read alike: kind is their _change_type, ""
// when the files hold it (change data files); only, when set, the rows to
// read of each file instead of those its deletion vector keeps.
type part struct {
	files []*protocol.Add
	kind  string
	only  map[*protocol.Add]*dv.Bitmap
}

func rowsOnly(m map[*protocol.Add]*dv.Bitmap) scan.Option {
	return scanhook.WithRowsOnly(m).(scan.Option)
}

// parts is what commit c changed, by Spark's CDCReader: its change data
// files when it has any; else its added files' rows as inserts and its
// removed files' rows as deletes (dataChange=true only), where a file
// removed and added again with another deletion vector changes by the
// rows the vectors differ in. A MERGE whose metrics say it changed no row
// gives nothing.
func (r *reading) parts(ctx context.Context, c snapshot.LogCommit) ([]part, error) {
	var cdc, adds []*protocol.Add
	var removes []*protocol.Remove
	var info *protocol.CommitInfo
	for _, a := range c.Actions {
		switch {
		case a.Metadata != nil && !enabled(a.Metadata):
			return nil, r.notRecorded(c.Version)
		case a.CDC != nil:
			cdc = append(cdc, &protocol.Add{Path: a.CDC.Path, PartitionValues: a.CDC.PartitionValues, Size: a.CDC.Size})
		case a.Add != nil && a.Add.DataChange:
			adds = append(adds, a.Add)
		case a.Remove != nil && a.Remove.DataChange:
			removes = append(removes, a.Remove)
		case a.CommitInfo != nil:
			info = a.CommitInfo
		}
	}
	if len(cdc) > 0 {
		return []part{{files: cdc}}, nil
	}
	if noChangedRows(info) {
		return nil, nil
	}
	removed := map[string]*protocol.Remove{}
	for _, rm := range removes {
		removed[rm.Path] = rm
	}
	inserts := part{kind: Insert}
	deletes := part{kind: Delete}
	redeleted := part{kind: Delete, only: map[*protocol.Add]*dv.Bitmap{}}
	readded := part{kind: Insert, only: map[*protocol.Add]*dv.Bitmap{}}
	paired := map[string]bool{}
	for _, add := range adds {
		rm, ok := removed[add.Path]
		if !ok {
			inserts.files = append(inserts.files, add)
			continue
		}
		paired[add.Path] = true
		del, ins, err := r.dvDiff(ctx, rm.DeletionVector, add.DeletionVector)
		if err != nil {
			return nil, err
		}
		if del != nil {
			f := removedFile(rm)
			redeleted.files = append(redeleted.files, f)
			redeleted.only[f] = del
		}
		if ins != nil {
			f := *add
			readded.files = append(readded.files, &f)
			readded.only[&f] = ins
		}
	}
	for _, rm := range removes {
		if !paired[rm.Path] {
			deletes.files = append(deletes.files, removedFile(rm))
		}
	}
	var out []part
	for _, p := range []part{inserts, deletes, redeleted, readded} {
		if len(p.files) > 0 {
			out = append(out, p)
		}
	}
	return out, nil
}

// removedFile is a removed file as the scan reads it: its rows as they
// were, its deletion vector honoured.
func removedFile(rm *protocol.Remove) *protocol.Add {
	f := &protocol.Add{Path: rm.Path, PartitionValues: rm.PartitionValues, Stats: rm.Stats, DeletionVector: rm.DeletionVector}
	if rm.Size != nil {
		f.Size = *rm.Size
	}
	return f
}

// dvDiff is what a file removed with deletion vector before and added
// again with after changed: the rows after deletes that before did not
// (deleted) and the rows before deleted that after does not (inserted,
// e.g. by RESTORE); nil for none.
func (r *reading) dvDiff(ctx context.Context, before, after *protocol.DeletionVector) (deleted, inserted *dv.Bitmap, err error) {
	load := func(d *protocol.DeletionVector) (*dv.Bitmap, error) {
		if d == nil {
			return dv.NewBitmap(), nil
		}
		b, err := dv.Load(ctx, r.head.Store(), d)
		if err != nil {
			key, _ := dv.FileKey(r.head.Store(), d)
			return nil, errs.Wrap(errs.NotFound, key, err, "reading a deletion vector of the changes")
		}
		return b, nil
	}
	b, err := load(before)
	if err != nil {
		return nil, nil, err
	}
	a, err := load(after)
	if err != nil {
		return nil, nil, err
	}
	if d := a.AndNot(b); !d.IsEmpty() {
		deleted = d
	}
	if i := b.AndNot(a); !i.IsEmpty() {
		inserted = i
	}
	return deleted, inserted, nil
}

// noChangedRows is Spark's guard for a MERGE that rewrote files without
// changing a row: its metrics say 0 rows inserted, updated and deleted.
func noChangedRows(ci *protocol.CommitInfo) bool {
	if ci == nil || ci.Operation != "MERGE" {
		return false
	}
	m, _ := ci.Raw["operationMetrics"].(map[string]any)
	for _, k := range []string{"numTargetRowsInserted", "numTargetRowsUpdated", "numTargetRowsDeleted"} {
		if v, ok := m[k].(string); !ok || v != "0" {
			return false
		}
	}
	return true
}
