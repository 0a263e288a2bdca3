//go:build duckdb_arrow

package duckdbio

import (
	"context"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

// An asset partitioned by day is written from relations, one partition a
// run, and loaded back as a relation of one partition: lazily, with only
// that partition's files read, and joinable with another input.
func TestTypeHandlerPartitionedAsset(t *testing.T) {
	ctx := context.Background()
	stats := &Stats{}
	// Storage options a local table refuses: the loads must read on the
	// store the IO handler opened, not with the resource's options.
	res := &Resource{Stats: stats, StorageOptions: map[string]string{"aws_region": "eu-west-1"}}
	Register(res)
	s := testSession(t, res)
	ctx = WithSession(ctx, s)
	h, err := iohandler.New(iohandler.Config{TableURI: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	def := partitions.Static("d0", "d1")
	md := map[string]string{iohandler.KeyPartitionExpr: "day"}
	for _, day := range []string{"d0", "d1"} {
		rel := s.SQL("SELECT i AS id, '" + day + "' AS day, i * 2 AS v FROM range(10) t(i)")
		out, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "events", Metadata: md, Partitions: def, PartitionKeys: []string{day}}, rel)
		if err != nil {
			t.Fatal(err)
		}
		if out[iohandler.OutNumRows] != int64(10) {
			t.Fatalf("%s: metadata %v, want 10 rows written", day, out)
		}
	}
	v, err := h.Load(ctx, iohandler.InputContext{Asset: "events", Metadata: md, Partitions: def, PartitionKeys: []string{"d1"}}, relationType)
	if err != nil {
		t.Fatal(err)
	}
	rel := v.(*Relation)
	if !strings.Contains(rel.SQL(), "filter =>") || len(stats.Scans()) != 0 {
		t.Fatalf("load: %q with %d scans; want a lazy, filtered relation", rel.SQL(), len(stats.Scans()))
	}
	if err := rel.View(ctx, "events_d1"); err != nil {
		t.Fatal(err)
	}
	got := rows(t, s.Conn(), "SELECT day, count(*), sum(v) FROM events_d1 JOIN range(5) r(id) ON events_d1.id = r.id GROUP BY day")
	if strings.Join(got, ",") != "d1|5|20" {
		t.Fatalf("join = %v, want d1|5|20", got)
	}
	if sc := stats.Scans(); len(sc) != 1 || sc[0].FilesRead != 1 || sc[0].FilesSkipped != 1 {
		t.Fatalf("scans = %+v, want one reading 1 file of 2", sc)
	}
}
