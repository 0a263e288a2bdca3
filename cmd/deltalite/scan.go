package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/expr"
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
				ts, err := time.Parse(time.RFC3339Nano, timestamp)
				if err != nil {
					return fmt.Errorf("--timestamp %q is not RFC 3339 (e.g. 2026-01-02T15:04:05Z)", timestamp)
				}
				opts = append(opts, deltalite.WithTimestamp(ts))
			}
			if format == "" {
				format = "csv"
				if output == "" && isTerminal(os.Stdout) {
					format = "table"
				}
			}
			t, err := openTable(cmd, args[0], opts...)
			if err != nil {
				return err
			}
			var scanOpts []scan.Option
			if len(columns) > 0 {
				scanOpts = append(scanOpts, scan.WithColumns(columns...))
			}
			preds, err := scanPredicates(t.Snapshot(), where, partitions)
			if err != nil {
				return err
			}
			scanOpts = append(scanOpts, preds...)
			if limit > 0 {
				scanOpts = append(scanOpts, scan.WithLimit(limit))
			}
			sc, batches, err := t.Scan(scanOpts...).Records(cmd.Context())
			if err != nil {
				return err
			}
			var w io.Writer = cmd.OutOrStdout()
			if output != "" {
				f, err := os.Create(output)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			sink, err := newSink(format, w, sc)
			if err != nil {
				return err
			}
			for rec, err := range batches {
				if err != nil {
					return err
				}
				if err := sink.Write(rec); err != nil {
					return err
				}
			}
			return sink.Close()
		},
	}
	f := cmd.Flags()
	f.Int64Var(&version, "version", 0, "read this version")
	f.StringVar(&timestamp, "timestamp", "", "read the version current at this RFC 3339 time")
	f.StringSliceVar(&columns, "columns", nil, "read only these columns (comma-separated)")
	f.StringVar(&where, "where", "", "SQL predicate rows must satisfy, e.g. \"day >= '2026-01-01' AND score > 8\"")
	f.StringArrayVar(&partitions, "partition", nil, "partition COL=VALUE, short for --where \"COL = 'VALUE'\"; COL= selects null (repeatable)")
	f.Int64Var(&limit, "limit", 0, "stop after N rows")
	f.StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: table on a terminal, else csv)")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of standard output")
	return cmd
}

// scanPredicates binds --where and the --partition shorthands against the
// table; a row must satisfy all of them.
func scanPredicates(snap *snapshot.Snapshot, where string, partitions []string) ([]scan.Option, error) {
	var opts []scan.Option
	if strings.TrimSpace(where) != "" {
		pred, err := expr.ParsePredicate(where, snap.Schema())
		if err != nil {
			return nil, fmt.Errorf("--where: %w", err)
		}
		opts = append(opts, scan.WithPredicate(pred))
	}
	for _, p := range partitions {
		e, err := partitionPredicate(p, snap.PartitionColumns())
		if err != nil {
			return nil, err
		}
		pred, err := expr.BindTable(e, snap.Schema())
		if err != nil {
			return nil, fmt.Errorf("--partition %q: %w", p, err)
		}
		opts = append(opts, scan.WithPredicate(pred))
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
