package iohandler

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/schema"
)

// keyedSource refuses, for a merge scoped to a run's partition keys, the
// source rows outside those keys: the scoped ON condition could never
// match them, so they would be inserted into partitions the run does not
// own, as a keyed overwrite refuses to do. The merge reads its whole
// source before it commits, so the error leaves the table unchanged. A
// source whose partition columns do not bind to the predicate (missing or
// of another type) is left to the merge's own schema checks.
func keyedSource(ctx context.Context, req *WriteRequest, rr array.RecordReader) array.RecordReader {
	if req.PartitionPredicate == "" {
		return rr
	}
	sc, err := schema.FromArrow(rr.Schema())
	if err != nil {
		return rr
	}
	sess, err := expr.NewSession(req.SessionTimeZone)
	if err != nil {
		return rr
	}
	pred, err := sess.ParsePredicate(req.PartitionPredicate, sc)
	if err != nil {
		return rr
	}
	return &keyedReader{RecordReader: rr, ctx: ctx, req: req, pred: pred}
}

type keyedReader struct {
	array.RecordReader
	ctx  context.Context
	req  *WriteRequest
	pred *expr.Bound
	rows int64 // source rows before the current batch
	err  error
}

func (r *keyedReader) Next() bool {
	if r.err != nil || !r.RecordReader.Next() {
		return false
	}
	rec := r.RecordReader.RecordBatch()
	i, err := expr.FirstNotTrue(r.ctx, rec, r.pred)
	if err != nil {
		r.err = errs.Wrap(errs.InvalidArgument, "", err, "asset %q: checking the merge source against partition keys %q", r.req.Asset, r.req.PartitionKeys)
		return false
	}
	if i >= 0 {
		r.err = errs.New(errs.InvalidArgument, "",
			"asset %q: source row %d is outside partition keys %q (%s); a keyed merge writes only its keys' partitions: give the run the key of every row, or merge without a key",
			r.req.Asset, r.rows+int64(i), r.req.PartitionKeys, r.req.PartitionPredicate)
		return false
	}
	r.rows += rec.NumRows()
	return true
}

func (r *keyedReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.RecordReader.Err()
}
