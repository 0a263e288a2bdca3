package upsert

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
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
	return txn.Operation{Name: txn.OpMerge, Parameters: map[string]any{
		"predicate":                    strings.Join(conds, " AND "),
		"matchedPredicates":            matched,
		"notMatchedPredicates":         notMatched,
		"notMatchedBySourcePredicates": []any{},
	}}
}

// commit writes the attempt as one version. It reads the touched
// partitions (so a concurrent change there conflicts and one elsewhere does
// not) and the files it rewrites.
func (r *run) commit(ctx context.Context, s *Stats) (*txn.Result, error) {
	c := r.c
	t := txn.Begin(r.snap, c.operation(), txn.Options{MaxRetries: c.CommitMaxRetries, Metadata: c.CommitMetadata})
	touched := make(map[string]bool, len(r.parts))
	for _, p := range r.parts {
		touched[p.pv.key] = true
	}
	if len(touched) > 0 {
		ix := newPartitionIndex(c)
		t.ReadPredicate(func(a *protocol.Add) bool {
			id, ok := ix.identity(a, make([]string, len(c.parts)))
			return ok && touched[id]
		}, r.readDescription())
	}
	now := time.Now().UnixMilli()
	var bytesAdded, bytesRemoved int64
	for _, p := range r.parts {
		for _, f := range p.rewriteFiles() {
			t.ReadFiles(f.add)
			t.Add(protocol.Action{Remove: protocol.RemoveOf(f.add, now)})
			bytesRemoved += f.add.Size
		}
	}
	for _, p := range r.parts {
		for _, a := range p.adds {
			t.Add(protocol.Action{Add: a})
			bytesAdded += a.Size
		}
	}
	if c.AppID != "" {
		t.SetAppTxn(c.AppID, c.AppVersion)
	}
	t.SetOperationMetrics(map[string]any{
		"numSourceRows":         s.SourceRows,
		"numTargetRowsInserted": s.RowsInserted,
		"numTargetRowsUpdated":  s.RowsUpdated,
		"numTargetRowsDeleted":  s.RowsDeleted,
		"numTargetRowsCopied":   s.RowsCopied,
		"numOutputRows":         s.RowsInserted + s.RowsUpdated + s.RowsCopied,
		"numTargetFilesAdded":   s.FilesAdded,
		"numTargetFilesRemoved": s.FilesRemoved,
		"numTargetBytesAdded":   bytesAdded,
		"numTargetBytesRemoved": bytesRemoved,
		"numTargetFilesProbed":  s.FilesProbed,
		"scanTimeMs":            s.PlanDuration.Milliseconds(),
		"rewriteTimeMs":         s.RewriteDuration.Milliseconds(),
	})
	return t.Commit(ctx)
}

// readDescription names the touched partitions for conflict messages.
func (r *run) readDescription() string {
	if len(r.c.parts) == 0 {
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
