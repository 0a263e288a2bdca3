package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
)

func newScanCmd() *cobra.Command {
	var (
		version    int64
		timestamp  string
		columns    []string
		partitions []string
		limit      int64
		format     string
		output     string
	)
	cmd := &cobra.Command{
		Use:   "scan TABLE",
		Short: "Read a table's rows",
		Long: `Read a table's rows, optionally at a version or timestamp, projected to some
columns and pruned by partition filters such as 'year=2021', 'day>=2021-01-01' or
'letter in a,b'.`,
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
			var scanOpts []scan.Option
			if len(columns) > 0 {
				scanOpts = append(scanOpts, scan.WithColumns(columns...))
			}
			for _, p := range partitions {
				f, err := parsePartitionFilter(p)
				if err != nil {
					return err
				}
				scanOpts = append(scanOpts, scan.WithFilters(f))
			}
			if limit > 0 {
				scanOpts = append(scanOpts, scan.WithLimit(limit))
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
	f.StringArrayVar(&partitions, "partition", nil, "partition filter like 'k=v', 'k!=v', 'k>v', 'k in a,b' (repeatable)")
	f.Int64Var(&limit, "limit", 0, "stop after N rows")
	f.StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: table on a terminal, else csv)")
	f.StringVarP(&output, "output", "o", "", "write to FILE instead of standard output")
	return cmd
}

// parsePartitionFilter reads "k=v", "k!=v", "k<v", "k<=v", "k>v", "k>=v",
// "k in a,b" and "k not in a,b".
func parsePartitionFilter(s string) (scan.Filter, error) {
	low := strings.ToLower(s)
	for _, op := range []string{" not in ", " in "} {
		if i := strings.Index(low, op); i > 0 {
			vals := strings.Split(strings.TrimSpace(s[i+len(op):]), ",")
			for j := range vals {
				vals[j] = strings.TrimSpace(vals[j])
			}
			return scan.NewFilter(strings.TrimSpace(s[:i]), strings.TrimSpace(op), vals...)
		}
	}
	for _, op := range []string{"!=", "<=", ">=", "=", "<", ">"} {
		if i := strings.Index(s, op); i > 0 {
			return scan.NewFilter(strings.TrimSpace(s[:i]), op, strings.TrimSpace(s[i+len(op):]))
		}
	}
	return scan.Filter{}, fmt.Errorf("--partition %q: expected COLUMN OP VALUE, e.g. 'year=2021' or 'letter in a,b'", s)
}
