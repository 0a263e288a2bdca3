package optimize

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
)

// selection is which partitions an OPTIMIZE considers: those for which
// pred, over partition columns only, IS TRUE (every one when nil).
type selection struct {
	pred *expr.Bound
	// texts are the predicates as operationParameters.predicate lists
	// them: Where's text, then the partition filters as delta-rs renders
	// them.
	texts []string
}

// selectPartitions binds Where and the DNF partition filters to snap's
// schema in the session of zone; both may name partition columns only.
func selectPartitions(snap *snapshot.Snapshot, where string, filters [][]scan.Filter, zone string) (selection, error) {
	var sel selection
	sess, err := op.Session(zone)
	if err != nil {
		return sel, err
	}
	var parts []expr.Expr
	if strings.TrimSpace(where) != "" {
		e, err := expr.Parse(where)
		if err != nil {
			return sel, errs.Wrap(errs.InvalidArgument, "", err, "OPTIMIZE predicate")
		}
		parts = append(parts, e)
	}
	var ors []expr.Expr
	for i, conj := range filters {
		var ands []expr.Expr
		for j, f := range conj {
			e, err := expr.FilterExpr(f.Column, f.Op, f.Value)
			if err != nil {
				return sel, errs.Wrap(errs.InvalidArgument, "", err, "partition filter [%d][%d]", i, j)
			}
			ands = append(ands, e)
		}
		if len(ands) > 0 {
			ors = append(ors, expr.And(ands...))
		}
	}
	if len(ors) > 0 {
		dnf := ors[0]
		for _, e := range ors[1:] {
			dnf = &expr.Binary{Op: expr.OpOr, L: dnf, R: e}
		}
		parts = append(parts, dnf)
	}
	if len(parts) == 0 {
		return sel, nil
	}
	pred, err := sess.BindTable(expr.And(parts...), snap.Schema())
	if err != nil {
		return sel, errs.Wrap(errs.InvalidArgument, "", err, "OPTIMIZE predicate")
	}
	pcols := snap.PartitionColumns()
	for _, c := range pred.Columns() {
		if len(c.Path) != 1 || !slices.ContainsFunc(pcols, func(p string) bool { return strings.EqualFold(p, c.Path[0]) }) {
			return sel, errs.New(errs.InvalidArgument, "",
				"OPTIMIZE selects partitions: its predicate may name partition columns only, and %s is not one (partition columns: %s)",
				c, partitionList(pcols))
		}
	}
	sel.pred = pred
	for _, e := range parts {
		sel.texts = append(sel.texts, e.String())
	}
	if len(ors) == 1 {
		// One conjunction: one entry per filter, as delta-rs lists them.
		sel.texts = sel.texts[:len(sel.texts)-1]
		for _, e := range expr.SplitAnd(ors[0]) {
			sel.texts = append(sel.texts, e.String())
		}
	}
	return sel, nil
}

func partitionList(cols []string) string {
	if len(cols) == 0 {
		return "none, the table is not partitioned"
	}
	return strings.Join(cols, ", ")
}

// keeps reports whether the selection holds a's partition.
func (s selection) keeps(a *protocol.Add) bool {
	return s.pred == nil || expr.EvalPartition(s.pred, a.PartitionValues) == expr.True
}

// partition is the live files of one selected partition, oldest first.
type partition struct {
	values map[string]string
	files  []*protocol.Add
}

// partitionsOf groups the live files of snap that sel keeps by partition,
// in the order of their partition values; each partition's files are in
// the order they were written (modification time, then path), so that a
// rewrite keeps insertion order.
func partitionsOf(snap *snapshot.Snapshot, sel selection) []*partition {
	byKey := map[string]*partition{}
	var keys []string
	for _, a := range snap.Files() {
		if !sel.keeps(a) {
			continue
		}
		k := partitionKey(a.PartitionValues)
		p := byKey[k]
		if p == nil {
			p = &partition{values: a.PartitionValues}
			byKey[k] = p
			keys = append(keys, k)
		}
		p.files = append(p.files, a)
	}
	slices.Sort(keys)
	out := make([]*partition, len(keys))
	for i, k := range keys {
		p := byKey[k]
		slices.SortStableFunc(p.files, func(a, b *protocol.Add) int {
			return cmp.Or(cmp.Compare(a.ModificationTime, b.ModificationTime), strings.Compare(a.Path, b.Path))
		})
		out[i] = p
	}
	return out
}

