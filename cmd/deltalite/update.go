package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
)

func newUpdateCmd() *cobra.Command {
	var (
		where       string
		sets, meta  []string
		asJSON, all bool
		dvs         *dvFlag
		tz          *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   `update TABLE --set "col = expr" ... (--where PRED | --all)`,
		Short: "Give the rows a SQL predicate selects (every row with --all) new values, in one commit",
		Long: `Set columns of the rows for which --where IS TRUE, as UPDATE t SET ... WHERE ... does.
Each --set is "column = expression" over the row's old values (x + 1, upper(name),
NULL, '2026-01-01', CASE ...); values are cast to the column's type without loss.
A partition column may be set: the row moves. Only files holding a matching row
are rewritten; an update that matches no row commits nothing. --where is required,
and an empty one is refused (so that an unset shell variable never rewrites a
table); --all updates every row instead. A NULL for a NOT NULL column fails the
update, naming the column and its null rows over every file; nothing changes.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(sets) == 0 {
				return fmt.Errorf(`at least one --set "column = expression" is required`)
			}
			set := map[string]string{}
			for i, s := range sets {
				col, val, err := splitAssignment(s)
				if err != nil {
					return fmt.Errorf("--set #%d: %w", i+1, err)
				}
				if _, dup := set[col]; dup {
					return fmt.Errorf("--set #%d: column %q is set twice", i+1, col)
				}
				set[col] = val
			}
			zone, err := tz.value()
			if err != nil {
				return err
			}
			t, metadata, err := openToCommit(cmd, args[0], meta)
			if err != nil {
				return err
			}
			stats, err := t.Update(cmd.Context(), deltalite.UpdateOptions{Set: set, Predicate: where, All: all, CommitMetadata: metadata, CopyOnWrite: dvs.copyOnWrite(),
				SessionTimeZone: zone})
			if err != nil {
				return whereError("", err) // it names the SET or the UPDATE predicate at fault
			}
			return printDML(cmd, asJSON, stats.Version, stats.Metrics(), stats.String())
		},
	}
	f := cmd.Flags()
	dvs = addDeletionVectorsFlag(f)
	tz = addSessionTimeZoneFlag(f)
	f.StringArrayVar(&sets, "set", nil, `assignment "column = expression" (repeatable)`)
	f.StringVar(&where, "where", "", "SQL predicate selecting the rows to update, e.g. \"day = '2026-01-01'\" (required unless --all)")
	f.BoolVar(&all, "all", false, "update every row (instead of --where)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.BoolVar(&asJSON, "json", false, "print the stats as JSON with Spark's metric names")
	return cmd
}

// splitAssignment splits "col = expr" at its first = outside quotes,
// backticks and parentheses.
func splitAssignment(s string) (col, val string, err error) {
	depth := 0
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"' || r == '`':
			quote = r
		case r == '(':
			depth++
		case r == ')':
			depth--
		case r == '=' && depth == 0:
			col, val = strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
			if col == "" || val == "" {
				return "", "", fmt.Errorf("%q is not \"column = expression\"", s)
			}
			return strings.Trim(col, "`"), val, nil
		}
	}
	return "", "", fmt.Errorf("%q has no = (want \"column = expression\")", s)
}
