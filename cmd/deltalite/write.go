package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/schema"
)

func newCreateCmd() *cobra.Command {
	var schemaFile, like string
	var partitionBy, clusterBy, props []string
	cmd := &cobra.Command{
		Use:   "create TABLE (--schema FILE.json | --like FILE)",
		Short: "Create an empty table",
		Long: `Create an empty table from a Delta schema (the JSON of a metaData schemaString) or
from the schema of a data file (.parquet, .csv, .ndjson, .arrow). --cluster-by makes a
clustered table (liquid clustering, as Spark's CREATE TABLE ... CLUSTER BY): optimize then
clusters its files by those columns.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if (schemaFile == "") == (like == "") {
				return fmt.Errorf("give exactly one of --schema FILE.json and --like FILE")
			}
			var sc *schema.Struct
			if schemaFile != "" {
				data, err := os.ReadFile(schemaFile)
				if err != nil {
					return err
				}
				if sc, err = schema.Parse(string(data)); err != nil {
					return fmt.Errorf("%s: %w", schemaFile, err)
				}
			} else {
				format, err := inputFormat(like, "", "")
				if err != nil {
					return err
				}
				in, err := openInput(cmd.Context(), like, format, nil)
				if err != nil {
					return err
				}
				in.Close()
				if in.Schema().NumFields() == 0 {
					return fmt.Errorf("%s has no columns to take a schema from", like)
				}
				if sc, err = schema.FromArrow(in.Schema()); err != nil {
					return fmt.Errorf("%s: %w", like, err)
				}
			}
			properties, err := keyValues("--property", props)
			if err != nil {
				return err
			}
			so, err := storageOptions(cmd)
			if err != nil {
				return err
			}
			t, err := deltalite.Create(cmd.Context(), args[0], sc, deltalite.CreateOptions{
				PartitionBy: partitionBy, ClusterBy: clusterBy, Properties: properties, StorageOptions: so,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "created %s at version %d (%s)\n", t.URI(), t.Version(), t.Protocol())
			return nil
		},
	}
	cmd.Flags().StringVar(&schemaFile, "schema", "", "Delta schema JSON file")
	cmd.Flags().StringVar(&like, "like", "", "take the schema of this data file")
	cmd.Flags().StringSliceVar(&partitionBy, "partition-by", nil, "partition columns (comma-separated)")
	cmd.Flags().StringSliceVar(&clusterBy, "cluster-by", nil, "clustering columns (comma-separated, at most 4, a nested field as s.a; not with --partition-by)")
	cmd.Flags().StringArrayVar(&props, "property", nil, "table property KEY=VALUE (repeatable)")
	return cmd
}

func newWriteCmd() *cobra.Command {
	var (
		input, inputFmt, mode, replaceWhere, schemaMode, compression string
		partitionBy, clusterBy, props, meta                          []string
		asJSON                                                       bool
		tz                                                           *zoneFlag
	)
	cmd := &cobra.Command{
		Use:   "write TABLE --input FILE",
		Short: "Write rows to a table, creating it if needed",
		Long: `Write the input's rows to the table in one commit (appending by default), creating
the table from the input's schema when it does not exist.
` + inputHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if input == "" {
				return fmt.Errorf("--input FILE is required (- for standard input)")
			}
			format, err := inputFormat(input, inputFmt, "--input-format")
			if err != nil {
				return err
			}
			properties, err := keyValues("--property", props)
			if err != nil {
				return err
			}
			metadata, so, err := commitFlags(cmd, meta)
			if err != nil {
				return err
			}
			zone, err := tz.value()
			if err != nil {
				return err
			}
			// Text input parses with the table's schema when the table exists.
			var like *arrow.Schema
			if t, err := deltalite.Open(cmd.Context(), args[0], deltalite.WithStorageOptions(so)); err == nil {
				like, _ = t.Schema()
			}
			in, src, err := openSource(cmd.Context(), input, format, like)
			if err != nil {
				return err
			}
			defer in.Close()
			if in.rows == 0 {
				return noRows(cmd, input, asJSON, "nothing written")
			}
			res, err := deltalite.Write(cmd.Context(), args[0], src, deltalite.WriteOptions{
				Mode:            deltalite.WriteMode(mode),
				SchemaMode:      deltalite.SchemaMode(schemaMode),
				PartitionBy:     partitionBy,
				ClusterBy:       clusterBy,
				ReplaceWhere:    replaceWhere,
				Properties:      properties,
				Compression:     compression,
				CommitMetadata:  metadata,
				StorageOptions:  so,
				SessionTimeZone: zone,
			})
			if err != nil && schemaMode == "" {
				err = withSchemaHint(err, "pass --schema-mode merge to add the new columns to the table, or --mode overwrite --schema-mode overwrite to replace its schema")
			}
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if asJSON {
				enc := json.NewEncoder(out)
				enc.SetIndent("", "  ")
				return enc.Encode(res)
			}
			switch {
			case res.Skipped:
				fmt.Fprintf(out, "table exists at version %d: nothing written\n", res.Version)
			default:
				verb := "wrote"
				if res.Created {
					verb = "created table and wrote"
				}
				fmt.Fprintf(out, "%s %d rows in %d files (%d bytes), removed %d files: version %d\n",
					verb, res.RowsWritten, res.FilesAdded, res.BytesWritten, res.FilesRemoved, res.Version)
			}
			for _, w := range res.Warnings {
				fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+oneLine(w.Error()))
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&input, "input", "", "input file "+inputFiles+" or - for standard input")
	f.StringVar(&inputFmt, "input-format", "", inputFormats+" (default: from the extension)")
	f.StringVar(&mode, "mode", "append", "append, overwrite, error, ignore or create_or_replace")
	f.StringSliceVar(&partitionBy, "partition-by", nil, "partition columns of a new table (comma-separated)")
	f.StringSliceVar(&clusterBy, "cluster-by", nil, "clustering columns of a new table (comma-separated, a nested field as s.a; liquid clustering)")
	f.StringVar(&replaceWhere, "replace-where", "", "with --mode overwrite: replace only the rows this predicate selects")
	f.StringVar(&schemaMode, "schema-mode", "", "merge (add new columns) or overwrite (replace the schema; with --mode overwrite)")
	f.StringArrayVar(&props, "property", nil, "table property KEY=VALUE for a new table (repeatable)")
	f.StringArrayVar(&meta, "metadata", nil, "commit metadata KEY=VALUE (repeatable)")
	f.StringVar(&compression, "compression", "snappy", "snappy or zstd")
	tz = addSessionTimeZoneFlag(f)
	f.BoolVar(&asJSON, "json", false, "print the result as JSON")
	return cmd
}

// noRows reports an input without rows: there is nothing to commit, so
// no commit is made (and no table created).
func noRows(cmd *cobra.Command, input string, asJSON bool, what string) error {
	if input == "-" {
		input = "standard input"
	}
	reason := input + " has no rows"
	if asJSON {
		return json.NewEncoder(cmd.OutOrStdout()).Encode(map[string]any{"skipped": true, "reason": reason})
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s: %s, the table is unchanged\n", reason, what)
	return nil
}

// withSchemaHint adds what to do to an error about input columns that do
// not fit the table's schema.
func withSchemaHint(err error, fix string) error {
	msg := err.Error()
	if !errors.Is(err, deltalite.ErrSchemaMismatch) ||
		!strings.Contains(msg, "not in the table") && !strings.Contains(msg, "cannot cast") {
		return err
	}
	return fmt.Errorf("%w: %s", err, fix)
}

func keyValues(flag string, kvs []string) (map[string]string, error) {
	out := map[string]string{}
	for i, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("%s #%d%s is not KEY=VALUE: separate the key from its value with '='", flag, i+1, leadingKey(kv))
		}
		out[strings.TrimSpace(k)] = v
	}
	return out, nil
}

var flagKey = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9_.-]*)\s*[:\s]`)

// leadingKey is " (KEY)" when kv starts with a key and a colon or a space
// in place of '=' (KEY:value), and "" otherwise: a word without one may
// be a credential pasted alone (AWS secret keys hold '/' and '+').
func leadingKey(kv string) string {
	if m := flagKey.FindStringSubmatch(kv); m != nil {
		return " (" + m[1] + ")"
	}
	return ""
}

// commitMetadata is the --metadata KEY=VALUE flags as a commit's metadata
// (nil when none is given).
func commitMetadata(meta []string) (map[string]any, error) {
	kvs, err := keyValues("--metadata", meta)
	if err != nil || len(kvs) == 0 {
		return nil, err
	}
	out := make(map[string]any, len(kvs))
	for k, v := range kvs {
		out[k] = v
	}
	return out, nil
}

// progress wraps a record stream and prints a progress line on standard
// error once a second while the write runs.
type progress struct {
	array.RecordReader
	rows  atomic.Int64
	done  chan struct{}
	start time.Time
}

// openSource opens an operation's input as openInput does, its rows
// counted on a terminal's standard error; closing the input ends the count.
func openSource(ctx context.Context, path, format string, like *arrow.Schema) (*input, array.RecordReader, error) {
	in, err := openInput(ctx, path, format, like)
	if err != nil {
		return nil, nil, err
	}
	if !cliout.IsTerminal(os.Stderr) {
		return in, in, nil
	}
	p := newProgress(in)
	closeFile := in.close
	in.close = func() error {
		p.stop()
		return closeFile()
	}
	return in, p, nil
}

func newProgress(rr array.RecordReader) *progress {
	p := &progress{RecordReader: rr, done: make(chan struct{}), start: time.Now()}
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-p.done:
				return
			case <-tick.C:
				el := time.Since(p.start).Seconds()
				n := p.rows.Load()
				fmt.Fprintf(os.Stderr, "\r%d rows read, %.0f rows/s", n, float64(n)/el)
			}
		}
	}()
	return p
}

func (p *progress) Next() bool {
	ok := p.RecordReader.Next()
	if ok {
		p.rows.Add(p.RecordReader.RecordBatch().NumRows())
	}
	return ok
}

func (p *progress) stop() {
	close(p.done)
	if time.Since(p.start) > time.Second {
		fmt.Fprintln(os.Stderr)
	}
}
