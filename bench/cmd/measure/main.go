// Command measure builds a wide partitioned table shaped like the upsert
// benchmark's (a UUID-like string key, a ~4.5 KB payload per row, files of
// 25,000 rows) and times one upsert into it in a fresh process, reporting
// wall time, peak RSS (getrusage) and bytes rewritten.
//
//	go run ./bench/cmd/measure gen -dir /tmp/t1m -rows 1000000
//	go run ./bench/cmd/measure upsert -dir /tmp/t1m -rows 1000000
//
// It is a measuring tool for development, not part of the product.
package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"syscall"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/upsert"
)

const partitionColumn = "_ph_partition_key"

var schemaString = `{"type":"struct","fields":[` +
	`{"name":"id","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"tenant","type":"long","nullable":true,"metadata":{}},` +
	`{"name":"counter","type":"integer","nullable":true,"metadata":{}},` +
	`{"name":"created_at","type":"timestamp","nullable":true,"metadata":{}},` +
	`{"name":"updated_at","type":"timestamp","nullable":true,"metadata":{}},` +
	`{"name":"amount","type":"decimal(38,10)","nullable":true,"metadata":{}},` +
	`{"name":"payload","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"` + partitionColumn + `","type":"string","nullable":true,"metadata":{}}]}`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: measure gen|upsert -dir DIR -rows N [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	dir := fs.String("dir", "", "table directory")
	rows := fs.Int("rows", 62_500, "rows per partition")
	parts := fs.Int("partitions", 2, "partitions")
	payload := fs.Int("payload", 4500, "payload bytes per row")
	chunk := fs.Int("file-rows", 25_000, "rows per data file")
	random := fs.Bool("random-keys", true, "random (hashed) keys instead of monotonic ones")
	updates := fs.Int("updates", 9_000, "updated rows per partition")
	inserts := fs.Int("inserts", 1_000, "inserted rows per partition")
	buffered := fs.Int64("max-buffered-bytes", 0, "MaxBufferedBytes (0: default)")
	strategy := fs.String("prune", "", "prune strategy")
	heap := fs.String("heap-profile", "", "write heap profiles PATH.N every second")
	traceOut := fs.String("trace", "", "write an execution trace here")
	_ = fs.Parse(os.Args[2:])
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "-dir is required")
		os.Exit(2)
	}
	if *heap != "" {
		go func() {
			for i := 0; ; i++ {
				time.Sleep(time.Second)
				f, err := os.Create(fmt.Sprintf("%s.%d", *heap, i))
				if err == nil {
					_ = pprof.WriteHeapProfile(f)
					f.Close()
				}
			}
		}()
	}
	if *traceOut != "" {
		f, err := os.Create(*traceOut)
		if err == nil && trace.Start(f) == nil {
			defer func() { trace.Stop(); f.Close() }()
		}
	}
	g := gen{rows: *rows, parts: *parts, payload: *payload, chunk: *chunk, random: *random}
	var err error
	switch os.Args[1] {
	case "gen":
		err = g.build(*dir)
	case "upsert":
		err = g.upsert(*dir, *updates, *inserts, upsert.Options{PrimaryKeys: []string{"id"}, PartitionBy: []string{partitionColumn},
			MaxBufferedBytes: *buffered, PruneStrategy: *strategy})
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		trace.Stop()
		os.Exit(1)
	}
}

type gen struct {
	rows, parts, payload, chunk int
	random                      bool
	pool                        []byte
}

func (g *gen) key(i int) string {
	if g.random {
		h := uint64(i)*0x9e3779b97f4a7c15 ^ 0x5851f42d4c957f2d
		h ^= h >> 29
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 32
		return fmt.Sprintf("%08x-0000-4000-8000-%012x", uint32(h>>32), h&(1<<48-1)^uint64(i))
	}
	return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
}

func (g *gen) payloadOf(i, version int) string {
	if g.pool == nil {
		r := rand.New(rand.NewPCG(1234, 0))
		const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		g.pool = make([]byte, 1<<20)
		for i := range g.pool {
			g.pool[i] = letters[r.IntN(len(letters))]
		}
	}
	mult := 7919
	if version > 1 {
		mult = 104729
	}
	off := (i * mult) % (len(g.pool) - g.payload - 1)
	return fmt.Sprintf(`{"row":%d,"v":%d,"d":"%s"}`, i, version, g.pool[off:off+g.payload])
}

// batch builds rows [lo, hi) of a partition at a version.
func (g *gen) batch(as *arrow.Schema, part string, ids []int, version int) arrow.RecordBatch {
	mem := memory.DefaultAllocator
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	// Exact capacities, as a caller's Arrow table would have.
	b.Reserve(len(ids))
	b.Field(0).(*array.StringBuilder).ReserveData(len(ids) * 36)
	b.Field(6).(*array.StringBuilder).ReserveData(len(ids) * (g.payload + 40))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMicro()
	for _, i := range ids {
		b.Field(0).(*array.StringBuilder).Append(g.key(i))
		b.Field(1).(*array.Int64Builder).Append(int64(i%50 + 1))
		b.Field(2).(*array.Int32Builder).Append(int32(version))
		b.Field(3).(*array.TimestampBuilder).Append(arrow.Timestamp(base))
		b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(base + int64(version)*1e6))
		n, _ := decimal128.FromString(fmt.Sprintf("%d.%09d", i%1_000_000, (i*37)%1_000_000_000), 38, 10)
		b.Field(5).(*array.Decimal128Builder).Append(n)
		b.Field(6).(*array.StringBuilder).Append(g.payloadOf(i, version))
		b.Field(7).(*array.StringBuilder).Append(part)
	}
	return b.NewRecordBatch()
}

