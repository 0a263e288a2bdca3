package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
)

// assetCommands are the subcommands of `deltalite asset`, by name. A
// subcommand is added by adding its constructor here.
var assetCommands = map[string]func() *cobra.Command{
	"predicate": newAssetPredicateCmd,
	"write":     newAssetWriteCmd,
	"read":      newAssetReadCmd,
	"action":    newAssetActionCmd,
}

func newAssetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "asset",
		Short: "Store orchestrator assets in Delta tables (for orchestrators that are not Go)",
		// Without a known subcommand: an error (its argument may be a URL
		// holding a credential, so it is not quoted back).
		RunE: func(cmd *cobra.Command, _ []string) error {
			return fmt.Errorf("deltalite asset needs a subcommand: %s (see deltalite asset --help)", strings.Join(slices.Sorted(maps.Keys(assetCommands)), ", "))
		},
	}
	for _, name := range slices.Sorted(maps.Keys(assetCommands)) {
		cmd.AddCommand(assetCommands[name]())
	}
	return cmd
}
