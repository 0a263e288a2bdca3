package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
)

func newUpsertCmd() *cobra.Command {
	var (
		input, inputFmt, deleteCol, appID, pruneStrategy string
		pks, partitionBy, meta                           []string
		appVersion                                       int64
		asJSON                                           bool
		dvs                                              *dvFlag
		tz                                               *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "upsert TABLE --input FILE --pk id[,k2]",
		Short: "Insert or replace rows by primary key, in one commit, with bounded memory",
		Long: `Insert or replace the input's rows by primary key within their partition. Matched
rows are replaced whole, new keys are inserted, and with --delete-column the rows
whose boolean column is true delete their key instead. With --app-id and
--app-version a redelivered batch is recognised and skipped. A table that does not
exist yet is created from the input's schema (partitioned by --partition-by).
` + inputHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if input == "" || len(pks) == 0 {
				return fmt.Errorf("--input FILE and --pk COLUMNS are required")
			}
			if (appID == "") != !cmd.Flags().Changed("app-version") {
				return fmt.Errorf("--app-id and --app-version go together")
			}
			format, err := inputFormat(input, inputFmt, "--input-format")
			if err != nil {
				return err
			}
			metadata, so, err := commitFlags(cmd, meta)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			t, err := deltalite.Open(ctx, args[0], deltalite.WithStorageOptions(so))
			if err != nil && !errors.Is(err, deltalite.ErrTableNotFound) {
				return err
			}
			var like *arrow.Schema
			if err == nil {
				like, _ = t.Schema()
			}
			in, src, err := openSource(ctx, input, format, like)
			if err != nil {
				return err
			}
			defer in.Close()
			if in.rows == 0 {
				return noRows(cmd, input, asJSON, "nothing upserted")
			}
			// A missing table is created from the input's schema in the
			// upsert's own commit, so a failed first upsert leaves no table.
			opts := deltalite.UpsertOptions{
				PrimaryKeys: pks, DeleteColumn: deleteCol, AppID: appID, AppVersion: appVersion,
				CommitMetadata: metadata, PruneStrategy: pruneStrategy,
				PartitionBy: partitionBy, CreateIfMissing: true, StorageOptions: so, CopyOnWrite: dvs.copyOnWrite(),
			}
			if opts.SessionTimeZone, err = tz.value(); err != nil {
				return err
			}
			stats, err := deltalite.Upsert(ctx, args[0], src, opts)
			if err != nil {
				return withSchemaHint(err, "upsert keeps the table's schema: leave those columns out of the input")
			}
			out := cmd.OutOrStdout()
			if asJSON {
				return json.NewEncoder(out).Encode(stats)
			}
			fmt.Fprintln(out, stats.String())
			return nil
		},
	}
	f := cmd.Flags()
	dvs = addDeletionVectorsFlag(f)
	tz = addSessionTimeZoneFlag(f)
	f.StringVar(&input, "input", "", "input file "+inputFiles+" or - for standard input")
	f.StringVar(&inputFmt, "input-format", "", inputFormats+" (default: from the extension)")
	f.StringSliceVar(&pks, "pk", nil, "primary key columns (comma-separated)")
	f.StringSliceVar(&partitionBy, "partition-by", nil, "partition columns (for a new table; must match an existing one)")
	f.StringVar(&deleteCol, "delete-column", "", "boolean column whose true rows delete their key")
	f.StringVar(&appID, "app-id", "", "application id for idempotent redelivery (with --app-version)")
	f.Int64Var(&appVersion, "app-version", 0, "batch version for --app-id; a version already applied is skipped")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.StringVar(&pruneStrategy, "prune-strategy", "", "probe (default) or none")
	f.BoolVar(&asJSON, "json", false, "print the stats as JSON")
	return cmd
}

func withoutField(sc *arrow.Schema, name string) *arrow.Schema {
	var fields []arrow.Field
	for _, f := range sc.Fields() {
		if f.Name != name {
			fields = append(fields, f)
		}
	}
	return arrow.NewSchema(fields, nil)
}
