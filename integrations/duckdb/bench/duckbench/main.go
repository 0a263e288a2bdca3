// Command duckbench times one aggregate over a Delta table in DuckDB, read
// by delta_scan (through deltalite) or by DuckDB's read_parquet of the same
// data files, and reports the wall time and the process's peak RSS as one
// JSON line. Each mode runs in a process of its own, so the peaks are
// separate (bench/run.sh runs them).
//
//	duckbench -table DIR -rows N -gen        write the table (N rows) if missing
//	duckbench -table DIR -mode delta_scan    time the aggregate
//	duckbench -table DIR -mode read_parquet
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/deltalite-go/deltalite"
	duckdbio "github.com/deltalite-go/deltalite/integrations/duckdb"
)

// aggregate is the query; FROM is replaced by the source of the mode.
const aggregate = `SELECT k, count(*) AS n, sum(v) AS sum_v, avg(x) AS avg_x, max(s) AS max_s FROM %s GROUP BY k ORDER BY k`

func main() {
	table := flag.String("table", "", "the Delta table's directory")
	rows := flag.Int64("rows", 10_000_000, "rows of the generated table")
	gen := flag.Bool("gen", false, "write the table (rows rows in 8 appends) unless it exists")
	mode := flag.String("mode", "delta_scan", "delta_scan or read_parquet")
	threads := flag.Int("threads", 0, "DuckDB threads (0: DuckDB's default)")
	memoryLimit := flag.String("memory-limit", "", "DuckDB memory limit")
	flag.Parse()
	if *table == "" {
		fail(fmt.Errorf("-table is required"))
	}
	ctx := context.Background()
	res := &duckdbio.Resource{Threads: *threads, MemoryLimit: *memoryLimit, Stats: &duckdbio.Stats{}}
	defer res.Close()
	s, err := res.Session(ctx)
	if err != nil {
		fail(err)
	}
	defer s.Close()
	if *gen {
		fail(generate(ctx, s, *table, *rows))
		return
	}
	var source string
	switch *mode {
	case "delta_scan":
		source = fmt.Sprintf("delta_scan('%s')", *table)
	case "read_parquet":
		files, err := liveFiles(ctx, *table)
		if err != nil {
			fail(err)
		}
		source = "read_parquet([" + strings.Join(files, ", ") + "])"
	default:
		fail(fmt.Errorf("-mode %q: use delta_scan or read_parquet", *mode))
	}
	start := time.Now()
	got := rowsOf(ctx, s, fmt.Sprintf(aggregate, source))
	wall := time.Since(start)
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail(err)
	}
	out := map[string]any{
		"mode": *mode, "wall_s": wall.Seconds(), "peak_rss_mib": float64(ru.Maxrss) / 1024,
		"groups": len(got), "first_group": got[0],
	}
	if scans := res.Stats.Scans(); len(scans) > 0 {
		out["files_read"], out["rows_read"] = scans[0].FilesRead, scans[0].Rows
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fail(err)
	}
}

// generate writes rows rows in 8 appends (8 files at least): k, 16 groups;
// v, a bigint; x, a double; s, a short string.
func generate(ctx context.Context, s *duckdbio.Session, table string, rows int64) error {
	if ok, _ := deltalite.IsDeltaTable(ctx, table); ok {
		return nil
	}
	const parts = 8
	for p := range int64(parts) {
		from, to := rows*p/parts, rows*(p+1)/parts
		q := fmt.Sprintf(`SELECT i %% 16 AS k, i AS v, i / 7.0 AS x, 'row-' || (i %% 1000) AS s FROM range(%d, %d) t(i)`, from, to)
		if _, err := s.SQL(q).Write(ctx, table, deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
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
