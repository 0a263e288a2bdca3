package main

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/optimize"
)

func newOptimizeCmd() *cobra.Command {
	var (
		where     string
		target    int64
		zorderBy  []string
		force     bool
		interval  time.Duration
		tasks     int
		meta      []string
		asJSON    bool
		sortBytes int64
		tempDir   string
		purge     bool
		full      bool
		tz        *zoneFlag
		minDel    float64
	)
	cmd := &cobra.Command{
		Use:   "optimize TABLE [--where PRED] [--target-size BYTES] [--zorder-by c1,c2 | --purge-deletion-vectors | --full] [--json]",
		Short: "Compact small files, or z-order partitions, into files near the target size (OPTIMIZE), same rows",
		Long: `Compact the small files of each partition into files near --target-size (default the
table's delta.targetFileSize, else 100 MiB), with the same rows: files with deletion
vectors are rewritten without their deleted rows. --where restricts it to the partitions
a predicate over partition columns selects. One OPTIMIZE commit with dataChange=false
(one per --min-commit-interval on long runs); concurrent appends never conflict with it.
Nothing to compact commits nothing. --zorder-by c1,c2 z-orders instead: every live file
of each selected partition is rewritten with its rows along a z-curve over the columns
(data columns with min/max statistics), sorting within --max-sort-bytes and spilling
sorted runs to --temp-dir; files an earlier z-order by the same columns wrote are left
alone unless --force. --purge-deletion-vectors rewrites instead the files of the selected
partitions that carry a deletion vector, whatever their size, so that no row stays only
hidden (Spark's REORG TABLE ... APPLY (PURGE), committed as REORG); with
--purge-min-deleted-ratio R only files whose vector hides more than that share of their
rows (e.g. 0.2); the old deletion vector files go at a VACUUM after the retention.
On a clustered table (create --cluster-by, alter --cluster-by) it clusters instead, as
Spark's OPTIMIZE of a liquid-clustered table: the files no earlier clustering placed are
rewritten along a z-curve over the clustering columns as one z-cube tagged as Spark tags
it, so that its OPTIMIZE and ours leave them be; --full reclusters every file (OPTIMIZE
FULL). --where and --zorder-by are refused there, as Spark refuses them.
--json prints the commit's metrics as delta-rs names them, with the version.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if target < 0 || tasks < 0 || interval < 0 || sortBytes < 0 {
				return errors.New("--target-size, --max-concurrent-tasks, --min-commit-interval and --max-sort-bytes must not be negative")
			}
			zorder := cmd.Flags().Changed("zorder-by")
			if zorder && zorderBy == nil {
				zorderBy = []string{} // given empty: refused as a z-order by no column, never a compaction
			}
			if force && !zorder {
				return errors.New("--force applies to --zorder-by: give the columns to z-order by")
			}
			if cmd.Flags().Changed("purge-min-deleted-ratio") && !purge {
				return errors.New("--purge-min-deleted-ratio applies to --purge-deletion-vectors: give that flag too")
			}
			if purge && zorder {
				return errors.New("--purge-deletion-vectors and --zorder-by exclude each other: purge first, then z-order")
			}
			t, metadata, err := openToCommit(cmd, args[0], meta)
			if err != nil {
				return err
			}
			opts := deltalite.OptimizeOptions{
				Predicate: where, TargetFileSize: target, MinCommitInterval: interval, MaxConcurrentTasks: tasks,
				CommitMetadata: metadata, ZOrderBy: zorderBy, Force: force, MaxSortBytes: sortBytes, TempDir: tempDir,
				PurgeDeletionVectors: purge, PurgeMinDeletedRatio: minDel, Full: full,
			}
			if opts.SessionTimeZone, err = tz.value(); err != nil {
				return err
			}
			printed := false
			if cliout.IsTerminal(os.Stderr) {
				verb := "compacted into"
				if zorder {
					verb = "z-ordered into"
				}
				if purge {
					verb = "purged into"
				}
				opts.Progress = func(p optimize.Progress) { printProgress(p, verb); printed = true }
			}
			stats, err := t.Optimize(cmd.Context(), opts)
			if printed {
				fmt.Fprintln(os.Stderr)
			}
			if err != nil && zorder && strings.Contains(err.Error(), "z-order by") {
				return fmt.Errorf("--zorder-by: %w", err)
			}
			if err != nil && purge && strings.Contains(err.Error(), "PurgeMinDeletedRatio") {
				return fmt.Errorf("--purge-min-deleted-ratio: %w", err)
			}
			if err != nil {
				return flagError("--where", where, err)
			}
			return printDML(cmd, asJSON, stats.Version, stats.Metrics(), stats.String())
		},
	}
	f := cmd.Flags()
	f.StringVar(&where, "where", "", "SQL predicate over partition columns selecting the partitions, e.g. \"day >= '2026-01-01'\"")
	f.Int64Var(&target, "target-size", 0, "size in bytes of the files written (default the table's delta.targetFileSize, else 104857600)")
	f.StringSliceVar(&zorderBy, "zorder-by", nil, "columns to z-order by instead of compacting, e.g. x,y")
	f.BoolVar(&force, "force", false, "with --zorder-by: z-order every file, also those already z-ordered by the same columns")
	f.Int64Var(&sortBytes, "max-sort-bytes", 0, "bytes a z-order holds in memory to sort (default 67108864); the rest spills to --temp-dir")
	f.StringVar(&tempDir, "temp-dir", "", "local directory for a z-order's spilled runs (default the system's temporary directory); runs a killed process left there go at the next z-order")
	tz = addSessionTimeZoneFlag(f)
	f.BoolVar(&purge, "purge-deletion-vectors", false, "rewrite the files that carry deletion vectors instead of compacting (Spark's REORG TABLE ... APPLY (PURGE))")
	f.Float64Var(&minDel, "purge-min-deleted-ratio", 0, "with --purge-deletion-vectors: only files whose vector hides more than this share of their rows, 0 to below 1 (default 0: every file with a deleted row)")
	f.BoolVar(&full, "full", false, "on a clustered table: recluster every file, also those an earlier clustering placed (Spark's OPTIMIZE FULL)")
	f.DurationVar(&interval, "min-commit-interval", 0, "commit the bins done each time this long has passed (e.g. 10m); 0: one commit")
	f.IntVar(&tasks, "max-concurrent-tasks", 0, "bins rewritten at once (default the number of CPUs)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the commit's metrics as JSON with delta-rs's names")
	return cmd
}

// printProgress rewrites one line on standard error after each bin: files
// "compacted into" or "z-ordered into" new ones.
func printProgress(p optimize.Progress, verb string) {
	fmt.Fprintf(os.Stderr, "\r%d/%d bins, %d files %s %d, %s", p.BinsDone, p.Bins, p.FilesRemoved, verb,
		p.FilesAdded, p.Elapsed.Round(time.Second))
}
