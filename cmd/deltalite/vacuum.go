package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/vacuum"
)

func newVacuumCmd() *cobra.Command {
	var (
		hours             int
		noEnforce, dryRun bool
		lite, asJSON      bool
		meta              []string
	)
	cmd := &cobra.Command{
		Use:   "vacuum TABLE [--retention-hours N] [--no-enforce-retention] [--dry-run] [--lite] [--json]",
		Short: "Delete the files no version within the retention needs",
		Long: `Delete the files of the table that no version within the retention reads and that are
older than it: data files of removes older than the retention, orphans of failed
writes (their .deltalite-tmp-* files included), unreferenced deletion vector and
_change_data files. _delta_log, other hidden files and folders (except partition
folders) and files outside the table are never touched.
The retention is --retention-hours, else the table's delta.deletedFileRetentionDuration,
else 7 days; a shorter one than the table's needs --no-enforce-retention. --lite deletes
only the files of expired removes the log still has, without listing the storage
(orphans stay for a full vacuum).
--dry-run lists the files and deletes nothing. Versions older than the retention
can no longer be read once their files are gone.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			metadata, err := commitMetadata(meta)
			if err != nil {
				return err
			}
			opts := deltalite.VacuumOptions{NoEnforceRetention: noEnforce, DryRun: dryRun, Lite: lite, CommitMetadata: metadata}
			if cmd.Flags().Changed("retention-hours") {
				opts.RetentionHours = vacuum.Hours(hours)
			}
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			printed := false
			if cliout.IsTerminal(os.Stderr) {
				opts.Progress = func(p vacuum.Progress) { printVacuumProgress(p); printed = true }
			}
			stats, err := t.Vacuum(cmd.Context(), opts)
			if printed {
				fmt.Fprintln(os.Stderr)
			}
			if err != nil {
				if !cmd.Flags().Changed("retention-hours") {
					return err
				}
				return flagError("--retention-hours", fmt.Sprint(hours), err)
			}
			return printVacuum(cmd, asJSON, stats)
		},
	}
	f := cmd.Flags()
	f.IntVar(&hours, "retention-hours", 0, "keep files removed within this many hours (default: the table's retention)")
	f.BoolVar(&noEnforce, "no-enforce-retention", false, "allow a retention shorter than the table's")
	f.BoolVar(&dryRun, "dry-run", false, "list the files a vacuum would delete; delete and commit nothing")
	f.BoolVar(&lite, "lite", false, "delete only the files of expired removes in the log, without listing the storage")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print a JSON object: version, the metrics, and the files on a dry run")
	return cmd
}

// printVacuumProgress rewrites one line on standard error.
func printVacuumProgress(p vacuum.Progress) {
	if p.ToDelete == 0 {
		fmt.Fprintf(os.Stderr, "\rlisted %d objects, %s", p.Listed, p.Elapsed.Round(time.Second))
		return
	}
	fmt.Fprintf(os.Stderr, "\rdeleted %d/%d files, %s", p.Deleted, p.ToDelete, p.Elapsed.Round(time.Second))
}

// printVacuum prints the stats, with the files on a dry run; as JSON, the
// version, dryRun and the VACUUM metrics (numFilesToDelete, ...), and the
// files on a dry run.
func printVacuum(cmd *cobra.Command, asJSON bool, s deltalite.VacuumStats) error {
	out := cmd.OutOrStdout()
	if asJSON {
		doc := s.Metrics()
		doc["version"] = s.Version
		doc["dryRun"] = s.DryRun
		if s.DryRun {
			files := s.Files
			if files == nil {
				files = []string{}
			}
			doc["files"] = files
		}
		return json.NewEncoder(out).Encode(doc)
	}
	if s.DryRun {
		fmt.Fprintf(out, "Found %d files (%d bytes) to delete:\n", len(s.Files), s.BytesToDelete)
		for _, f := range s.Files {
			fmt.Fprintln(out, f)
		}
	}
	_, err := fmt.Fprintln(out, s.String())
	return err
}
