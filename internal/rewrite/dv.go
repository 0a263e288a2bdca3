package rewrite

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/scanhook"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// Marks are, in deletion-vector mode, the positions of one file's rows
// that leave it (deleted rows and the old rows of updated ones), and how
// many live rows were read. A file's batches come in order, one at a time.
type Marks struct {
	leave *dv.Bitmap
	live  int64
}

// SplitPositions takes the row index column (scan.WithRowIndex, the last)
// off a batch: the batch the caller decides, and each row's position. It
// consumes rec.
func SplitPositions(a *protocol.Add, rec arrow.RecordBatch) (arrow.RecordBatch, *array.Int64, error) {
	last := int(rec.NumCols()) - 1
	pos, ok := rec.Column(last).(*array.Int64)
	if last < 0 || !ok || rec.Schema().Field(last).Name != scan.RowIndexColumn {
		rec.Release()
		return nil, nil, errs.New(errs.Internal, a.Path, "a deletion-vector rewrite read a batch without row positions")
	}
	pos.Retain()
	fields := rec.Schema().Fields()[:last]
	out := array.NewRecordBatch(arrow.NewSchema(fields, nil), rec.Columns()[:last], rec.NumRows())
	rec.Release()
	return out, pos, nil
}

// Mark records the batch's leaving rows (leave[i]) at their positions.
func (m *Marks) Mark(pos *array.Int64, leave []bool) {
	m.live += int64(pos.Len())
	for i, l := range leave {
		if l {
			if m.leave == nil {
				m.leave = dv.NewBitmap()
			}
			m.leave.Add(uint64(pos.Value(i)))
		}
	}
}

// DeletionVectorActions are the actions of files whose rows left in deletion-vector
// mode: a file some rows of which stay is removed and re-added under its
// path with the union of its old and new deletion vectors (its statistics
// kept, with loose bounds, as Spark writes them); a file none of whose
// rows stay is removed; a file no row left is untouched. The new vectors
// are packed into deletion vector files as Spark packs a commit's
// (dv.FileWriter). It returns the keys of those files, for the caller to
// delete when the commit does not happen.
func DeletionVectorActions(ctx context.Context, st storage.Store, files []*protocol.Add, ms []Marks, now int64, opts ...dv.WriteOption) (res Result, written []string, err error) {
	fw := dv.NewFileWriter(ctx, st, opts...)
	defer func() {
		if err == nil {
			err = fw.Close()
		} else {
			_ = fw.Close()
		}
		if written = fw.Written(); err != nil {
			if len(written) > 0 {
				_ = st.Delete(context.WithoutCancel(ctx), written...)
			}
			res, written = Result{}, nil
		}
	}()
	for i, a := range files {
		m := ms[i]
		if m.leave == nil || m.leave.IsEmpty() {
			continue
		}
		union := m.leave
		var before int64
		if a.DeletionVector != nil {
			old, err := dv.Load(ctx, st, a.DeletionVector)
			if err != nil {
				return Result{}, nil, err
			}
			before = int64(old.Cardinality())
			union = union.Clone()
			union.Or(old)
		}
		r := protocol.RemoveOf(a, now)
		res.Removes = append(res.Removes, r)
		if int64(union.Cardinality()) >= m.live+before { // every live row left
			res.FilesRemoved++
			res.BytesRemoved += a.Size
			continue
		}
		d, err := fw.Add(union)
		if err != nil {
			return Result{}, nil, err
		}
		re := *a
		re.DeletionVector, re.DataChange, re.ModificationTime = d, true, now
		re.Stats = stats.Loosened(a.Stats, m.live+before)
		res.Adds = append(res.Adds, &re)
		res.DeletionVectors++
	}
	return res, written, nil
}

// CountRows is the number of live rows of a file: from its log entry
// (record count less deletion vector) when it has statistics, else by
// reading the file's row counts (opened reports that it did).
func CountRows(ctx context.Context, snap *snapshot.Snapshot, a *protocol.Add) (n int64, opened bool, err error) {
	if fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping()); fs != nil && fs.NumRecords >= 0 {
		n = fs.NumRecords
		if a.DeletionVector != nil {
			n -= a.DeletionVector.Cardinality
		}
		return n, false, nil
	}
	_, seq, err := scan.New(snap, scan.WithFiles(a), scan.WithColumns()).Records(ctx)
	if err != nil {
		return 0, true, err
	}
	for rec, err := range seq {
		if err != nil {
			return 0, true, err
		}
		n += rec.NumRows()
	}
	return n, true, nil
}

// markWhere marks the rows of file a that leave it, in deletion-vector
// mode with Options.Where or Selected: a first read of Where's columns
// finds the selected rows' positions (Selected gives them); with
// WhereDeletes (and no change data to write) they are the leaving rows,
// else a second read of only those rows hands them, whole, to each
// (apply), which marks and writes them. A file with no selected row is
// left as it is, its rows not counted.
func (r *reader) markWhere(ctx context.Context, a *protocol.Add, m *Marks, each func(arrow.RecordBatch) error, n *counters) error {
	sel := dv.NewBitmap()
	var err error
	if r.c.Selected != nil {
		if s := r.c.Selected[a]; s != nil {
			sel = s
		}
	} else {
		err = r.read(ctx, a, func(rec arrow.RecordBatch) error {
			defer rec.Release()
			pos, ok := rec.Column(0).(*array.Int64)
			if !ok {
				return errs.New(errs.Internal, a.Path, "a deletion-vector rewrite read a batch without row positions")
			}
			for i := range pos.Len() {
				sel.Add(uint64(pos.Value(i)))
			}
			return nil
		}, scan.WithColumns(), scan.WithRowIndex(), scanhook.WithBound(r.c.Where).(scan.Option))
	}
	k := int64(sel.Cardinality())
	if err != nil || k == 0 {
		return err
	}
	live, _, err := CountRows(ctx, r.snap, a)
	if err != nil {
		return err
	}
	if r.c.WhereDeletes && !r.c.ChangeData {
		m.leave = sel
		n.read.Add(k)
		n.dropped.Add(k)
		n.batches.Add(1)
	} else {
		err = r.read(ctx, a, each, append([]scan.Option{scan.WithRowIndex(), scanhook.WithRowsOnly(map[*protocol.Add]*dv.Bitmap{a: sel}).(scan.Option)},
			r.rt.readOptions()...)...)
	}
	m.live = live // apply's Mark counted only the rows it saw
	return err
}
