package gen

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

// TestSmallFilesShape: the files are spread evenly over the partitions,
// each near Bytes/Files, with statistics of every row; the engine reads
// the rows the manifest counts.
func TestSmallFilesShape(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	o := SmallFilesOptions{Files: 6, Partitions: 3, Bytes: 6 * 40 << 10, Seed: 1}
	m, err := SmallFiles(ctx, dir, o)
	if err != nil {
		t.Fatal(err)
	}
	if m.LatestFiles != 6 || m.Latest != 0 || m.Rows == 0 || m.Bytes < o.Bytes/2 || m.Bytes > 2*o.Bytes {
		t.Fatalf("manifest %+v", m)
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := snapshot.Load(ctx, st)
	if err != nil {
		t.Fatal(err)
	}
	perPart := map[string]int{}
	var rows int64
	for _, a := range snap.Files() {
		perPart[a.PartitionValues["part"]]++
		if !strings.HasPrefix(a.Path, "part="+a.PartitionValues["part"]+"/") {
			t.Errorf("file %s outside its partition's folder", a.Path)
		}
		var s struct {
			NumRecords int64          `json:"numRecords"`
			MinValues  map[string]any `json:"minValues"`
		}
		if err := json.Unmarshal([]byte(a.Stats), &s); err != nil || s.NumRecords == 0 || s.MinValues["x"] == nil || s.MinValues["y"] == nil {
			t.Errorf("file %s: stats %q (%v), want numRecords and the z-order columns' minimums", a.Path, a.Stats, err)
		}
		rows += s.NumRecords
	}
	if len(perPart) != 3 || perPart["p00"] != 2 || perPart["p01"] != 2 || perPart["p02"] != 2 {
		t.Errorf("files per partition %v, want 2 in each of p00..p02", perPart)
	}
	if rows != m.Rows {
		t.Errorf("statistics count %d rows, the manifest %d", rows, m.Rows)
	}
	tbl, err := deltalite.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, batches, err := tbl.Scan().Records(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var read int64
	for rec, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		read += rec.NumRows()
	}
	if read != m.Rows {
		t.Errorf("scan reads %d rows, the manifest counts %d", read, m.Rows)
	}
	if _, err := SmallFiles(ctx, dir, o); err == nil || !strings.Contains(err.Error(), "already holds a table") {
		t.Errorf("second SmallFiles into %s: %v, want it refused", dir, err)
	}
	if _, err := SmallFiles(ctx, t.TempDir(), SmallFilesOptions{Files: 2, Partitions: 3, Bytes: 1 << 20}); err == nil {
		t.Error("more partitions than files accepted")
	}
}
