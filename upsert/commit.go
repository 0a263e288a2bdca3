package upsert

import (
	"context"
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// operation is the commit's MERGE operation with its parameters, as Spark
// and delta-rs describe a merge of this shape.
func (c *config) operation() txn.Operation {
	var conds []string
	seen := map[string]bool{}
	for _, f := range append(append(c.allKeys[:0:0], c.allKeys...), c.parts...) {
		if !seen[f.Name] {
			seen[f.Name] = true
			conds = append(conds, fmt.Sprintf("source.`%s` = target.`%s`", f.Name, f.Name))
		}
	}
	matched := []map[string]any{{"actionType": "update"}}
	notMatched := []map[string]any{{"actionType": "insert"}}
	if c.DeleteColumn != "" {
		del := fmt.Sprintf("source.`%s`", c.DeleteColumn)
		matched = []map[string]any{{"actionType": "delete", "predicate": del}, {"actionType": "update"}}
		notMatched = []map[string]any{{"actionType": "insert", "predicate": "NOT " + del}}
	}
	// Every source row goes through the column rules (readSource, sourceRows).
	return txn.Operation{Name: txn.OpMerge, WritesChangeData: true, KeepsRowIDs: true, KeepsColumnRules: true, Parameters: map[string]any{
		"predicate":                    strings.Join(conds, " AND "),
		"matchedPredicates":            matched,
		"notMatchedPredicates":         notMatched,
		"notMatchedBySourcePredicates": []any{},
	}}
}

// commit writes the attempt as one version. It reads the touched
// partitions (so a concurrent change there conflicts and one elsewhere does
// not) and the files it rewrites.
func (r *run) commit(ctx context.Context, s *Stats) (*snapshot.Snapshot, int64, error) {
	c := r.c
	touched := make(map[string]bool, len(r.parts))
	for _, p := range r.parts {
		touched[p.pv.key] = true
	}
	ix := newPartitionIndex(c)
	cm := op.Commit{
		Op: c.operation(), Options: txn.Options{MaxRetries: c.CommitMaxRetries, Metadata: c.CommitMetadata},
		Read: func(a *protocol.Add) bool {
			id, ok := ix.identity(a, make([]string, len(c.parts)))
			return ok && touched[id]
		},
		ReadDescription: r.readDescription(),
		AppID:           c.AppID, AppVersion: c.AppVersion,
	}
	var bytesAdded, bytesRemoved int64
	for _, p := range r.parts {
		for _, f := range p.rewriteFiles() {
			cm.ReadFiles = append(cm.ReadFiles, f.add)
		}
		w := p.written
		cm.Removes, cm.Adds, cm.CDC = append(cm.Removes, w.Removes...), append(cm.Adds, w.Adds...), append(cm.CDC, w.CDC...)
		bytesAdded, bytesRemoved = bytesAdded+w.BytesAdded, bytesRemoved+w.BytesRemoved
	}
	cm.Metrics = map[string]any{
		"numSourceRows":                 s.SourceRows,
		"numTargetRowsInserted":         s.RowsInserted,
		"numTargetRowsUpdated":          s.RowsUpdated,
		"numTargetRowsDeleted":          s.RowsDeleted,
		"numTargetRowsCopied":           s.RowsCopied,
		"numOutputRows":                 s.RowsInserted + s.RowsUpdated + s.RowsCopied,
		"numTargetFilesAdded":           s.FilesAdded,
		"numTargetFilesRemoved":         s.FilesRemoved,
		"numTargetBytesAdded":           bytesAdded,
		"numTargetBytesRemoved":         bytesRemoved,
		"numTargetFilesProbed":          s.FilesProbed,
		"numTargetChangeFilesAdded":     len(cm.CDC),
		"numTargetDeletionVectorsAdded": s.DeletionVectorsAdded,
		"scanTimeMs":                    s.PlanDuration.Milliseconds(),
		"rewriteTimeMs":                 s.RewriteDuration.Milliseconds(),
	}
	// The identity values the inserted rows took advance the high
	// watermark in the same commit.
	md, err := r.rules.Metadata(r.snap.Metadata(), r.snap.ColumnMapping())
	if err != nil {
		cm.DeleteWritten(ctx, r.out)
		return nil, 0, err
	}
	if md != r.snap.Metadata() {
		cm.NewMetadata = md
	}
	return cm.Run(ctx, r.snap)
}

// readDescription names the touched partitions for conflict messages.
func (r *run) readDescription() string {
	switch {
	case len(r.parts) == 0:
		return "no partition (the source is empty)"
	case len(r.c.parts) == 0:
		return "the whole table (unpartitioned)"
	}
	const show = 5
	var names []string
	for i, p := range r.parts {
		if i == show {
			names = append(names, fmt.Sprintf("and %d more", len(r.parts)-show))
			break
		}
		names = append(names, r.c.partitionText(p.pv))
	}
	return "partitions " + strings.Join(names, "; ")
}