func partName(p int) string { return fmt.Sprintf("2026-01-%02d", p+1) }

func (g *gen) build(dir string) error {
	ctx := context.Background()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		return err
	}
	sc, err := schema.Parse(schemaString)
	if err != nil {
		return err
	}
	p := protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	md := &protocol.Metadata{ID: "6b0f5a8e-0000-4000-8000-000000000001", Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString: schemaString, PartitionColumns: []string{partitionColumn}, Configuration: map[string]string{}}
	res, err := txn.Create(ctx, st, &p, md, nil, txn.Operation{Name: txn.OpCreateTable}, txn.Options{})
	if err != nil {
		return err
	}
	snap := res.Snapshot
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	start := time.Now()
	var adds []*protocol.Add
	for part := range g.parts {
		for lo := 0; lo < g.rows; lo += g.chunk {
			w, err := datafile.NewWriter(ctx, st, datafile.Options{Schema: sc, PartitionColumns: []string{partitionColumn},
				Properties: protocol.Properties{}, TargetFileSize: 1 << 40, DataChange: true})
			if err != nil {
				return err
			}
			for s := lo; s < min(lo+g.chunk, g.rows); s += 2500 {
				ids := make([]int, 0, 2500)
				for i := s; i < min(s+2500, lo+g.chunk, g.rows); i++ {
					ids = append(ids, i)
				}
				rec := g.batch(as, partName(part), ids, 1)
				err := w.Write(rec)
				rec.Release()
				if err != nil {
					return err
				}
			}
			a, err := w.Close()
			if err != nil {
				return err
			}
			adds = append(adds, a...)
		}
		fmt.Printf("partition %s: %d rows written (%s)\n", partName(part), g.rows, time.Since(start).Round(time.Second))
	}
	t := txn.Begin(snap, txn.Operation{Name: txn.OpWrite, Parameters: map[string]any{"mode": "Append"}}, txn.Options{})
	var bytes int64
	for _, a := range adds {
		t.Add(protocol.Action{Add: a})
		bytes += a.Size
	}
	if _, err := t.Commit(ctx); err != nil {
		return err
	}
	fmt.Printf("table: %d partitions x %d rows, %d files, %.1f MiB\n", g.parts, g.rows, len(adds), float64(bytes)/(1<<20))
	return nil
}

func (g *gen) upsert(dir string, updates, inserts int, opt upsert.Options) error {
	ctx := context.Background()
	st, err := storage.NewLocal(dir)
	if err != nil {
		return err
	}
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		return err
	}
	as, _ := schema.ToArrow(snap.Schema(), schema.ArrowOptions{})
	var recs []arrow.RecordBatch
	for part := range min(g.parts, 2) {
		step := max(g.rows/max(updates, 1), 1)
		var ids []int
		for i := range updates {
			ids = append(ids, i*step)
		}
		for i := range inserts {
			ids = append(ids, 10_000_000+i)
		}
		recs = append(recs, g.batch(as, partName(part), ids, 2))
	}
	rr, err := array.NewRecordReader(as, recs)
	if err != nil {
		return err
	}
	var before int64
	for _, a := range snap.Files() {
		before += a.Size
	}
	start := time.Now()
	s, post, err := upsert.Run(ctx, snap, rr, opt)
	wall := time.Since(start)
	if err != nil {
		return err
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	var written, removed int64
	live := map[string]bool{}
	for _, a := range post.Files() {
		live[a.Path] = true
	}
	for _, a := range snap.Files() {
		if !live[a.Path] {
			removed += a.Size
		}
	}
	old := map[string]bool{}
	for _, a := range snap.Files() {
		old[a.Path] = true
	}
	for _, a := range post.Files() {
		if !old[a.Path] {
			written += a.Size
		}
	}
	fmt.Println(s)
	fmt.Println(strings.Join([]string{
		fmt.Sprintf("rows_per_partition=%d", g.rows),
		fmt.Sprintf("wall_s=%.2f", wall.Seconds()),
		fmt.Sprintf("peak_rss_mib=%.1f", float64(ru.Maxrss)/1024),
		fmt.Sprintf("table_mib=%.1f", float64(before)/(1<<20)),
		fmt.Sprintf("bytes_removed_mib=%.1f", float64(removed)/(1<<20)),
		fmt.Sprintf("bytes_written_mib=%.1f", float64(written)/(1<<20)),
	}, " "))
	return nil
}
