// Command deltalite-duckdb runs DuckDB SQL in which delta_scan reads Delta
// tables through deltalite (offline: no DuckDB extension is downloaded):
//
//	deltalite-duckdb [-c SQL | FILE.sql] [--format csv|ndjson|parquet|table] [--output F] [--storage-option K=V]... [--stats]
//
// e.g. deltalite-duckdb -c "SELECT day, count(*) FROM delta_scan('s3://b/t', filter => 'day >= ”2026-01-01”') GROUP BY day".
// The result of the last statement is printed; EXPLAIN ANALYZE and --stats
// also show the files each delta_scan read and skipped.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/spf13/pflag"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	duckdbio "github.com/deltalite-go/deltalite/integrations/duckdb"
	_ "github.com/deltalite-go/deltalite/storage/cloud" // s3://, az://, gs:// tables
)

const name = "deltalite-duckdb"

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	defer func() {
		// DuckDB's messages quote the SQL, which may hold a URL with
		// credentials.
		if err != nil && !errors.Is(err, pflag.ErrHelp) {
			err = errors.New(deltalite.RedactURL(err.Error()))
		}
	}()
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		command, format, output, memoryLimit string
		storage                              []string
		stats                                bool
		threads                              int
	)
	fs.StringVarP(&command, "command", "c", "", "run this SQL (instead of FILE.sql; - reads standard input)")
	fs.StringVar(&format, "format", "", "table, csv, ndjson or parquet (default: from the --output extension, else table on a terminal, else csv)")
	fs.StringVarP(&output, "output", "o", "", "write the result to F (created only when the query succeeds)")
	fs.StringArrayVar(&storage, "storage-option", nil, "K=V storage option of the tables delta_scan reads (repeat)")
	fs.BoolVar(&stats, "stats", false, "print the files each delta_scan read and skipped on standard error")
	fs.IntVar(&threads, "threads", 0, "DuckDB threads (default: DuckDB's)")
	fs.StringVar(&memoryLimit, "memory-limit", "", "DuckDB memory limit, e.g. 2GB")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s [-c SQL | FILE.sql] [--format csv|ndjson|parquet|table] [--output F] [--storage-option K=V]... [--stats]\n\n", name)
		fmt.Fprintln(stderr, "SQL reads Delta tables with delta_scan('uri' [, version => N] [, \"timestamp\" => '...'] [, filter => 'SQL']).")
		fmt.Fprintln(stderr, "and their change data feed with delta_changes('uri', from_version => N | from_timestamp => '...' [, to_version => M | to_timestamp => '...'] [, filter => 'SQL']).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	query, err := readQuery(command, fs.Args(), stdin)
	if err != nil {
		return err
	}
	opts, err := storageOptions(storage)
	if err != nil {
		return err
	}
	format, err = cliout.Format(format, output, cliout.IsTerminal(stdout))
	if err != nil {
		return err
	}

	collected := &duckdbio.Stats{}
	res := &duckdbio.Resource{Threads: threads, MemoryLimit: memoryLimit, StorageOptions: opts, Stats: collected}
	defer res.Close()
	sess, err := res.Session(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	rr, err := sess.SQL(query).Query(ctx)
	if err != nil {
		return err
	}
	defer rr.Release()

	dest, err := cliout.OpenDestination(output, stdout)
	if err != nil {
		return err
	}
	explain := isExplain(rr.Schema())
	if explain {
		err = writeExplain(dest, rr)
		if err == nil && len(collected.Scans()) > 0 {
			// EXPLAIN ANALYZE ran the scans: their files belong to the plan.
			_, err = fmt.Fprintln(dest)
			if err == nil {
				err = writeStats(dest, collected.Scans())
			}
		}
	} else {
		err = writeResult(dest, format, rr)
	}
	if ferr := dest.Finish(err == nil); err == nil {
		err = ferr
	}
	if err == nil && stats {
		err = writeStats(stderr, collected.Scans())
	}
	return err
}

// readQuery is the SQL of -c, of the file argument, or of standard input
// for "-".
func readQuery(command string, args []string, stdin io.Reader) (string, error) {
	switch {
	case len(args) > 1:
		return "", fmt.Errorf("one FILE.sql at most, got %d arguments: %s", len(args), strings.Join(args, " "))
	case command != "" && len(args) == 1:
		return "", fmt.Errorf("give -c SQL or FILE.sql, not both")
	case command != "":
		return command, nil
	case len(args) == 0:
		return "", errors.New("no SQL: give -c SQL or FILE.sql (- for standard input)")
	}
	var b []byte
	var err error
	if args[0] == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(args[0])
	}
	if err != nil {
		return "", fmt.Errorf("reading the SQL: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", fmt.Errorf("%s holds no SQL", args[0])
	}
	return string(b), nil
}

// storageOptions parses K=V flags. Values are secrets: errors name the
// flag by position and key only.
func storageOptions(kvs []string) (map[string]string, error) {
	opts := make(map[string]string, len(kvs))
	for i, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, fmt.Errorf("--storage-option number %d is not KEY=VALUE", i+1)
		}
		opts[strings.TrimSpace(k)] = v
	}
	return opts, nil
}

// isExplain tells DuckDB's EXPLAIN result (explain_key, explain_value).
func isExplain(sc *arrow.Schema) bool {
	return sc.NumFields() == 2 && sc.Field(0).Name == "explain_key" && sc.Field(1).Name == "explain_value"
}

// writeExplain prints the plans as DuckDB draws them.
func writeExplain(w io.Writer, rr array.RecordReader) error {
	for rr.Next() {
		col := rr.RecordBatch().Column(1)
		for i := range col.Len() {
			if _, err := fmt.Fprintln(w, col.ValueStr(i)); err != nil {
				return err
			}
		}
	}
	return rr.Err()
}

func writeResult(w io.Writer, format string, rr array.RecordReader) error {
	sink, err := cliout.NewSink(format, w, rr.Schema())
	if err != nil {
		return err
	}
	for rr.Next() {
		if err := sink.Write(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	return sink.Close()
}

// writeStats prints a line per delta_scan call: the files it read of the
// table's, those its filter skipped, and the rows.
func writeStats(w io.Writer, scans []duckdbio.ScanStat) error {
	for _, s := range scans {
		line := fmt.Sprintf("delta_scan %s version %d: read %d of %d files", s.URI, s.Version, s.FilesRead, s.FilesLive)
		if s.Filter != "" {
			line += fmt.Sprintf(" (%d skipped by filter %s)", s.FilesSkipped, s.Filter)
		}
		if s.FilesDirect > 0 {
			line += fmt.Sprintf(", %d of them by DuckDB's Parquet reader", s.FilesDirect)
		}
		line += fmt.Sprintf(", %d rows, columns [%s]", s.Rows, strings.Join(s.Columns, ", "))
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}
