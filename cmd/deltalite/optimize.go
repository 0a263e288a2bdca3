package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/optimize"
)

func newOptimizeCmd() *cobra.Command {
	var (
		where    string
		target   int64
		zorderBy []string
		interval time.Duration
		tasks    int
		meta     []string
		asJSON   bool
	)
	cmd := &cobra.Command{
		Use:   "optimize TABLE [--where PRED] [--target-size BYTES] [--zorder-by c1,c2] [--json]",
		Short: "Compact small files into files near the target size (OPTIMIZE), same rows, dataChange=false",
		Long: `Compact the small files of each partition into files near --target-size (default the
table's delta.targetFileSize, else 100 MiB), with the same rows: files with deletion
vectors are rewritten without their deleted rows. --where restricts it to the partitions
a predicate over partition columns selects. One OPTIMIZE commit with dataChange=false
(one per --min-commit-interval on long runs); concurrent appends never conflict with it.
Nothing to compact commits nothing. --json prints the commit's metrics as delta-rs names
them, with the version.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(zorderBy) > 0 {
				return errors.New("--zorder-by: z-order: not built in this build")
			}
			if target < 0 || tasks < 0 || interval < 0 {
				return errors.New("--target-size, --max-concurrent-tasks and --min-commit-interval must not be negative")
			}
			metadata, err := keyValues("--metadata", meta)
			if err != nil {
				return err
			}
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			opts := deltalite.OptimizeOptions{
				Where: where, TargetSize: target, MinCommitInterval: interval, MaxConcurrentTasks: tasks,
				CommitMetadata: anyMap(metadata),
			}
			printed := false
			if isTerminal(os.Stderr) {
				opts.Progress = func(p optimize.Progress) { printProgress(p); printed = true }
			}
			stats, err := t.Optimize(cmd.Context(), opts)
			if printed {
				fmt.Fprintln(os.Stderr)
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
	f.StringSliceVar(&zorderBy, "zorder-by", nil, "columns to z-order by instead of compacting")
	f.DurationVar(&interval, "min-commit-interval", 0, "commit the bins done each time this long has passed (e.g. 10m); 0: one commit")
	f.IntVar(&tasks, "max-concurrent-tasks", 0, "bins rewritten at once (default the number of CPUs)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the commit's metrics as JSON with delta-rs's names")
	return cmd
}

// printProgress rewrites one line on standard error after each bin.
func printProgress(p optimize.Progress) {
	fmt.Fprintf(os.Stderr, "\r%d/%d bins, %d files compacted into %d, %s", p.BinsDone, p.Bins, p.FilesRemoved,
		p.FilesAdded, p.Elapsed.Round(time.Second))
}
