package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/internal/expr"
)

func newChangesCmd() *cobra.Command {
	var (
		fromVersion, toVersion int64
		fromTime, toTime       string
		columns                []string
		where                  string
		format                 string
		output                 string
		stats                  bool
		tz                     *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "changes TABLE (--from-version N | --from-timestamp T) [--to-version M | --to-timestamp T]",
		Short: "Read a table's change data feed",
		Long: `Read the rows each commit of a range inserted, deleted or updated, as Spark's
table_changes: the table's columns and _change_type (insert, delete,
update_preimage, update_postimage), _commit_version and _commit_timestamp.
The table must record its changes (table property delta.enableChangeDataFeed=true)
for every version of the range.

The range starts at --from-version N, or at the first version committed at or
after --from-timestamp T, and ends at --to-version M, or at the last version
committed at or before --to-timestamp T (default: the latest version).
--columns selects columns (the change columns too); --where filters rows by a
SQL predicate on the table's columns (the syntax of scan --where), e.g.
  deltalite changes events --from-version 3 --where "day >= '2026-01-01'"
--stats prints what the read did as one JSON line on standard error once it is done:
the commits of the range, the files read and their bytes (only files the range's
commits name are read), the files the predicate ruled out, and the rows, e.g.
  {"commits":2,"files_read":2,"bytes_read":2210,"files_skipped":0,"rows":2}`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fl := cmd.Flags()
			var opts deltalite.ChangesOptions
			switch {
			case fl.Changed("from-version") && fromTime != "":
				return fmt.Errorf("--from-version and --from-timestamp both given: give one")
			case fl.Changed("from-version"):
				if fromVersion < 0 {
					return fmt.Errorf("--from-version %d: versions start at 0", fromVersion)
				}
				opts.FromVersion = fromVersion
			case fromTime != "":
				ts, err := parseAsOf("--from-timestamp", fromTime)
				if err != nil {
					return err
				}
				opts.FromTimestamp = ts
			default:
				return fmt.Errorf("give where the changes start: --from-version N or --from-timestamp T")
			}
			switch {
			case fl.Changed("to-version") && toTime != "":
				return fmt.Errorf("--to-version and --to-timestamp both given: give one")
			case fl.Changed("to-version"):
				if toVersion < 0 {
					return fmt.Errorf("--to-version %d: versions start at 0", toVersion)
				}
				opts.ToVersion = &toVersion
			case toTime != "":
				ts, err := parseAsOf("--to-timestamp", toTime)
				if err != nil {
					return err
				}
				opts.ToTimestamp = ts
			}
			opts.Columns = columns
			stdout := cmd.OutOrStdout()
			format, err := cliout.Format(format, output, cliout.IsTerminal(stdout))
			if err != nil {
				return err
			}
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			if opts.SessionTimeZone, err = tz.value(); err != nil {
				return err
			}
			if strings.TrimSpace(where) != "" {
				sess, err := expr.NewSession(opts.SessionTimeZone)
				if err != nil {
					return fmt.Errorf("--session-time-zone: %w", err)
				}
				if _, err := sess.ParsePredicate(where, t.DeltaSchema()); err != nil {
					return fmt.Errorf("--where: %w", err)
				}
				opts.Where = where
			}
			var st deltalite.ChangesStats
			if stats {
				opts.Stats = &st
			}
			rr, err := t.Changes(cmd.Context(), opts)
			if err != nil {
				return err
			}
			defer rr.Release()
			dest, err := cliout.OpenDestination(output, stdout)
			if err != nil {
				return err
			}
			_, err = writeScan(dest, format, rr.Schema(), batchesOf(rr), false)
			if ferr := dest.Finish(err == nil); err == nil {
				err = ferr
			}
			if err == nil && stats {
				err = json.NewEncoder(cmd.ErrOrStderr()).Encode(st)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.Int64Var(&fromVersion, "from-version", 0, "first version whose changes are read")
	f.StringVar(&fromTime, "from-timestamp", "", "start at the first version committed at or after this time (RFC 3339, or a UTC date or timestamp)")
	f.Int64Var(&toVersion, "to-version", 0, "last version whose changes are read (default: the latest)")
	f.StringVar(&toTime, "to-timestamp", "", "end at the last version committed at or before this time")
	f.StringSliceVar(&columns, "columns", nil, "output only these columns (comma-separated; _change_type, _commit_version, _commit_timestamp too)")
	f.StringVar(&where, "where", "", "SQL predicate on the table's columns the rows must satisfy")
	tz = addSessionTimeZoneFlag(f)
	f.StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: from the --output extension, else table on a terminal, else csv)")
	f.StringVarP(&output, "output", "o", "", "write to FILE (created only when the read succeeds) instead of standard output")
	f.BoolVar(&stats, "stats", false, "print the read's statistics (commits, files and bytes read, files skipped, rows) as JSON on standard error")
	return cmd
}
