package optimize

import (
	"runtime"
	"time"

	"github.com/deltalite-go/deltalite/internal/extsort"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/scan"
)

// Defaults of the options.
const (
	// DefaultMinInputFiles is the fewest files a bin is rewritten with: a
	// bin of one file (without a deletion vector) gains nothing, as delta-rs
	// judges.
	DefaultMinInputFiles    = 2
	DefaultMaxBufferedBytes = limits.DefaultMaxBufferedBytes
	DefaultReadBatchSize    = limits.DefaultReadBatchSize
	DefaultMaxSortBytes     = extsort.DefaultMaxBytes
	// MaxDeletedRowsRatio is the share of a file's rows a deletion vector
	// must hide for a file at or above the target size to be rewritten
	// (Spark's spark.databricks.delta.optimize.maxDeletedRowsRatio); a
	// smaller file with a deletion vector is always a candidate.
	MaxDeletedRowsRatio = 0.05
)

// DefaultMaxConcurrentTasks is how many bins are rewritten at once when
// Options.MaxConcurrentTasks is 0: the number of CPUs, as delta-rs.
func DefaultMaxConcurrentTasks() int { return runtime.NumCPU() }

// Options configure one compaction. The zero value compacts every
// partition of the table to its target file size in one commit.
type Options struct {
	// Predicate restricts the compaction to the partitions for which this
	// SQL predicate over partition columns only IS TRUE, e.g. "day >=
	// '2026-01-01'". A predicate naming another column is refused.
	Predicate string
	// SessionTimeZone is the time zone Predicate and PartitionFilters read
	// a TIMESTAMP partition value's text in, as Spark's
	// spark.sql.session.timeZone; "" is UTC.
	SessionTimeZone string
	// PartitionFilters restrict the compaction to the partitions that
	// satisfy them, as delta-rs's partition_filters: the outer slice is
	// OR, each inner slice AND (disjunctive normal form). With Predicate, a
	// partition must satisfy both.
	PartitionFilters [][]scan.Filter
	// TargetFileSize is the size of the files written, and files at or
	// above it are left alone; 0 takes the table's delta.targetFileSize,
	// else 100 MiB.
	TargetFileSize int64
	// MinInputFiles is the fewest files a bin is rewritten with (default
	// 2); a bin holding a file with a deletion vector is rewritten
	// whatever its count, so that the deleted rows go.
	MinInputFiles int
	// MaxConcurrentTasks is how many bins are rewritten at once (default:
	// the number of CPUs). Each gets an equal share of MaxBufferedBytes.
	MaxConcurrentTasks int
	// MinCommitInterval, when positive, commits the bins done so far each
	// time this long has passed since the last commit, so that a long run
	// makes several OPTIMIZE commits (delta-rs's min_commit_interval); 0
	// makes one commit at the end.
	MinCommitInterval time.Duration
	// MaxBufferedBytes bounds the data held in memory by the whole call
	// (default 64 MiB), shared by the concurrent bins: of each share, a
	// quarter for decoded batches, a quarter for the writer's buffered
	// rows and half for the encoding of its row groups.
	MaxBufferedBytes int64
	// ReadBatchSize caps the rows of a decoded batch (default 8192).
	ReadBatchSize int
	// On a clustered table (liquid clustering) with clustering columns,
	// OPTIMIZE clusters instead of compacting: the files no earlier
	// clustering placed (all with Full) are rewritten as one z-cube, their
	// rows sorted along a z-curve over the clustering columns as ZOrderBy
	// sorts them, and tagged as Spark tags clustered files
	// (clusteringProvider "liquid", ZCUBE_ID, ZCUBE_ZORDER_BY) so that
	// Spark's next OPTIMIZE leaves them too. ZOrderBy, Predicate and
	// PartitionFilters are refused there, as Spark refuses them.
	//
	// ZOrderBy, when set, z-orders instead of compacting (OPTIMIZE ZORDER
	// BY): the live files of each selected partition are rewritten with
	// their rows sorted along a z-curve over these columns, into files
	// near TargetSize. The columns must be data columns (not partition
	// columns) with min/max statistics (delta.dataSkippingStatsColumns or
	// delta.dataSkippingNumIndexedCols). Files an earlier z-order by the
	// same columns wrote and nothing touched since are left alone unless
	// Force is set. MinInputFiles does not apply. An empty, non-nil list
	// (or one of blank names) is refused; nil compacts.
	ZOrderBy []string
	// PurgeDeletionVectors rewrites, instead of compacting, the files of
	// the selected partitions that carry a deletion vector, so that no
	// file keeps rows only its vector hides (Spark's REORG TABLE ... APPLY
	// (PURGE)): every such file goes whatever its size, packed with its
	// partition's others into files near the target size, dataChange=false,
	// in a commit whose operation is Spark's "REORG". Files without one are
	// left alone; the old DV files go at a VACUUM after the retention.
	// Not with ZOrderBy.
	PurgeDeletionVectors bool
	// PurgeMinDeletedRatio, with PurgeDeletionVectors, purges only files
	// whose vector hides more than this share of their rows (0, the
	// default: every file with a deleted row; 0.2: those with more than
	// 20% of their rows deleted). A file whose row count the log does not
	// record is always purged. At least 0, below 1.
	PurgeMinDeletedRatio float64
	// Force z-orders every live file of the selected partitions, including
	// those already z-ordered by the same columns.
	Force bool
	// Full, on a clustered table, reclusters every live file (Spark's
	// OPTIMIZE FULL), including those an earlier clustering placed, by
	// any columns or implementation; without it those stay and only
	// unclustered files are clustered. Refused on other tables, as Spark
	// refuses it.
	Full bool
	// MaxSortBytes bounds the rows a z-order holds in memory to sort them
	// (default 64 MiB), shared by the partitions z-ordered at once; rows
	// past it are sorted in runs spilled to TempDir and merged, so a
	// partition of any size z-orders within it.
	MaxSortBytes int64
	// TempDir is the local directory for the z-order's spilled runs
	// (default os.TempDir()); never the table's store. They are removed
	// when the partition is done, failed or canceled, and those of a
	// killed process by the next z-order that uses the directory.
	TempDir string
	// MultipartThreshold and MultipartPartSize size cloud uploads of the
	// written files, as upsert.Options does; 0 keeps the store's.
	MultipartThreshold, MultipartPartSize int64
	// CommitMaxRetries is how many times a commit that lost the race for a
	// version is retried (default 15), and how many times a compaction
	// whose files another writer removed plans again on the newer table;
	// negative: none.
	CommitMaxRetries int
	// CommitMetadata is merged into commitInfo.
	CommitMetadata map[string]any
	// Progress, when set, is called after each bin is written, from the
	// calling goroutine's run (never concurrently).
	Progress func(Progress)
	// Limits are the process limits the call's budget draws from (default
	// limits.Process()).
	Limits *limits.Limits

	// Deprecated: Where is Predicate's old name; Predicate wins.
	Where string
	// Deprecated: TargetSize is TargetFileSize's old name; TargetFileSize
	// wins.
	TargetSize int64
}

// Normalized returns o with the values of its deprecated fields under
// their current names (which win when both are set).
func (o Options) Normalized() Options {
	if o.Predicate == "" {
		o.Predicate = o.Where
	}
	if o.TargetFileSize == 0 {
		o.TargetFileSize = o.TargetSize
	}
	o.Where, o.TargetSize = "", 0
	return o
}

// Filter is one partition filter of Options.PartitionFilters.
//
// Deprecated: use scan.Filter.
type Filter = scan.Filter

// Progress reports a running compaction after each bin.
type Progress struct {
	BinsDone, Bins int
	// FilesRemoved and FilesAdded count the files of the bins done.
	FilesRemoved, FilesAdded int
	Elapsed                  time.Duration
}
