package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
)

func newAlterCmd() *cobra.Command {
	var (
		clusterBy, setProps, unsetProps, addCols, meta []string
		addChecks, dropChecks, changeTypes             []string
		asJSON                                         bool
		tz                                             *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "alter TABLE [--add-column 'NAME TYPE'] [--set-property K=V] [--unset-property K] [--cluster-by c1,c2|none] [--drop-constraint NAME] [--add-constraint NAME=EXPR] [--change-type COL=TYPE]",
		Short: "Change a table's columns, column types, properties, clustering or CHECK constraints (ALTER TABLE)",
		Long: `Change the table as Spark's ALTER TABLE statements do, each change one metadata commit
that changes no data, with Spark's operation name, in this order:
  --add-column 'NAME TYPE'  ADD COLUMNS: a nullable column at the end (TYPE as Delta or
                            Spark SQL names it: string, int, bigint, double, decimal(10,2),
                            date, timestamp, ...); repeatable, all in one commit
  --set-property K=V        SET TBLPROPERTIES; a property that needs a table feature adds it
                            (e.g. delta.enableDeletionVectors=true); repeatable
  --unset-property K        UNSET TBLPROPERTIES; the key must be set; repeatable
  --cluster-by c1,c2|none   CLUSTER BY: the clustering columns (liquid clustering; a nested
                            field as s.a), also on an unpartitioned table not yet clustered;
                            none removes them. Files already clustered stay until
                            optimize --full.
  --drop-constraint NAME    DROP CONSTRAINT: a CHECK constraint the table has; repeatable
  --add-constraint NAME=EXPR  ADD CONSTRAINT: a CHECK constraint (SQL, e.g. amount > 0),
                            refused when a row of the table holds it false or NULL; every
                            later write is checked against it; repeatable, one commit each
  --change-type COL=TYPE    ALTER COLUMN ... TYPE (type widening): widens a column (s.x for a
                            nested field, m.key / m.value / a.element within maps and arrays)
                            to a wider type: byte -> short -> int -> bigint, float -> double,
                            byte/short/int -> double, date -> timestamp_ntz, decimal(p,s) ->
                            decimal(p+k1,s+k2) with k1 >= k2 >= 0, int -> decimal(10+k,..),
                            bigint -> decimal(20+k,..). No data file is rewritten. The table
                            must enable it: --set-property delta.enableTypeWidening=true
                            (which runs first); repeatable, one commit each
A change with nothing to do commits nothing; a refused change stops there, and the
commits before it stand.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var o deltalite.AlterOptions
			var err error
			if o.SessionTimeZone, err = tz.value(); err != nil {
				return err
			}
			if cmd.Flags().Changed("cluster-by") {
				if len(clusterBy) == 1 && strings.EqualFold(strings.TrimSpace(clusterBy[0]), "none") {
					o.ClusterByNone = true
				} else if len(clusterBy) == 0 {
					return fmt.Errorf("--cluster-by: give the clustering columns (c1,c2) or none")
				} else {
					o.ClusterBy = clusterBy
				}
			}
			for _, c := range addCols {
				f, err := columnFlag(c)
				if err != nil {
					return err
				}
				o.AddColumns = append(o.AddColumns, f)
			}
			if len(setProps) > 0 {
				props, err := keyValues("--set-property", setProps)
				if err != nil {
					return err
				}
				o.SetProperties = props
			}
			if o.UnsetProperties, err = trimmedNames("--unset-property", "key", unsetProps); err != nil {
				return err
			}
			if len(addChecks) > 0 {
				checks, err := keyValues("--add-constraint", addChecks)
				if err != nil {
					return err
				}
				o.AddConstraints = checks
			}
			if o.DropConstraints, err = trimmedNames("--drop-constraint", "name", dropChecks); err != nil {
				return err
			}
			if len(changeTypes) > 0 {
				types, err := keyValues("--change-type", changeTypes)
				if err != nil {
					return err
				}
				o.ChangeTypes = map[string]schema.Type{}
				for col, name := range types {
					typ, err := schema.ParseTypeName(name)
					if err != nil {
						return fmt.Errorf("--change-type %s=%s: %w", col, name, err)
					}
					o.ChangeTypes[col] = typ
				}
			}
			if o.AddColumns == nil && o.SetProperties == nil && o.UnsetProperties == nil && o.ClusterBy == nil && !o.ClusterByNone &&
				o.AddConstraints == nil && o.DropConstraints == nil && o.ChangeTypes == nil {
				return fmt.Errorf("nothing to change: give --add-column, --set-property, --unset-property, --cluster-by, --add-constraint, --drop-constraint or --change-type")
			}
			t, metadata, err := openToCommit(cmd, args[0], meta)
			if err != nil {
				return err
			}
			o.CommitMetadata = metadata
			done, err := t.Alter(cmd.Context(), o)
			out := cmd.OutOrStdout()
			if asJSON {
				if done == nil {
					done = []deltalite.AlterChange{}
				}
				if jerr := json.NewEncoder(out).Encode(map[string]any{"changes": done, "version": t.Version()}); jerr != nil && err == nil {
					err = jerr
				}
			} else {
				for _, c := range done {
					fmt.Fprintf(out, "%s: version %d\n", c.Operation, c.Version)
				}
				if len(done) == 0 && err == nil {
					fmt.Fprintf(out, "nothing to change: version %d\n", t.Version())
				}
			}
			return err
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&addCols, "add-column", nil, "add a nullable column 'NAME TYPE' (repeatable)")
	f.StringArrayVar(&setProps, "set-property", nil, "set table property KEY=VALUE (repeatable)")
	f.StringArrayVar(&unsetProps, "unset-property", nil, "remove table property KEY (repeatable)")
	f.StringSliceVar(&clusterBy, "cluster-by", nil, "clustering columns c1,c2 (at most 4; a nested field as s.a), or none")
	f.StringArrayVar(&addChecks, "add-constraint", nil, "add CHECK constraint NAME=EXPR (repeatable)")
	tz = addSessionTimeZoneFlag(f)
	f.StringArrayVar(&dropChecks, "drop-constraint", nil, "drop CHECK constraint NAME (repeatable)")
	f.StringArrayVar(&changeTypes, "change-type", nil, "widen column COL to TYPE, COL=TYPE (repeatable)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the commits made as JSON")
	return cmd
}

// columnFlag parses --add-column's 'NAME TYPE' into a nullable field,
// the type as the Delta schema names it (Spark SQL's int, bigint,
// tinyint and smallint too).
func columnFlag(s string) (*schema.Field, error) {
	name, typ, ok := strings.Cut(strings.TrimSpace(s), " ")
	name, typ = strings.TrimSpace(name), strings.ToLower(strings.ReplaceAll(strings.TrimSpace(typ), " ", ""))
	if !ok || name == "" || typ == "" {
		return nil, fmt.Errorf("--add-column %q: give the name and the type as one argument, e.g. --add-column 'note string'", s)
	}
	js, _ := json.Marshal(map[string]any{"type": "struct", "fields": []any{map[string]any{"name": name, "type": typ, "nullable": true, "metadata": map[string]any{}}}})
	sc, err := schema.Parse(string(js))
	if err != nil {
		return nil, fmt.Errorf("--add-column %q: %w", s, err)
	}
	return sc.Fields[0], nil
}

// trimmedNames are a repeatable flag's values trimmed, nil when none was
// given; an empty one is refused, naming the flag and what it holds.
func trimmedNames(flag, what string, vals []string) ([]string, error) {
	var out []string
	for _, v := range vals {
		if v = strings.TrimSpace(v); v == "" {
			return nil, fmt.Errorf("%s: an empty %s", flag, what)
		}
		out = append(out, v)
	}
	return out, nil
}
