package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
)

func newAssetPredicateCmd() *cobra.Command {
	var (
		pd, table string
		keys      []string
		meta      []string
	)
	cmd := &cobra.Command{
		Use:   "predicate --partitions-def PD --partition-key K... --metadata delta/partition_expr=EXPR [--table TABLE]",
		Short: "Print the predicate and delta-rs filters selecting partition keys",
		Long: `Print, as JSON, the SQL predicate and the delta-rs partition filters (one conjunction
per key) that select the given partition keys, as the IO handler builds them:
  {"predicate": "...", "filters": [[["col", "op", value], ...], ...]}
PD is a partitions definition, inline JSON or a .json file:
  {"kind": "daily|hourly|weekly|monthly", "start": "2024-01-01", "end", "fmt", "timezone"}
  {"kind": "time_window", "cron": "0 0 * * 1" | "interval_seconds": N, "start", "fmt"}
  {"kind": "static", "keys": [...]}   {"kind": "dynamic"}
  {"kind": "multi", "dimensions": {"region": PD, "date": PD}}
A multi key is written date=2024-01-02,region=us. delta/partition_expr is the partition
column, or a JSON object mapping each dimension to its column. Without --table the time
bounds are strings in the key format; with it they are typed against the table's columns
(DATE, TIMESTAMP, numbers).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if pd == "" {
				return fmt.Errorf("--partitions-def is required: the asset's partitions definition (inline JSON or a .json file)")
			}
			metadata, err := keyValues("--metadata", meta)
			if err != nil {
				return err
			}
			def, err := partitions.ParseDefinition(pd)
			if err != nil {
				return fmt.Errorf("--partitions-def: %w", err)
			}
			e, err := partitions.ParseExpr(metadata["delta/partition_expr"])
			if err != nil {
				return fmt.Errorf("--metadata: %w", err)
			}
			var sc *schema.Struct
			if table != "" {
				t, err := openTable(cmd, table)
				if err != nil {
					return err
				}
				sc = t.DeltaSchema()
			}
			pred, err := partitions.Predicate(def, e, keys, sc)
			if err != nil {
				return err
			}
			filters, err := partitions.Filters(def, e, keys, sc)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetEscapeHTML(false)
			return enc.Encode(struct {
				Predicate string          `json:"predicate"`
				Filters   [][]scan.Filter `json:"filters"`
			}{pred, filters})
		},
	}
	f := cmd.Flags()
	f.StringVar(&pd, "partitions-def", "", "partitions definition: inline JSON or a .json file")
	f.StringArrayVar(&keys, "partition-key", nil, "a partition key of the run (repeatable: a backfill)")
	f.StringArrayVar(&meta, "metadata", nil, "asset metadata KEY=VALUE, e.g. delta/partition_expr=date (repeatable)")
	f.StringVar(&table, "table", "", "type the bounds against this table's partition columns")
	return cmd
}
