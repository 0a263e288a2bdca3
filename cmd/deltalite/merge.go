package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
)

func newMergeCmd() *cobra.Command {
	var (
		source, sourceFmt, specPath                                       string
		mergeType, predicate, sourceAlias, targetAlias, schemaMode, appID string
		meta                                                              []string
		appVersion                                                        int64
		asJSON                                                            bool
		dvs                                                               *dvFlag
		tz                                                                *zoneFlag
	)
	shorthand := []string{"merge-type", "predicate", "source-alias", "target-alias", "schema-mode"}
	cmd := &cobra.Command{
		Use:   "merge TABLE --source FILE (--spec SPEC.json | --merge-type TYPE --predicate PRED)",
		Short: "MERGE INTO the table from a source file, in one commit, with bounded memory",
		Long: `Merge the source's rows into the table as SQL's MERGE INTO t USING s ON PRED does.
The spec file is JSON:

  {"merge_type": "upsert|deduplicate_insert|update_only|replace_delete_unmatched|custom",
   "predicate": "t.id = s.id", "source_alias": "s", "target_alias": "t",
   "schema_mode": "merge", "error_on_type_mismatch": true,
   "operations": {"when_matched_update": [{"predicate": "...", "updates": {"col": "expr"}}],
                  "when_matched_update_all": [{"predicate": "...", "except_cols": ["c"]}],
                  "when_matched_delete": [{"predicate": "..."}],
                  "when_not_matched_insert": [{"predicate": "...", "updates": {"col": "expr"}}],
                  "when_not_matched_insert_all": [{"predicate": "...", "except_cols": []}],
                  "when_not_matched_by_source_delete": [{"predicate": "..."}],
                  "when_not_matched_by_source_update": [{"predicate": "...", "updates": {}}]}}

The operations run in this fixed order, whatever the order of the keys: matched
update, update_all, delete; not matched insert, insert_all; by source delete,
update. A row takes the first clause of its kind whose condition
holds, so a row both by-source conditions hold for is deleted. For another order give
"clauses": [{"when": "matched|not_matched|not_matched_by_source", "action":
"update|update_all|delete|insert|insert_all", "predicate": ..., "updates": ...,
"except_cols": ...}] instead of "operations". Every clause predicate is optional.
A key given twice in one object is refused, naming its path (JSON would keep the
last one silently). Without a spec, --merge-type and --predicate give a preset merge.
` + inputHelp + `
Here the input is the --source file (--source-format overrides its extension). An
empty source still runs the clauses: a NOT MATCHED BY SOURCE clause acts on every row.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if source == "" {
				return fmt.Errorf("--source FILE is required")
			}
			if (appID == "") != !cmd.Flags().Changed("app-version") {
				return fmt.Errorf("--app-id and --app-version go together")
			}
			var opts deltalite.MergeOptions
			if specPath != "" {
				for _, f := range shorthand {
					if cmd.Flags().Changed(f) {
						return fmt.Errorf("--%s cannot be combined with --spec: put it in the spec", f)
					}
				}
				b, err := os.ReadFile(specPath)
				if err != nil {
					return err
				}
				if opts, err = merge.ParseSpec(b); err != nil {
					return fmt.Errorf("%s: %w", specPath, err)
				}
			} else {
				if mergeType == "" || predicate == "" {
					return fmt.Errorf("give --spec SPEC.json, or --merge-type and --predicate")
				}
				if mergeType == merge.TypeCustom {
					return fmt.Errorf("--merge-type custom needs its clauses in a --spec file")
				}
				opts = deltalite.MergeOptions{MergeType: mergeType, Predicate: predicate, SourceAlias: sourceAlias,
					TargetAlias: targetAlias, SchemaMode: schemaMode}
			}
			metadata, err := commitMetadata(meta)
			if err != nil {
				return err
			}
			opts.CommitMetadata, opts.AppID, opts.AppVersion = metadata, appID, appVersion
			opts.CopyOnWrite = dvs.copyOnWrite()
			if opts.SessionTimeZone, err = tz.value(); err != nil {
				return err
			}
			format, err := inputFormat(source, sourceFmt, "--source-format")
			if err != nil {
				return err
			}
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			like, _ := t.Schema()
			in, src, err := openSource(cmd.Context(), source, format, like)
			if err != nil {
				return err
			}
			defer in.Close()
			stats, err := t.Merge(cmd.Context(), src, opts)
			if err != nil {
				return err
			}
			return printDML(cmd, asJSON, stats.Version, stats.Metrics(), stats.String())
		},
	}
	f := cmd.Flags()
	dvs = addDeletionVectorsFlag(f)
	tz = addSessionTimeZoneFlag(f)
	f.StringVar(&source, "source", "", "source file "+inputFiles+" or - for standard input")
	f.StringVar(&sourceFmt, "source-format", "", inputFormats+" (default: from the extension)")
	f.StringVar(&specPath, "spec", "", "JSON merge spec (see above)")
	f.StringVar(&mergeType, "merge-type", "", "upsert, deduplicate_insert, update_only or replace_delete_unmatched")
	f.StringVar(&predicate, "predicate", "", "the ON predicate, e.g. \"t.id = s.id\"")
	f.StringVar(&sourceAlias, "source-alias", "", "the source's alias in predicates (default s)")
	f.StringVar(&targetAlias, "target-alias", "", "the table's alias in predicates (default t)")
	f.StringVar(&schemaMode, "schema-mode", "", "merge: add the source's extra columns for UPDATE SET * / INSERT *")
	f.StringVar(&appID, "app-id", "", "application id for idempotent redelivery (with --app-version)")
	f.Int64Var(&appVersion, "app-version", 0, "batch version for --app-id; a version already applied is skipped")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the stats as JSON with Spark's metric names")
	return cmd
}
