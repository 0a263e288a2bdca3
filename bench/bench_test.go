package bench

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/bench/internal/gen"
)

func longLog(b *testing.B) (string, *gen.Manifest) {
	b.Helper()
	dir := filepath.Join(b.TempDir(), "longlog")
	m, err := gen.LongLog(context.Background(), dir, gen.DefaultLongLog)
	if err != nil {
		b.Fatal(err)
	}
	return dir, m
}

// BenchmarkOpenLongLog opens the latest snapshot of the default long log
// (4 checkpoints, 999 commits after the last) and lists its files.
func BenchmarkOpenLongLog(b *testing.B) {
	dir, m := longLog(b)
	ctx := context.Background()
	for b.Loop() {
		t, err := deltalite.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if n := len(t.FileURIs()); n != m.LatestFiles {
			b.Fatalf("%d files, want %d", n, m.LatestFiles)
		}
	}
}

// BenchmarkOpenLongLogMid time-travels to the middle of the long log.
func BenchmarkOpenLongLogMid(b *testing.B) {
	dir, m := longLog(b)
	ctx := context.Background()
	for b.Loop() {
		t, err := deltalite.Open(ctx, dir, deltalite.WithVersion(m.Mid))
		if err != nil {
			b.Fatal(err)
		}
		if n := len(t.FileURIs()); n != m.MidFiles {
			b.Fatalf("%d files, want %d", n, m.MidFiles)
		}
	}
}

// BenchmarkScanWide reads a small wide table (4 files of 50k rows, 100
// columns) to Arrow; bytes/op is the data read per scan.
func BenchmarkScanWide(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "wide")
	o := gen.DefaultWide
	o.Files, o.Rows, o.RowGroup = 4, 50_000, 50_000
	m, err := gen.Wide(context.Background(), dir, o)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.SetBytes(m.Bytes)
	for b.Loop() {
		t, err := deltalite.Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		_, batches, err := t.Scan().Records(ctx)
		if err != nil {
			b.Fatal(err)
		}
		var rows int64
		for rec, err := range batches {
			if err != nil {
				b.Fatal(err)
			}
			rows += rec.NumRows()
		}
		if rows != m.Rows {
			b.Fatalf("%d rows, want %d", rows, m.Rows)
		}
	}
}
