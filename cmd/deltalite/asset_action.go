package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite/asset"
)

// EnvStateDir names the directory of the asset state the CLI records
// (default: $XDG_STATE_HOME/deltalite, else ~/.local/state/deltalite).
const EnvStateDir = "DELTALITE_STATE_DIR"

func stateDir() (string, error) {
	if d := os.Getenv(EnvStateDir); d != "" {
		return d, nil
	}
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "deltalite"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("no directory for the asset state: set %s", EnvStateDir)
	}
	return filepath.Join(home, ".local", "state", "deltalite"), nil
}

func newAssetActionCmd() *cobra.Command {
	var (
		af     assetFlags
		whole  bool
		config string
	)
	cmd := &cobra.Command{
		Use:   "action VERB --handler H.json --asset NAME [--partitions-def PD] [--partition-key K] [--whole-asset] [--config JSON] [--metadata KEY=VALUE]...",
		Short: "Run a maintenance action (optimize, vacuum, delete) on an asset",
		Long: `Run a Delta maintenance verb on an asset's table and print, as JSON,
  {"outcome": "unchanged|materialized|unmaterialized", "metadata": {...}}
optimize (config target_size, z_order_by; with --partition-key only that partition's files),
vacuum (config retention_hours, enforce_retention_duration; never with a key),
delete (with --partition-key that partition's rows, else every row; the table and its history stay).
On a partitioned asset (--partitions-def) optimize and delete without a key need --whole-asset.
The state of materialized partitions is kept under $` + EnvStateDir + ` (default $XDG_STATE_HOME/deltalite);
delete clears it. The verbs are exclusive: one waits while another process sharing the state
directory runs a verb on what it claims. A refused action exits non-zero with the reason on
standard error.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			verb := args[0]
			r, err := af.resolve()
			if err != nil {
				return err
			}
			a := r.define(asset.Delta())
			if !slices.Contains(a.Actions(), verb) {
				return fmt.Errorf("unknown action %q: choose one of %s", verb, strings.Join(a.Actions(), ", "))
			}
			run := []asset.RunOption{asset.Keys(r.keys...)}
			if whole {
				run = append(run, asset.WholeAsset())
			}
			if config != "" {
				if !json.Valid([]byte(config)) {
					var v any
					return fmt.Errorf("--config is not JSON: %v; give a JSON object such as '{\"retention_hours\": 168}'", json.Unmarshal([]byte(config), &v))
				}
				run = append(run, asset.Config(r.asset, json.RawMessage(config)))
			}
			repo, err := stateRepository(a)
			if err != nil {
				return err
			}
			res, err := repo.RunAction(cmd.Context(), verb, []string{r.asset}, run...)
			if err != nil {
				return err
			}
			outMD := res[0].Metadata
			if outMD == nil {
				outMD = map[string]any{}
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetEscapeHTML(false)
			return enc.Encode(struct {
				Outcome  asset.Status   `json:"outcome"`
				Metadata map[string]any `json:"metadata"`
			}{res[0].Status, outMD})
		},
	}
	af.add(cmd)
	f := cmd.Flags()
	f.BoolVar(&whole, "whole-asset", false, "act on every partition of a partitioned asset (optimize, delete without a key)")
	f.StringVar(&config, "config", "", "the verb's configuration, a JSON object, e.g. '{\"retention_hours\": 168}'")
	return cmd
}
