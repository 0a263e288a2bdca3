package merge

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// readSource reads src to the end as one batch of its own Delta schema
// (every batch conformed to it, then concatenated), refusing a source
// whose Arrow bytes pass maxBytes (0: no guard). held is told the bytes of
// each batch it keeps, as it keeps it (see upsert's readSource). The
// caller releases the batch.
func readSource(ctx context.Context, src array.RecordReader, mem memory.Allocator, maxBytes int64, held func(int64)) (_ arrow.RecordBatch, _ *schema.Struct, err error) {
	if src == nil {
		return nil, nil, invalid("a merge needs a source")
	}
	sc, err := schema.FromArrow(src.Schema())
	if err != nil {
		return nil, nil, errs.Wrap(errs.SchemaMismatch, "", err, "the source schema")
	}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		return nil, nil, errs.Wrap(errs.SchemaMismatch, "", err, "the source schema")
	}
	var batches []arrow.RecordBatch
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	var bytes, rows int64
	for src.Next() {
		if err := ctx.Err(); err != nil {
			return nil, nil, errs.Wrap(errs.Canceled, "", err, "reading the source")
		}
		rec := src.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		c, err := datafile.Conform(rec, sc, mem)
		if err != nil {
			return nil, nil, err
		}
		batches = append(batches, c)
		rows += c.NumRows()
		var n int64
		for _, col := range c.Columns() {
			n += int64(col.Data().SizeInBytes())
		}
		bytes += n
		held(n)
		// The concatenated copy doubles the batches for a moment.
		if err := guard(2*bytes, maxBytes); err != nil {
			return nil, nil, err
		}
	}
	if err := src.Err(); err != nil {
		return nil, nil, errs.Wrap(errs.InvalidArgument, "", err, "reading the source")
	}
	cols := make([]arrow.Array, len(as.Fields()))
	defer releaseAll(cols)
	for i, f := range as.Fields() {
		parts := make([]arrow.Array, len(batches))
		for b, rec := range batches {
			parts[b] = rec.Column(i)
		}
		switch len(parts) {
		case 0:
			cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
		case 1:
			cols[i] = parts[0]
			cols[i].Retain()
		default:
			if cols[i], err = array.Concatenate(parts, mem); err != nil {
				return nil, nil, errs.Wrap(errs.Internal, "", err, "collecting the source")
			}
		}
	}
	if len(batches) > 0 {
		as = batches[0].Schema()
	}
	return array.NewRecordBatch(as, cols, rows), sc, nil
}

// guard refuses a source whose footprint passes the ceiling (0: none).
func guard(bytes, ceiling int64) error {
	if ceiling <= 0 || bytes <= ceiling {
		return nil
	}
	const mib = 1 << 20
	return errs.New(errs.SourceTooLarge, "",
		"the source is too large for one merge: ~%d MiB with its hash table exceeds the ceiling of %d MiB; split the source, or raise MaxSourceBytes or DELTALITE_MAX_SOURCE_BYTES",
		(bytes+mib-1)/mib, ceiling/mib)
}
