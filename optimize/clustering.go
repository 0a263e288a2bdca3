package optimize

import (
	"strings"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
)

// Liquid clustering: an OPTIMIZE of a clustered table clusters by its
// clustering columns. The curve is our z-order (internal/zorder, sorted
// within MaxSortBytes by internal/extsort), not Spark's Hilbert curve over
// range-partition ids: those need a sampling pass over the rows first,
// while z-order keys come from each row's own values, and a z-curve skips
// files on range predicates over each column as a Hilbert curve does (it
// keeps somewhat less locality between neighbouring cells). Spark reads
// the curve from no tag: its next OPTIMIZE treats our z-cubes as its own.

// resolveClustering sets c up for a clustered table: its clustering
// columns (none after CLUSTER BY NONE: a compaction) replace ZOrderBy,
// which is refused, as are partition predicates (a clustered table has no
// partitions) and Full anywhere else, as Spark's OptimizeTableCommand.
func (c *config) resolveClustering(snap *snapshot.Snapshot) error {
	uri := snap.Store().URL()
	if !snap.Protocol().Clustered() {
		if c.Full {
			return errs.New(errs.InvalidArgument, uri, "OPTIMIZE FULL (Full) is only for clustered tables with clustering columns; this table is not clustered")
		}
		return nil
	}
	cols, err := snap.ClusteringColumns()
	if err != nil {
		return errs.Wrap(errs.CorruptTable, uri, err, "clustering columns")
	}
	if c.ZOrderBy != nil {
		return errs.New(errs.InvalidArgument, uri, "OPTIMIZE of a clustered table cannot z-order by (%s): it clusters by its clustering columns (%s); remove ZORDER BY",
			strings.Join(c.ZOrderBy, ", "), strings.Join(cols, ", "))
	}
	if c.Predicate != "" || len(c.PartitionFilters) > 0 {
		return errs.New(errs.InvalidArgument, uri, "OPTIMIZE of a clustered table takes no partition predicate or filters (a clustered table has no partitions); remove them")
	}
	if len(cols) == 0 {
		if c.Full {
			return errs.New(errs.InvalidArgument, uri, "OPTIMIZE FULL (Full) needs clustering columns; the table has none (alter --cluster-by to set them)")
		}
		return nil
	}
	if c.PurgeDeletionVectors {
		return nil // a REORG rewrites files with deletion vectors, not clustering
	}
	zCols, js, err := zOrderColumns(snap, cols)
	if err != nil {
		return errs.Wrap(errs.InvalidArgument, uri, err, "clustering columns")
	}
	c.zCols, c.zOrderBy, c.clustering = zCols, js, true
	return nil
}

// clustered reports a file an earlier clustering placed: one with a
// z-cube tag, or with another clustering implementation's provider.
// Without Full these stay, as Spark's ClusteringStrategy keeps files of
// other providers and of z-cubes by other columns; it also keeps z-cubes
// by the same columns below its minCubeSize threshold (100 GiB) in the
// candidates to merge new rows into, which we do not: a cube stays, so
// that an OPTIMIZE after appends rewrites only the appended files.
func clustered(a *protocol.Add) bool {
	if p := a.ClusteringProvider; p != nil && *p != protocol.ClusteringProviderLiquid {
		return true
	}
	return a.Tags[TagZCubeID] != "" && a.Tags[TagZOrderBy] != ""
}

// planClustering makes one bin (one z-cube) of the table's files to
// cluster: the unclustered ones, or every live file with full.
func planClustering(snap *snapshot.Snapshot, parts []*partition, full bool) compaction {
	return planCubes(snap, parts, func(a *protocol.Add) bool { return !full && clustered(a) })
}
