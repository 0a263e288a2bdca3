package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
)

func newInspectCmd() *cobra.Command {
	var version int64
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect TABLE",
		Short: "Show a table's version, protocol, schema, partitioning, properties and size",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var opts []deltalite.Option
			if cmd.Flags().Changed("version") {
				opts = append(opts, deltalite.WithVersion(version))
			}
			t, err := openTable(cmd, args[0], opts...)
			if err != nil {
				return err
			}
			s := t.Summary()
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(s)
			}
			fmt.Fprintf(out, "table:      %s\n", t.URI())
			fmt.Fprintf(out, "version:    %d\n", s.Version)
			fmt.Fprintf(out, "protocol:   %s\n", s.Protocol)
			fmt.Fprintf(out, "partitions: %s\n", orNone(strings.Join(s.PartitionColumns, ", ")))
			fmt.Fprintf(out, "files:      %d\n", s.NumFiles)
			fmt.Fprintf(out, "bytes:      %d\n", s.SizeBytes)
			if s.NumRows != nil {
				fmt.Fprintf(out, "rows:       %d\n", *s.NumRows)
			} else {
				fmt.Fprintf(out, "rows:       unknown (some files have no statistics)\n")
			}
			fmt.Fprintln(out, "schema:")
			for _, f := range t.DeltaSchema().Fields {
				null := ""
				if !f.Nullable {
					null = " not null"
				}
				fmt.Fprintf(out, "  %s: %s%s\n", f.Name, f.Type, null)
			}
			keys := make([]string, 0, len(s.Properties))
			for k := range s.Properties {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			fmt.Fprintln(out, "properties:")
			for _, k := range keys {
				fmt.Fprintf(out, "  %s = %s\n", k, s.Properties[k])
			}
			return nil
		},
	}
	cmd.Flags().Int64Var(&version, "version", 0, "inspect this version")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
