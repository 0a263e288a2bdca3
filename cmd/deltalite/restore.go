package main

import (
	"fmt"
	"maps"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
)

func newRestoreCmd() *cobra.Command {
	var (
		version   int64
		timestamp string
		meta      []string
		asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "restore TABLE (--version N | --timestamp TS)",
		Short: "Make the table show an earlier version again, in one commit",
		Long: `Restore the table to an earlier version, as RESTORE TABLE ... TO VERSION AS OF
does: the files of that version that are gone since are added back, the files
added since are removed, and its schema and properties come back; the protocol
is never downgraded. History stays: later versions remain readable. The restore
is refused, naming the file, when a file it needs was vacuumed. --timestamp
restores the version current at that time (RFC 3339, or a UTC date or
timestamp; a time after the latest commit is refused, as history shows it).
Restoring to the current version commits nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts deltalite.RestoreOptions
			if cmd.Flags().Changed("version") == (timestamp != "") {
				return fmt.Errorf("give exactly one of --version N and --timestamp TS")
			}
			if cmd.Flags().Changed("version") {
				opts.Version = &version
			} else {
				ts, err := parseAsOf("--timestamp", timestamp)
				if err != nil {
					return err
				}
				opts.Timestamp = ts
			}
			t, metadata, err := openToCommit(cmd, args[0], meta)
			if err != nil {
				return err
			}
			opts.CommitMetadata = metadata
			stats, err := t.Restore(cmd.Context(), opts)
			if err != nil {
				return err
			}
			m := maps.Clone(stats.Metrics())
			m["restoredVersion"] = stats.RestoredVersion
			return printDML(cmd, asJSON, stats.Version, m, stats.String())
		},
	}
	f := cmd.Flags()
	f.Int64Var(&version, "version", 0, "the version to restore")
	f.StringVar(&timestamp, "timestamp", "", "restore the version current at this time (RFC 3339, or a UTC date or timestamp)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the stats as JSON with Spark's metric names")
	return cmd
}

func newCheckpointCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "checkpoint TABLE",
		Short: "Write a checkpoint of the table's newest version",
		Long: `Write a checkpoint of the table's newest version, of the kind the table uses
(v2 checkpoint metadata when it has the v2Checkpoint feature), and point
_last_checkpoint at it, so that readers start from there instead of replaying
every commit. Commits write one every delta.checkpointInterval versions.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			info, err := t.Checkpoint(cmd.Context())
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "checkpoint of version %d: %s\n", info.Version, info.File)
			return err
		},
	}
}

func newCleanupMetadataCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "cleanup-metadata TABLE",
		Short: "Delete log files older than delta.logRetentionDuration",
		Long: `Delete the commits and checkpoints that precede the newest checkpoint made before
delta.logRetentionDuration (default 30 days) ago, as delta-rs cleanup_metadata
does. Every version within the retention stays readable; versions before it can
no longer be time travelled to. Without such a checkpoint nothing is deleted.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			n, err := t.CleanupMetadata(cmd.Context())
			if err != nil {
				return err
			}
			doc := map[string]any{"numDeletedFiles": n}
			return printDML(cmd, asJSON, t.Version(), doc, fmt.Sprintf("deleted %d expired log files (table at version %d)", n, t.Version()))
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}
