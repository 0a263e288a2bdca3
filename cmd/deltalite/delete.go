package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
)

func newDeleteCmd() *cobra.Command {
	var (
		where       string
		meta        []string
		asJSON, all bool
		dvs         *dvFlag
		tz          *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "delete TABLE (--where PRED | --all)",
		Short: "Delete the rows a SQL predicate selects (every row with --all), in one commit",
		Long: `Delete the rows for which --where IS TRUE, as DELETE FROM t WHERE ... does; a row whose
predicate is NULL is kept. Files that partition values and statistics decide are
removed or kept without being read, so a predicate on partition columns only reads
no data file. --where is required, and an empty one is refused (so that an unset
shell variable never empties a table); --all deletes every row instead, the table
and its history staying. A delete that removes nothing commits nothing.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			zone, err := tz.value()
			if err != nil {
				return err
			}
			t, metadata, err := openToCommit(cmd, args[0], meta)
			if err != nil {
				return err
			}
			stats, err := t.Delete(cmd.Context(), deltalite.DeleteOptions{Predicate: where, All: all, CommitMetadata: metadata, CopyOnWrite: dvs.copyOnWrite(),
				SessionTimeZone: zone})
			if err != nil {
				return whereError(where, err)
			}
			return printDML(cmd, asJSON, stats.Version, stats.Metrics(), stats.String())
		},
	}
	f := cmd.Flags()
	f.StringVar(&where, "where", "", "SQL predicate selecting the rows to delete, e.g. \"day = '2026-01-01'\" (required unless --all)")
	f.BoolVar(&all, "all", false, "delete every row (instead of --where)")
	dvs = addDeletionVectorsFlag(f)
	tz = addSessionTimeZoneFlag(f)
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the stats as JSON with Spark's metric names")
	return cmd
}

// flagError names the flag whose text an invalid-argument error is about.
func flagError(flag, value string, err error) error {
	if value != "" && errors.Is(err, deltalite.ErrInvalidArgument) {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return err
}

// whereFlags name the flags of delete and update in place of the options
// the engine's messages name.
var whereFlags = strings.NewReplacer("Options.Predicate", "--where", "Options.All", "--all")

// whereError is a DELETE's or UPDATE's error in terms of its flags: the
// engine refuses an empty --where without --all, and both together.
func whereError(where string, err error) error {
	if errors.Is(err, deltalite.ErrInvalidArgument) && strings.Contains(err.Error(), "Options.") {
		return errors.New(whereFlags.Replace(err.Error()))
	}
	return flagError("--where", where, err)
}

// printDML prints a DELETE or UPDATE's stats: as JSON, the version and
// the commit's Spark metrics (numDeletedRows, ...); else the stats' text.
func printDML(cmd *cobra.Command, asJSON bool, version int64, metrics map[string]any, text string) error {
	out := cmd.OutOrStdout()
	if !asJSON {
		_, err := fmt.Fprintln(out, text)
		return err
	}
	doc := maps.Clone(metrics)
	doc["version"] = version
	return json.NewEncoder(out).Encode(doc)
}
