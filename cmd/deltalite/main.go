// Command deltalite reads, writes and maintains Delta Lake tables from the
// shell, with no Python and no JVM.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/limits"
	_ "github.com/deltalite-go/deltalite/storage/cloud" // s3://, az://, abfs[s]://, gs://
)

func main() {
	// The command owns its process: Go's soft memory limit follows what the
	// operations hold (limits.ManageGoMemoryLimit), unless GOMEMLIMIT is set.
	defer limits.ManageGoMemoryLimit()()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newRoot().ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, errorLine(err))
		os.Exit(1)
	}
}

// errorLine is how a failure is shown: on one line, with any URL's
// credentials redacted, as an argument cobra quotes back may hold one.
func errorLine(err error) string {
	return "deltalite: " + oneLine(errs.RedactURL(err.Error()))
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "deltalite",
		Short:         "Read, write and maintain Delta Lake tables",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// A mistyped flag names the help that lists the right ones.
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see %s --help)", err, c.CommandPath())
	})
	root.PersistentFlags().StringArray("storage-option", nil, "object store setting KEY=VALUE (repeatable; also read from the environment)")
	root.AddCommand(newScanCmd(), newChangesCmd(), newHistoryCmd(), newInspectCmd(), newCreateCmd(), newWriteCmd(), newUpsertCmd(), newMergeCmd(), newDeleteCmd(), newUpdateCmd(), newOptimizeCmd(), newAlterCmd(), newVacuumCmd(), newRestoreCmd(), newCheckpointCmd(), newCleanupMetadataCmd(), newDemoCmd(), newAssetCmd())
	return root
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// openTable opens TABLE with the global storage options and any extra
// options the command adds.
func openTable(cmd *cobra.Command, uri string, extra ...deltalite.Option) (*deltalite.Table, error) {
	so, err := storageOptions(cmd)
	if err != nil {
		return nil, err
	}
	opts := append([]deltalite.Option{deltalite.WithStorageOptions(so)}, extra...)
	return deltalite.Open(cmd.Context(), uri, opts...)
}

// openToCommit opens the table a command commits to, with the commit's
// --metadata, which is read first: a bad flag fails before any I/O.
func openToCommit(cmd *cobra.Command, uri string, meta []string) (*deltalite.Table, map[string]any, error) {
	metadata, so, err := commitFlags(cmd, meta)
	if err != nil {
		return nil, nil, err
	}
	t, err := deltalite.Open(cmd.Context(), uri, deltalite.WithStorageOptions(so))
	return t, metadata, err
}

// commitFlags are the flags of a command that commits: the commit's
// --metadata and the --storage-option settings, read in that order.
func commitFlags(cmd *cobra.Command, meta []string) (map[string]any, map[string]string, error) {
	metadata, err := commitMetadata(meta)
	if err != nil {
		return nil, nil, err
	}
	so, err := storageOptions(cmd)
	return metadata, so, err
}

func storageOptions(cmd *cobra.Command) (map[string]string, error) {
	kvs, _ := cmd.Flags().GetStringArray("storage-option")
	return keyValues("--storage-option", kvs)
}
