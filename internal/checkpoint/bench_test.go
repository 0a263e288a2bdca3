package checkpoint

import (
	"context"
	"fmt"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

func BenchmarkReadSmallCheckpoint(b *testing.B) {
	st, root := table(b, "dat/with_checkpoint/delta")
	parts := checkpointParts(b, root, 2)
	b.ReportAllocs()
	for b.Loop() {
		if err := readStore(context.Background(), st, parts, func(protocol.Action) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheticActions is a table state of n files in 100 partitions, with
// stats of a five-column table, as a writer would keep it.
func syntheticActions(n int) []protocol.Action {
	sch := `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}},{"name":"price","type":"double","nullable":true,"metadata":{}},{"name":"at","type":"timestamp","nullable":true,"metadata":{}},{"name":"day","type":"date","nullable":true,"metadata":{}}]}`
	created := int64(1700000000000)
	out := []protocol.Action{
		{Protocol: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{Metadata: &protocol.Metadata{ID: "bench", Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
			SchemaString: sch, PartitionColumns: []string{"day"}, Configuration: map[string]string{}, CreatedTime: &created}},
		{Txn: &protocol.Txn{AppID: "app", Version: 42}},
	}
	for i := range n {
		day := fmt.Sprintf("2024-01-%02d", i%28+1)
		stats := fmt.Sprintf(`{"numRecords":%d,"minValues":{"id":%d,"name":"name-%07d","price":%d.25,"at":"2024-01-01T00:00:%02d.000Z"},"maxValues":{"id":%d,"name":"name-%07d","price":%d.75,"at":"2024-01-01T23:59:%02d.000Z"},"nullCount":{"id":0,"name":%d,"price":0,"at":0},"tightBounds":true}`,
			1000+i%50, i*1000, i, i%1000, i%60, i*1000+999, i+999, i%1000+5, i%60, i%3)
		out = append(out, protocol.Action{Add: &protocol.Add{
			Path:             fmt.Sprintf("day=%s/part-%05d-8b2c3e0a-1f5d-4c52-9c3a-%012d.c000.snappy.parquet", day, i%100, i),
			PartitionValues:  map[string]string{"day": day},
			Size:             int64(100000 + i),
			ModificationTime: 1700000000000 + int64(i),
			Stats:            stats,
		}})
	}
	return out
}

// BenchmarkReadLargeCheckpoint reads a 50,000-file checkpoint (JSON stats)
// from local disk.
func BenchmarkReadLargeCheckpoint(b *testing.B) {
	for _, mode := range []string{"json", "struct"} {
		b.Run(mode, func(b *testing.B) {
			dir := b.TempDir()
			st, _ := storage.NewLocal(dir)
			actions := syntheticActions(50000)
			opt, _ := OptionsFor(actions[1].Metadata)
			opt.WriteStatsAsJSON = mode == "json"
			opt.WriteStatsAsStruct = mode == "struct"
			lc, err := writeStore(context.Background(), st, 100, actions, opt)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(lc.SizeInBytes), "file-bytes")
			parts := []storage.ObjectInfo{{Key: protocol.CheckpointKey(100)}}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				adds := 0
				err := readStore(context.Background(), st, parts, func(a protocol.Action) error {
					if a.Add != nil {
						adds++
					}
					return nil
				})
				if err != nil || adds != 50000 {
					b.Fatal(adds, err)
				}
			}
		})
	}
}

// BenchmarkWriteLargeCheckpoint writes a 50,000-file checkpoint.
func BenchmarkWriteLargeCheckpoint(b *testing.B) {
	actions := syntheticActions(50000)
	opt, _ := OptionsFor(actions[1].Metadata)
	b.ReportAllocs()
	for b.Loop() {
		st := storage.NewMemory()
		if _, err := writeStore(context.Background(), st, 100, actions, opt); err != nil {
			b.Fatal(err)
		}
	}
}
