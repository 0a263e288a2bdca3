package upsert

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/colrules"
	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// source is the whole source batch, cast to the table's logical Arrow
// schema, with the delete flags split off.
type source struct {
	batches []arrow.RecordBatch
	deletes []*array.Boolean // per batch; nil without a delete column
	rows    int64
	bytes   int64 // Arrow buffers held
	// given says which table columns the source gave (the others were
	// computed or are null).
	given func(string) bool
}

func (s *source) release() {
	for _, b := range s.batches {
		b.Release()
	}
	for _, d := range s.deletes {
		if d != nil {
			d.Release()
		}
	}
	s.batches, s.deletes = nil, nil
}

// isDelete reports whether row i of batch b deletes its key.
func (s *source) isDelete(b, i int) bool {
	d := s.deletes[b]
	return d != nil && d.IsValid(i) && d.Value(i)
}

// readSource reads src to the end, casting every batch to the table
// schema. It stops as soon as the Arrow bytes alone pass the source guard.
// held is told the bytes of each batch it keeps, as it keeps it: the heap
// limit (limits.ExpectHeap) grows with the source, where declaring it once
// read left a source larger than the first limit read under back-to-back
// garbage collections (220 of them, a sixth of the CPU, for an 823 MiB
// batch per partition).
func readSource(ctx context.Context, c *config, src array.RecordReader, held func(int64)) (_ *source, err error) {
	s := &source{}
	defer func() {
		if err != nil {
			s.release()
		}
	}()
	if src == nil {
		return s, nil
	}
	delIdx, err := c.checkSourceSchema(src.Schema())
	if err != nil {
		return nil, err
	}
	s.given = colrules.Given(src.Schema())
	for src.Next() {
		if err := ctx.Err(); err != nil {
			return nil, errs.Wrap(errs.Canceled, "", err, "reading the source")
		}
		rec := src.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		if !rec.Schema().Equal(src.Schema()) {
			if delIdx, err = c.checkSourceSchema(rec.Schema()); err != nil {
				return nil, err
			}
		}
		data := rec
		var del *array.Boolean
		if delIdx >= 0 {
			col := rec.Column(delIdx)
			b, ok := col.(*array.Boolean)
			if !ok {
				return nil, invalid("DeleteColumn %q has type %s; it must be boolean", c.DeleteColumn, col.DataType())
			}
			b.Retain()
			del = b
			data = dropColumn(rec, delIdx)
		}
		conformed, err := datafile.Conform(data, c.rules.Relaxed(c.table), c.mem)
		if data != rec {
			data.Release()
		}
		if err == nil {
			// Generated columns computed (partition values among them) and
			// constraints checked once; identity values are each attempt's.
			ruled, rerr := c.rules.Insert(ctx, conformed, s.given)
			conformed.Release()
			conformed, err = ruled, rerr
			if err != nil {
				err = errs.Wrap(errs.InvalidArgument, "", err, "nothing was upserted")
			}
		}
		if err != nil {
			if del != nil {
				del.Release()
			}
			return nil, err
		}
		if tight := compact(conformed); tight != conformed {
			conformed.Release()
			conformed = tight
		}
		s.batches = append(s.batches, conformed)
		s.deletes = append(s.deletes, del)
		s.rows += conformed.NumRows()
		n := recordBytes(conformed)
		if del != nil {
			n += dataBytes(del.Data())
		}
		s.bytes += n
		held(n)
		if err := c.guard(s.bytes, 0); err != nil {
			return nil, err
		}
	}
	if err := src.Err(); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "reading the source")
	}
	return s, nil
}

// checkSourceSchema finds the delete column and refuses a source that
// lacks a key or partition column (which would be null everywhere). It
// returns the delete column's index, -1 without one.
func (c *config) checkSourceSchema(sc *arrow.Schema) (int, error) {
	find := func(name string) int {
		for i, f := range sc.Fields() {
			if f.Name == name {
				return i
			}
		}
		for i, f := range sc.Fields() {
			if strings.EqualFold(f.Name, name) {
				return i
			}
		}
		return -1
	}
	var missing []string
	for _, f := range c.allKeys {
		if find(f.Name) < 0 {
			missing = append(missing, fmt.Sprintf("primary key column %q", f.Name))
		}
	}
	for _, f := range c.parts {
		if find(f.Name) < 0 && !containsField(c.allKeys, f.Name) && !colrules.Computed(f) {
			missing = append(missing, fmt.Sprintf("partition column %q", f.Name))
		}
	}
	if len(missing) > 0 {
		return -1, errs.New(errs.SchemaMismatch, "", "the source has no %s", strings.Join(missing, ", no "))
	}
	if c.DeleteColumn == "" {
		return -1, nil
	}
	i := find(c.DeleteColumn)
	if i < 0 {
		return -1, invalid("DeleteColumn %q is not a column of the source", c.DeleteColumn)
	}
	if sc.Field(i).Type.ID() != arrow.BOOL {
		return -1, invalid("DeleteColumn %q has type %s; it must be boolean", c.DeleteColumn, sc.Field(i).Type)
	}
	return i, nil
}

