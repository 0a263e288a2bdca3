package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"reflect"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/asset"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

// assetFlags are what every `deltalite asset` subcommand that goes through
// an IO handler is told: the handler, the asset, its partitions and
// metadata.
type assetFlags struct {
	handler, asset, pd string
	keys, meta         []string
}

func (a *assetFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.handler, "handler", "", "the IO handler's settings: a JSON file (table_uri, mode, storage_options, ...)")
	f.StringVar(&a.asset, "asset", "", "the asset's name (its table is {table_uri}/{delta/root_name or NAME})")
	f.StringVar(&a.pd, "partitions-def", "", "the asset's partitions definition: inline JSON or a .json file")
	f.StringArrayVar(&a.keys, "partition-key", nil, "a partition key of the run (repeatable: a backfill)")
	f.StringArrayVar(&a.meta, "metadata", nil, "asset metadata KEY=VALUE, e.g. delta/mode=append (repeatable)")
	// The handler file holds the storage options, so that a run and a Go
	// program sharing the file open the tables alike.
	next := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if f := cmd.Flag("storage-option"); f != nil && f.Changed {
			return fmt.Errorf("--storage-option does not apply to asset commands: put the options in the handler file's storage_options")
		}
		if next != nil {
			return next(cmd, args)
		}
		return nil
	}
}

// assetRun is one resolved invocation: the handler and the asset's
// contexts.
type assetRun struct {
	h        *iohandler.Handler
	asset    string
	metadata map[string]string
	def      partitions.Definition
	keys     []string
}

// resolve reads the handler's file and parses the flags, before any table
// is touched.
func (a *assetFlags) resolve() (*assetRun, error) {
	if a.handler == "" {
		return nil, fmt.Errorf("--handler is required: the IO handler's settings, a JSON file")
	}
	if a.asset == "" {
		return nil, fmt.Errorf("--asset is required: the asset's name")
	}
	cfg, err := iohandler.LoadConfig(a.handler)
	if err != nil {
		return nil, fmt.Errorf("--handler: %w", err)
	}
	h, err := iohandler.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("--handler %s: %w", a.handler, err)
	}
	md, err := keyValues("--metadata", a.meta)
	if err != nil {
		return nil, err
	}
	r := &assetRun{h: h, asset: a.asset, metadata: md, keys: a.keys}
	if a.pd != "" {
		if r.def, err = partitions.ParseDefinition(a.pd); err != nil {
			return nil, fmt.Errorf("--partitions-def: %w", err)
		}
	}
	return r, nil
}

// define is the run's asset as the runtime knows it: handler, metadata,
// partitions, and opts (its actions).
func (r *assetRun) define(opts ...asset.Option) *asset.Asset {
	opts = append([]asset.Option{asset.WithHandler(r.h), asset.WithMetadata(r.metadata)}, opts...)
	if r.def != nil {
		opts = append(opts, asset.WithPartitions(r.def))
	}
	return asset.External(r.asset, opts...)
}

// stateRepository is a repository holding a over the CLI's state
// directory: what its runs materialize is recorded there, and their
// claims order them against every process sharing the directory.
func stateRepository(a *asset.Asset) (*asset.Repository, error) {
	st, err := openState()
	if err != nil {
		return nil, err
	}
	repo := asset.NewRepository(asset.WithState(st))
	if err := repo.Register(a); err != nil {
		return nil, err
	}
	return repo, nil
}

