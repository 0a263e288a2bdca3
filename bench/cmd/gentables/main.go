// Command gentables builds the benchmark tables: a long log with checkpoints
// (log only) and a wide multi-file Parquet table. A table that already exists
// with the same shape is kept, so repeated harness runs generate once.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/bench/internal/gen"
)

func main() {
	ll, w := gen.DefaultLongLog, gen.DefaultWide
	out := flag.String("out", "bench/out/tables", "directory that receives the tables")
	which := flag.String("tables", "longlog,wide", "which tables to build: longlog, wide or both")
	flag.IntVar(&ll.Commits, "commits", ll.Commits, "long log: commits (versions 0..commits-1)")
	flag.IntVar(&ll.Files, "files", ll.Files, "long log: add actions in total")
	flag.IntVar(&ll.Partitions, "partitions", ll.Partitions, "long log: partition values")
	flag.IntVar(&ll.CheckpointEvery, "checkpoint-every", ll.CheckpointEvery, "long log: checkpoint interval")
	flag.IntVar(&ll.CompactEvery, "compact-every", ll.CompactEvery, "long log: every n-th commit is a compaction")
	flag.IntVar(&w.Files, "wide-files", w.Files, "wide: data files")
	flag.IntVar(&w.Rows, "wide-rows", w.Rows, "wide: rows per file")
	flag.IntVar(&w.Columns, "wide-columns", w.Columns, "wide: columns")
	flag.IntVar(&w.RowGroup, "wide-rowgroup", w.RowGroup, "wide: rows per row group")
	flag.IntVar(&w.Workers, "workers", w.Workers, "wide: files written in parallel")
	flag.Parse()

	ctx := context.Background()
	for _, t := range []string{"longlog", "wide"} {
		if !slices.Contains(strings.Split(*which, ","), t) {
			continue
		}
		dir := filepath.Join(*out, t)
		build := func() (*gen.Manifest, error) {
			if t == "longlog" {
				return gen.LongLog(ctx, dir, ll)
			}
			return gen.Wide(ctx, dir, w)
		}
		var want map[string]any
		if t == "longlog" {
			want = map[string]any{"commits": ll.Commits, "files": ll.Files, "partitions": ll.Partitions,
				"checkpointEvery": ll.CheckpointEvery, "compactEvery": ll.CompactEvery,
				"compactFiles": ll.CompactFiles, "seed": ll.Seed}
		} else {
			want = map[string]any{"files": w.Files, "rows": w.Rows, "columns": w.Columns, "rowGroup": w.RowGroup, "seed": w.Seed}
		}
		if m, err := gen.ReadManifest(dir); err == nil && sameOptions(m.Options, want) {
			fmt.Fprintf(os.Stderr, "gentables: %s exists with this shape, kept\n", dir)
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			fail(err)
		}
		start := time.Now()
		m, err := build()
		if err != nil {
			fail(err)
		}
		fmt.Fprintf(os.Stderr, "gentables: %s built in %s: latest v%d, %d live files, %d adds, %d removes, %d bytes\n",
			dir, time.Since(start).Round(time.Millisecond), m.Latest, m.LatestFiles, m.Adds, m.Removes, m.Bytes)
	}
}

// sameOptions compares a manifest's options (decoded from JSON) with the
// wanted ones by round-tripping the latter through JSON too.
func sameOptions(have, want map[string]any) bool {
	b, err := json.Marshal(want)
	if err != nil {
		return false
	}
	var w map[string]any
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	return reflect.DeepEqual(have, w)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gentables:", err)
	os.Exit(1)
}
