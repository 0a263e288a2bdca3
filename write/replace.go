package write

import (
	"context"
	"time"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
)

// replace is create_or_replace on an existing table: new metadata (same
// table id), every old file removed, the new ones added, one commit.
func (w *job) replace(ctx context.Context) (*Result, error) {
	sc, err := op.SourceSchema(w.st.URL(), w.src.Schema())
	if err != nil {
		return nil, err
	}
	md, p, domain, err := op.NewTable(w.st.URL(), w.snap.Metadata().ID, sc, w.wo.newTable())
	if err != nil {
		return nil, err
	}
	op := txn.Operation{Name: txn.OpCreateOrReplace, Parameters: map[string]any{"partitionBy": md.PartitionColumns}, KeepsColumnRules: true}
	if err := txn.CheckWritable(w.snap, op); err != nil {
		return nil, err
	}
	// Never downgrade the protocol: keep every old feature too.
	p, upgraded := keepFeatures(w.snap.Protocol(), p)
	sc = mustSchema(md)
	res := &Result{}
	adds, err := w.writeFiles(ctx, sc, md, res)
	if err != nil {
		return nil, err
	}
	if md, err = w.rules.Metadata(md, w.snap.ColumnMapping()); err != nil {
		datafile.DeleteAdded(ctx, w.st, adds)
		return nil, err
	}
	t := txn.Begin(w.snap, op, w.txnOptions())
	t.ReadWholeTable()
	if upgraded {
		t.Add(protocol.Action{Protocol: p})
	}
	t.Add(protocol.Action{Metadata: md})
	if d := replacedClustering(w.snap, domain); d != nil {
		t.Add(protocol.Action{DomainMetadata: d})
	}
	now := time.Now().UnixMilli()
	for _, f := range w.snap.Files() {
		t.Add(protocol.Action{Remove: protocol.RemoveOf(f, now)})
		res.FilesRemoved++
	}
	t.Add(addActions(adds)...)
	metrics := writeMetrics(adds, res.RowsWritten)
	w.removalMetrics(metrics, w.snap, w.snap.Files())
	t.SetOperationMetrics(metrics)
	r, err := t.Commit(ctx)
	if err != nil {
		discard(ctx, w.st, adds, err)
		return nil, err
	}
	res.Version, res.Warnings, res.post = r.Version, r.Warnings, r.Snapshot
	return res, nil
}

func mustSchema(md *protocol.Metadata) *schema.Struct {
	sc, err := schema.Parse(md.SchemaString)
	if err != nil {
		panic(err) // built by op.NewTable from a valid schema
	}
	return sc
}

// replacedClustering is the delta.clustering domain a create_or_replace
// commits, as Spark's REPLACE TABLE: the new table's clustering, else, when
// the old table had clustering columns, none (the old ones would name
// columns the new schema may lack).
func replacedClustering(old *snapshot.Snapshot, domain *protocol.DomainMetadata) *protocol.DomainMetadata {
	if domain != nil {
		return domain
	}
	if _, ok := old.DomainMetadata(protocol.ClusteringDomain); ok {
		return protocol.ClusteringDomainAction(nil)
	}
	return nil
}
