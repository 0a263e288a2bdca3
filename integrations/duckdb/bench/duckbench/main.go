// Command duckbench times one query over a Delta table in DuckDB, read by
// delta_scan (deltalite plans the files, DuckDB's Parquet reader reads
// those it reads exactly), by delta_scan_arrow (delta_scan with every file
// read by deltalite's scan and handed over as Arrow: Resource.ArrowOnly)
// or by DuckDB's read_parquet of the same data files, and reports the wall time and the process's peak RSS as one
// JSON line. Each mode runs in a process of its own, so the peaks are
// separate (bench/run.sh runs them, and bench/ext_bench.py the same
// queries through DuckDB's own delta extension).
//
//	duckbench -table DIR -rows N -gen [-partitioned]   write the table if missing
//	duckbench -table DIR -rows N -query agg -mode delta_scan
//	duckbench -table DIR -rows N -query part -mode read_parquet
//	duckbench -print-query stats -rows N               the query's SQL, FROM as %s
//
// Queries: agg groups the flat table by k; part (partition filter) and
// stats (a range of v, which skips files by their statistics) read the
// partitioned one.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/deltalite-go/deltalite"
	duckdbio "github.com/deltalite-go/deltalite/integrations/duckdb"
)

// query is the SQL of a query (FROM is %s, the source of the mode) and
// the filter delta_scan is given (Spark SQL), the same predicate: DuckDB's
// C API hands a table function no WHERE clause (docs/engines.md).
func query(name string, rows int64) (sql, filter string, err error) {
	switch name {
	case "agg":
		return `SELECT k, count(*) AS n, sum(v) AS sum_v, avg(x) AS avg_x, max(s) AS max_s FROM %s GROUP BY k ORDER BY k`, "", nil
	case "part":
		return `SELECT count(*) AS n, sum(v) AS sum_v, avg(x) AS avg_x, max(s) AS max_s FROM %s WHERE k IN (3, 11)`, "k IN (3, 11)", nil
	case "stats":
		// The rows of the third of the 8 appends: its files only.
		f := fmt.Sprintf("v BETWEEN %d AND %d", rows*2/8, rows*3/8-1)
		return `SELECT count(*) AS n, sum(v) AS sum_v, avg(x) AS avg_x, max(s) AS max_s FROM %s WHERE ` + f, f, nil
	}
	return "", "", fmt.Errorf("-query %q: use agg, part or stats", name)
}