// partitionKey is a partition's values as one comparable string; null
// (absent) and empty stay apart.
func partitionKey(values map[string]string) string {
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%q=%q;", k, values[k])
	}
	return b.String()
}

// bin is files rewritten together into files near the target size.
type bin struct {
	partition *partition
	files     []*protocol.Add
	bytes     int64 // the files' sizes
	rows      int64 // their live rows, when the log counts them all; else 0
}

// compaction is the plan of one OPTIMIZE.
type compaction struct {
	bins []*bin
	// considered are the live files of the selected partitions; skipped
	// those of them no bin rewrites.
	considered, skipped int
	// partitions counts the partitions with a bin.
	partitions int
}

// planCompaction bin-packs the files of each selected partition: files
// under target (and files a deletion vector hides enough rows of) go,
// oldest first, into bins that end before the next file would carry them
// past target (next fit keeps neighbouring rows together); a file over
// target with a deletion vector is a bin of its own. A bin of fewer than
// minFiles files is skipped unless one of them has a deletion vector:
// rewriting it drops the deleted rows, as Spark does (delta-rs skips any
// bin of one file). A file over target goes alone when its vector hides
// more than maxDeleted of its rows (MaxDeletedRowsRatio for OPTIMIZE).
func planCompaction(snap *snapshot.Snapshot, parts []*partition, target int64, minFiles int, maxDeleted float64) compaction {
	var c compaction
	for _, p := range parts {
		c.considered += len(p.files)
		var bins []*bin
		cur := &bin{partition: p}
		for _, a := range p.files {
			switch {
			case a.Size >= target && deletedShare(a, snap) > maxDeleted:
				bins = append(bins, &bin{partition: p, files: []*protocol.Add{a}, bytes: a.Size})
				continue
			case a.Size >= target:
				continue
			}
			if len(cur.files) > 0 && cur.bytes+a.Size > target {
				bins = append(bins, cur)
				cur = &bin{partition: p}
			}
			cur.files = append(cur.files, a)
			cur.bytes += a.Size
		}
		bins = append(bins, cur)
		kept := 0
		for _, b := range bins {
			if len(b.files) == 0 || (len(b.files) < minFiles && !slices.ContainsFunc(b.files, hasDV)) {
				continue
			}
			b.rows = liveRows(snap, b.files)
			c.bins = append(c.bins, b)
			kept += len(b.files)
		}
		c.skipped += len(p.files) - kept
		if kept > 0 {
			c.partitions++
		}
	}
	return c
}

// planPurge plans REORG TABLE ... APPLY (PURGE), as Spark's
// DeltaPurgeOperation chooses files: of each selected partition, the files
// whose deletion vector hides more than minDeleted of their rows (every
// file with a deleted row at 0), each rewritten whatever its size and
// count, packed into bins near target as a compaction packs them.
func planPurge(snap *snapshot.Snapshot, parts []*partition, target int64, minDeleted float64) compaction {
	var considered int
	var purged []*partition
	for _, p := range parts {
		considered += len(p.files)
		var files []*protocol.Add
		for _, a := range p.files {
			if deletedShare(a, snap) > minDeleted {
				files = append(files, a)
			}
		}
		if len(files) > 0 {
			purged = append(purged, &partition{values: p.values, files: files})
		}
	}
	c := planCompaction(snap, purged, target, 1, minDeleted)
	c.skipped += considered - c.considered
	c.considered = considered
	return c
}

func hasDV(a *protocol.Add) bool { return a.DeletionVector != nil }

// deletedShare is the share of a file's rows its deletion vector hides (0
// without one, or when the log does not count the file's rows).
func deletedShare(a *protocol.Add, snap *snapshot.Snapshot) float64 {
	if a.DeletionVector == nil {
		return 0
	}
	fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping())
	if fs == nil || fs.NumRecords <= 0 {
		return 1 // unknown: rewriting it is the safe side
	}
	return float64(a.DeletionVector.Cardinality) / float64(fs.NumRecords)
}

// liveRows counts the live rows of files from their statistics, or 0 when
// a file has none (the writer then sizes files as it goes).
func liveRows(snap *snapshot.Snapshot, files []*protocol.Add) int64 {
	var n int64
	for _, a := range files {
		fs := stats.Parse(a.Stats, snap.Schema(), snap.ColumnMapping())
		if fs == nil || fs.NumRecords < 0 {
			return 0
		}
		n += fs.NumRecords
		if a.DeletionVector != nil {
			n -= a.DeletionVector.Cardinality
		}
	}
	return n
}
