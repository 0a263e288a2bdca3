package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
)

func newHistoryCmd() *cobra.Command {
	var limit int
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "history TABLE",
		Short: "List a table's commits, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := openTable(cmd, args[0])
			if err != nil {
				return err
			}
			commits, err := t.History(cmd.Context(), limit)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				rows := make([]map[string]any, len(commits))
				for i, c := range commits {
					row := map[string]any{}
					if c.Info != nil {
						for k, v := range c.Info.Raw {
							row[k] = v
						}
					}
					row["version"] = c.Version
					row["timestamp"] = c.Timestamp.UnixMilli()
					rows[i] = row
				}
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(rows)
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tTIMESTAMP\tOPERATION\tPARAMETERS")
			for _, c := range commits {
				op, params := "", ""
				if c.Info != nil {
					op = c.Info.Operation
					if len(c.Info.OperationParameters) > 0 {
						b, _ := json.Marshal(c.Info.OperationParameters)
						params = string(b)
					}
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", c.Version, c.Timestamp.UTC().Format(time.RFC3339Nano), op, params)
			}
			return tw.Flush()
		},
	}
	cmd.Flags().IntVar(&limit, "limit", 0, "show at most N commits (0: all)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}