func main() {
	table := flag.String("table", "", "the Delta table's directory")
	rows := flag.Int64("rows", 10_000_000, "rows of the generated table")
	gen := flag.Bool("gen", false, "write the table (rows rows in 8 appends) unless it exists")
	partitioned := flag.Bool("partitioned", false, "with -gen: partition by k, with a wide string column (about 40 bytes a row)")
	mode := flag.String("mode", "delta_scan", "delta_scan, delta_scan_arrow or read_parquet")
	qname := flag.String("query", "agg", "agg, part or stats")
	cpuprofile := flag.String("cpuprofile", "", "write a Go CPU profile of the query here")
	profile := flag.String("profile", "", "write DuckDB's JSON profile of the query here (its phases: planner, optimizers, operators)")
	printQuery := flag.String("print-query", "", "print the SQL of this query (FROM as %s) and its filter, tab-separated, and exit")
	threads := flag.Int("threads", 0, "DuckDB threads (0: DuckDB's default)")
	memoryLimit := flag.String("memory-limit", "", "DuckDB memory limit")
	flag.Parse()
	if *printQuery != "" {
		q, f, err := query(*printQuery, *rows)
		fail(err)
		fmt.Printf("%s\t%s\n", q, f)
		return
	}
	q, filter, err := query(*qname, *rows)
	fail(err)
	if *table == "" {
		fail(fmt.Errorf("-table is required"))
	}
	ctx := context.Background()
	res := &duckdbio.Resource{Threads: *threads, MemoryLimit: *memoryLimit, Stats: &duckdbio.Stats{}, ArrowOnly: *mode == "delta_scan_arrow"}
	defer res.Close()
	s, err := res.Session(ctx)
	if err != nil {
		fail(err)
	}
	defer s.Close()
	if *gen {
		fail(generate(ctx, s, *table, *rows, *partitioned))
		return
	}
	var source string
	switch *mode {
	case "delta_scan", "delta_scan_arrow":
		source = fmt.Sprintf("delta_scan('%s')", *table)
		if filter != "" {
			source = fmt.Sprintf("delta_scan('%s', filter => '%s')", *table, filter)
		}
	case "read_parquet":
		files, err := liveFiles(ctx, *table)
		if err != nil {
			fail(err)
		}
		// Partition values are in the paths (k=3/...), as DuckDB's hive
		// partitioning reads them.
		source = "read_parquet([" + strings.Join(files, ", ") + "], hive_partitioning = true)"
	default:
		fail(fmt.Errorf("-mode %q: use delta_scan, delta_scan_arrow or read_parquet", *mode))
	}
	if *profile != "" {
		fail(enableProfiling(ctx, s, *profile))
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		fail(err)
		fail(pprof.StartCPUProfile(f))
		defer pprof.StopCPUProfile()
	}
	start := time.Now()
	got := rowsOf(ctx, s, fmt.Sprintf(q, source))
	wall := time.Since(start)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	out := map[string]any{
		"mode": *mode, "query": *qname, "wall_s": wall.Seconds(), "peak_rss_mib": float64(ru.Maxrss) / 1024,
		"cpu_s":  time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds(),
		"groups": len(got), "first_group": got[0],
	}
	if scans := res.Stats.Scans(); len(scans) > 0 {
		out["files_read"], out["files_direct"], out["rows_read"] = scans[0].FilesRead, scans[0].FilesDirect, scans[0].Rows
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

// generate writes rows rows in 8 appends (8 files at least): k, 16 groups;
// v, a bigint; x, a double; s, a short string, or with partitioned a
// partition per k and s an md5 hex (32 characters that do not compress).
func generate(ctx context.Context, s *duckdbio.Session, table string, rows int64, partitioned bool) error {
	if ok, _ := deltalite.IsDeltaTable(ctx, table); ok {
		return nil
	}
	const parts = 8
	str, wo := `'row-' || (i % 1000)`, deltalite.WriteOptions{Mode: deltalite.ModeAppend}
	if partitioned {
		str, wo.PartitionBy = `md5(CAST(i AS VARCHAR))`, []string{"k"}
	}
	for p := range int64(parts) {
		from, to := rows*p/parts, rows*(p+1)/parts
		q := fmt.Sprintf(`SELECT i %% 16 AS k, i AS v, i / 7.0 AS x, %s AS s FROM range(%d, %d) t(i)`, str, from, to)
		if _, err := s.SQL(q).Write(ctx, table, wo); err != nil {
			return err
		}
	}
	return nil
}

// liveFiles are the table's data files, quoted for read_parquet.
func liveFiles(ctx context.Context, table string) ([]string, error) {
	t, err := deltalite.Open(ctx, table)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, add := range t.Snapshot().Files() {
		if add.DeletionVector != nil {
			return nil, fmt.Errorf("%s has deletion vectors: read_parquet would count deleted rows", add.Path)
		}
		files = append(files, "'"+filepath.Join(table, add.Path)+"'")
	}
	return files, nil
}

// profileSettings are the metrics of DuckDB's JSON profile that -profile
// asks for: the query's phases (binding, which runs delta_scan's plan, and
// the optimizers) beside each operator's time. bench/ext_bench.py
// --profile asks the delta extension's DuckDB for the same.
const profileSettings = `{"LATENCY": "true", "CPU_TIME": "true", "PLANNER": "true", "PLANNER_BINDING": "true",
"PHYSICAL_PLANNER": "true", "ALL_OPTIMIZERS": "true", "CUMULATIVE_OPTIMIZER_TIMING": "true", "OPERATOR_NAME": "true",
"OPERATOR_TYPE": "true", "OPERATOR_TIMING": "true", "OPERATOR_CARDINALITY": "true", "EXTRA_INFO": "true"}`

// enableProfiling has DuckDB write the JSON profile of the next queries of
// s to path.
func enableProfiling(ctx context.Context, s *duckdbio.Session, path string) error {
	for _, q := range []string{
		"PRAGMA enable_profiling = 'json'",
		"SET profiling_output = '" + strings.ReplaceAll(path, "'", "''") + "'",
		"SET custom_profiling_settings = '" + strings.ReplaceAll(profileSettings, "\n", " ") + "'",
	} {
		if _, err := s.Conn().ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func rowsOf(ctx context.Context, s *duckdbio.Session, q string) []string {
	rs, err := s.Conn().QueryContext(ctx, q)
	if err != nil {
		fail(err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out []string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			fail(err)
		}
		out = append(out, fmt.Sprint(vals...))
	}
	if err := rs.Err(); err != nil {
		fail(err)
	}
	return out
}

func fail(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "duckbench:", err)
		os.Exit(1)
	}
}
