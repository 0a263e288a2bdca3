package main

import (
	"errors"
	"fmt"
	"iter"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/internal/expr"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/snapshot"
)

func newScanCmd() *cobra.Command {
	var (
		version    int64
		timestamp  string
		columns    []string
		partitions []string
		where      string
		limit      int64
		format     string
		output     string
		tz         *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "scan TABLE",
		Short: "Read a table's rows",
		Long: `Read a table's rows, optionally at a version or timestamp, projected to some
columns and filtered by a SQL predicate, e.g.
  --where "day >= '2026-01-01' AND score > 8"   --where "day IS NULL"
(the syntax of write --replace-where). Files are skipped by partition values
and statistics, rows are filtered; the predicate may read columns not selected.
--partition COL=VALUE is short for --where "COL = 'VALUE'" (COL= for IS NULL).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts []deltalite.Option
			if cmd.Flags().Changed("version") {
				opts = append(opts, deltalite.WithVersion(version))
			}
			if timestamp != "" {
				ts, err := parseAsOf("--timestamp", timestamp)
				if err != nil {
					return err
				}
				opts = append(opts, deltalite.WithTimestamp(ts))
			}
			if limit < 0 {
				return fmt.Errorf("--limit %d: the number of rows must be 0 or more", limit)
			}
			stdout := cmd.OutOrStdout()
			format, err := cliout.Format(format, output, cliout.IsTerminal(stdout))
			if err != nil {
				return err
			}
			t, err := openTable(cmd, args[0], opts...)
			if err != nil {
				return err
			}
			var scanOpts []scan.Option
			if len(columns) > 0 {
				scanOpts = append(scanOpts, scan.WithColumns(columns...))
			}
			zone, err := tz.value()
			if err != nil {
				return err
			}
			preds, err := scanPredicates(t.Snapshot(), where, partitions, zone)
			if err != nil {
				return err
			}
			scanOpts = append(scanOpts, preds...)
			if cmd.Flags().Changed("limit") {
				scanOpts = append(scanOpts, scan.WithLimit(limit))
			}
			sc, batches, err := t.Scan(scanOpts...).Records(cmd.Context())
			if err != nil {
				return err
			}
			dest, err := cliout.OpenDestination(output, stdout)
			if err != nil {
				return err
			}
			more, err := writeScan(dest, format, sc, batches, !cmd.Flags().Changed("limit"))
			if ferr := dest.Finish(err == nil); err == nil {
				err = ferr
			}
			if err == nil && more {
				fmt.Fprintf(cmd.ErrOrStderr(), "deltalite: showing the first %d rows; use --limit N for more, or --format csv or --output FILE for all of them\n", terminalRows)
			}
			return err
		},
	}
	f := cmd.Flags()
	f.Int64Var(&version, "version", 0, "read this version")
	f.StringVar(&timestamp, "timestamp", "", "read the version current at this time (RFC 3339, or a UTC date or timestamp)")
	f.StringSliceVar(&columns, "columns", nil, "read only these columns (comma-separated)")
	f.StringVar(&where, "where", "", "SQL predicate rows must satisfy, e.g. \"day >= '2026-01-01' AND score > 8\"")
	tz = addSessionTimeZoneFlag(f)
	f.StringArrayVar(&partitions, "partition", nil, "partition COL=VALUE, short for --where \"COL = 'VALUE'\"; COL= selects null (repeatable)")
	f.Int64Var(&limit, "limit", 0, fmt.Sprintf("stop after N rows (default: all, or %d in a table on a terminal)", terminalRows))
	f.StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: from the --output extension, else table on a terminal, else csv)")
	f.StringVarP(&output, "output", "o", "", "write to FILE (created only when the scan succeeds) instead of standard output")
	return cmd
}

// terminalRows is how many rows a table on a terminal shows unless --limit
// says otherwise.
const terminalRows = 1000

// writeScan writes the batches to dest in format. A table on a terminal
// shows terminalRows rows when capped; more reports rows left out.
func writeScan(dest *cliout.Destination, format string, sc *arrow.Schema, batches iter.Seq2[arrow.RecordBatch, error], capped bool) (more bool, err error) {
	var sink cliout.Sink
	if format == "table" {
		maxRows := int64(-1)
		if dest.Terminal && capped {
			maxRows = terminalRows
		}
		sink = cliout.NewTableSink(dest, sc, maxRows, dest.Terminal)
	} else {
		if sink, err = cliout.NewSink(format, dest, sc); err != nil {
			return false, err
		}
	}
	for rec, err := range batches {
		if err != nil {
			return false, err
		}
		if err := sink.Write(rec); err != nil {
			if !errors.Is(err, cliout.ErrSinkFull) {
				return false, err
			}
			more = true
			break
		}
	}
	return more, sink.Close()
}

// scanPredicates checks --where and the --partition shorthands against the
// table, so that an error names its flag, and gives them to the scan as
// SQL text; a row must satisfy all of them.
func scanPredicates(snap *snapshot.Snapshot, where string, partitions []string, zone string) ([]scan.Option, error) {
	sess, err := expr.NewSession(zone)
	if err != nil {
		return nil, fmt.Errorf("--session-time-zone: %w", err)
	}
	opts := []scan.Option{scan.WithSessionTimeZone(zone)}
	if strings.TrimSpace(where) != "" {
		if _, err := sess.ParsePredicate(where, snap.Schema()); err != nil {
			return nil, fmt.Errorf("--where: %w", err)
		}
		opts = append(opts, scan.WithWhere(where))
	}
	for _, p := range partitions {
		e, err := partitionPredicate(p, snap.PartitionColumns())
		if err != nil {
			return nil, err
		}
		if _, err := sess.BindTable(e, snap.Schema()); err != nil {
			return nil, fmt.Errorf("--partition %q: %w", p, err)
		}
		opts = append(opts, scan.WithWhere(e.String()))
	}
	return opts, nil
}

// partitionPredicate turns --partition COL=VALUE into COL = 'VALUE' and
// COL= into COL IS NULL, for a partition column COL.
func partitionPredicate(s string, partCols []string) (expr.Expr, error) {
	col, val, ok := strings.Cut(s, "=")
	col = strings.TrimSpace(col)
	if !ok || col == "" || strings.ContainsAny(col, "!<> ") {
		return nil, fmt.Errorf("--partition %q: expected COLUMN=VALUE (COLUMN= for null); for other conditions use --where, e.g. --where \"year > 2020\"", s)
	}
	known := false
	for _, p := range partCols {
		known = known || strings.EqualFold(p, col)
	}
	if !known {
		return nil, fmt.Errorf("--partition %q: %q is not a partition column (partition columns: %s); use --where to filter on other columns", s, col, strings.Join(partCols, ", "))
	}
	c := &expr.Column{Parts: []string{col}}
	if val == "" {
		return &expr.IsNull{X: c}, nil
	}
	return &expr.Binary{Op: expr.Eq, L: c, R: &expr.Literal{Kind: expr.LitString, Text: val}}, nil
}