func containsField(fs []*schema.Field, name string) bool {
	for _, f := range fs {
		if f.Name == name {
			return true
		}
	}
	return false
}

// guard refuses a source whose footprint passes the ceiling.
func (c *config) guard(arrowBytes, extra int64) error {
	if c.maxSource <= 0 || arrowBytes+extra <= c.maxSource {
		return nil
	}
	const mib = 1 << 20
	return errs.New(errs.SourceTooLarge, "",
		"the source is too large for one upsert: ~%d MiB (%d MiB of Arrow data + %d MiB of key sets and row selections) exceeds the ceiling of %d MiB; split the batch, or raise MaxSourceBytes or DELTALITE_MAX_SOURCE_BYTES",
		(arrowBytes+extra+mib-1)/mib, (arrowBytes+mib-1)/mib, (extra+mib-1)/mib, c.maxSource/mib)
}

func dropColumn(rec arrow.RecordBatch, idx int) arrow.RecordBatch {
	fields := make([]arrow.Field, 0, rec.NumCols()-1)
	cols := make([]arrow.Array, 0, rec.NumCols()-1)
	for i, f := range rec.Schema().Fields() {
		if i != idx {
			fields = append(fields, f)
			cols = append(cols, rec.Column(i))
		}
	}
	md := rec.Schema().Metadata()
	return array.NewRecordBatch(arrow.NewSchema(fields, &md), cols, rec.NumRows())
}

// compact returns rec with every buffer cut to its length when the
// buffers' spare capacity is a large share of what they hold (rec itself
// otherwise). The source is held for the whole upsert, and readers and
// builders grow buffers by doubling: a batch decoded from Parquet can hold
// up to twice its bytes, which the upsert would keep alive for no use.
func compact(rec arrow.RecordBatch) arrow.RecordBatch {
	const minSpare = 1 << 20
	var size, spare int64
	for _, c := range rec.Columns() {
		walkBuffers(c.Data(), func(b *memory.Buffer) {
			size += int64(b.Len())
			spare += int64(cap(b.Buf()) - b.Len())
		})
	}
	if spare < minSpare || spare*4 < size {
		return rec
	}
	cols := make([]arrow.Array, rec.NumCols())
	for i, c := range rec.Columns() {
		d := compactData(c.Data())
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	out := array.NewRecordBatch(rec.Schema(), cols, rec.NumRows())
	for _, c := range cols {
		c.Release()
	}
	return out
}

// compactData copies d's buffers (and its children's and dictionary's)
// into buffers of exactly their length.
func compactData(d arrow.ArrayData) arrow.ArrayData {
	bufs := make([]*memory.Buffer, len(d.Buffers()))
	for i, b := range d.Buffers() {
		if b != nil {
			tight := make([]byte, b.Len())
			copy(tight, b.Bytes())
			bufs[i] = memory.NewBufferBytes(tight)
		}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = compactData(c)
	}
	out := array.NewData(d.DataType(), d.Len(), bufs, children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	if d.DataType().ID() == arrow.DICTIONARY && d.Dictionary() != nil {
		cd := compactData(d.Dictionary())
		out.SetDictionary(cd)
		cd.Release()
	}
	return out
}

func walkBuffers(d arrow.ArrayData, f func(*memory.Buffer)) {
	for _, b := range d.Buffers() {
		if b != nil {
			f(b)
		}
	}
	for _, c := range d.Children() {
		walkBuffers(c, f)
	}
	if d.DataType().ID() == arrow.DICTIONARY && d.Dictionary() != nil {
		walkBuffers(d.Dictionary(), f)
	}
}

// recordBytes is the memory a batch holds: every buffer, whole.
func recordBytes(rec arrow.RecordBatch) int64 {
	var n int64
	for _, c := range rec.Columns() {
		n += dataBytes(c.Data())
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	walkBuffers(d, func(b *memory.Buffer) { n += int64(b.Len()) })
	return n
}