// tableSchema is the Arrow schema of the asset's table, or nil when it has
// none yet (text input then infers its types).
func (r *assetRun) tableSchema(cmd *cobra.Command) (*arrow.Schema, error) {
	uri, err := r.h.ResolveTableURI(r.asset, r.metadata)
	if err != nil {
		return nil, err
	}
	t, err := deltalite.Open(cmd.Context(), uri, deltalite.WithStorageOptions(r.h.StorageOptions()))
	if errors.Is(err, deltalite.ErrTableNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return t.Schema()
}

func newAssetWriteCmd() *cobra.Command {
	var (
		a               assetFlags
		input, inputFmt string
		readVersions    []string
	)
	cmd := &cobra.Command{
		Use:   "write --handler H.json --asset NAME [--partitions-def PD] [--partition-key K]... [--metadata KEY=VALUE]... --input FILE",
		Short: "Write an asset's value to its Delta table through an IO handler",
		Long: `Store the input's rows as the asset's value, as the Go IO handler does (mode, schema
mode, partitions, merge, table configuration from the handler and the asset's
metadata), and print the output metadata as JSON on standard output, e.g.
  {"delta/mode":"overwrite","delta/num_rows":3,"delta/table_uri":"/data/delta/users",...}
With a partition key, overwrite replaces only that partition and merge is scoped to it.
` + inputTypes + `
An input of no rows is the asset's value all the same: an overwrite empties the table
(with a partition key, the partition).
The write is a materialization as the Go runtime makes it: recorded (asset, keys, table
version, metadata) in the asset state under $` + EnvStateDir + `, which asset action delete
clears, and it waits while another process sharing that directory runs a verb on its
asset or partition (a verb waits for it likewise).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if input == "" {
				return fmt.Errorf("--input FILE is required (- for standard input)")
			}
			format, err := inputFormat(input, inputFmt, "--input-format")
			if err != nil {
				return err
			}
			r, err := a.resolve()
			if err != nil {
				return err
			}
			opts := []asset.RunOption{asset.Keys(r.keys...)}
			reads, err := keyValues("--read-version", readVersions)
			if err != nil {
				return err
			}
			for up, v := range reads {
				n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
				if err != nil || n < 0 {
					return fmt.Errorf("--read-version %s=%s: %q is not a table version (want the version asset read --consumer printed)", up, v, v)
				}
				opts = append(opts, asset.ReadUpTo(up, n))
			}
			repo, err := stateRepository(r.define())
			if err != nil {
				return err
			}
			like, err := r.tableSchema(cmd)
			if err != nil {
				return err
			}
			in, err := openInput(cmd.Context(), input, format, like)
			if err != nil {
				return err
			}
			defer in.Close()
			if in.Schema().NumFields() == 0 {
				return fmt.Errorf("%s has no columns: nothing to store as asset %q", input, r.asset)
			}
			res, err := repo.Store(cmd.Context(), r.asset, array.RecordReader(in), opts...)
			if err != nil {
				return err
			}
			enc := json.NewEncoder(cmd.OutOrStdout())
			enc.SetEscapeHTML(false)
			return enc.Encode(res.Metadata)
		},
	}
	a.add(cmd)
	cmd.Flags().StringVar(&input, "input", "", "input file "+inputFiles+" or - for standard input")
	cmd.Flags().StringVar(&inputFmt, "input-format", "", inputFormats+" (default: from the extension)")
	cmd.Flags().StringArrayVar(&readVersions, "read-version", nil, "UPSTREAM=VERSION: the value was computed from UPSTREAM's changes up to VERSION, as asset read --consumer printed it; recorded, so that the next read starts after it (repeatable)")
	return cmd
}

func newAssetReadCmd() *cobra.Command {
	var (
		a                        assetFlags
		format, output, consumer string
		full                     bool
	)
	cmd := &cobra.Command{
		Use:   "read --handler H.json --asset NAME [--partitions-def PD] [--partition-key K]... [--metadata KEY=VALUE]... [--format F] [--output FILE]",
		Short: "Read an asset's Delta table through an IO handler",
		Long: `Read the asset's rows as the Go IO handler loads them: the columns of delta/columns,
the rows of the partition keys (the predicate pushed into the scan), at delta/version
when set. Output as scan writes it: table on a terminal, else CSV, or --format
csv|ndjson|parquet|table, to standard output or --output FILE.

With --consumer C the read is incremental: the asset's changes (delta/read=changes)
since the version C's materialization last read, as recorded in the asset state
under $` + EnvStateDir + ` (C's first read, or one with --full: the table's rows as
inserts). Standard error then shows the version read, as JSON:
  {"asset":"orders","read_version":3}
Store C's value with asset write --asset C --read-version orders=3, which records it:
until then (a failed run) the next read returns the same changes.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			stdout := cmd.OutOrStdout()
			format, err := cliout.Format(format, output, cliout.IsTerminal(stdout))
			if err != nil {
				return err
			}
			r, err := a.resolve()
			if err != nil {
				return err
			}
			ic := iohandler.InputContext{Asset: r.asset, Metadata: r.metadata, Partitions: r.def, PartitionKeys: r.keys}
			var rr array.RecordReader
			version := int64(-1)
			switch {
			case consumer != "":
				if ic.LastVersion, err = lastRead(cmd, consumer, r.asset, r.keys, full); err != nil {
					return err
				}
				var v any
				if v, version, err = r.h.LoadChanges(cmd.Context(), ic, reflect.TypeFor[array.RecordReader]()); err == nil {
					rr = v.(array.RecordReader)
				}
			case full:
				return fmt.Errorf("--full applies to an incremental read: give --consumer")
			default:
				rr, err = iohandler.LoadInput[array.RecordReader](cmd.Context(), r.h, ic)
			}
			if err != nil {
				return err
			}
			defer rr.Release()
			dest, err := cliout.OpenDestination(output, stdout)
			if err != nil {
				return err
			}
			more, err := writeScan(dest, format, rr.Schema(), batchesOf(rr), true)
			if ferr := dest.Finish(err == nil); err == nil {
				err = ferr
			}
			if err == nil && more {
				fmt.Fprintf(cmd.ErrOrStderr(), "deltalite: showing the first %d rows; use --format csv or --output FILE for all of them\n", terminalRows)
			}
			if err == nil && consumer != "" {
				err = json.NewEncoder(cmd.ErrOrStderr()).Encode(struct {
					Asset       string `json:"asset"`
					ReadVersion int64  `json:"read_version"`
				}{r.asset, version})
			}
			return err
		},
	}
	a.add(cmd)
	cmd.Flags().StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: from the --output extension, else table on a terminal, else csv)")
	cmd.Flags().StringVarP(&output, "output", "o", "", "write to FILE (created only when the read succeeds) instead of standard output")
	cmd.Flags().StringVar(&consumer, "consumer", "", "read the changes since the version this asset's materialization last read (an incremental read)")
	cmd.Flags().BoolVar(&full, "full", false, "with --consumer: read the table's rows as inserts, whatever was read last (a full materialization)")
	return cmd
}

// lastRead is the version of upstream consumer last read for keys, as the
// asset state records it; nil with full or when it never read it.
func lastRead(cmd *cobra.Command, consumer, upstream string, keys []string, full bool) (*int64, error) {
	if full {
		return nil, nil
	}
	st, err := openState()
	if err != nil {
		return nil, err
	}
	return state.LastRead(cmd.Context(), st, consumer, upstream, keys)
}

// openState is the asset state of the CLI's state directory.
func openState() (*state.File, error) {
	dir, err := stateDir()
	if err != nil {
		return nil, err
	}
	return state.OpenFile(dir)
}

// batchesOf is rr's batches as a sequence, its error last.
func batchesOf(rr array.RecordReader) iter.Seq2[arrow.RecordBatch, error] {
	return func(yield func(arrow.RecordBatch, error) bool) {
		for rr.Next() {
			if !yield(rr.RecordBatch(), nil) {
				return
			}
		}
		if err := rr.Err(); err != nil {
			yield(nil, err)
		}
	}
}
