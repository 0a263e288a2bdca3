package datafile

import (
	"context"
	"io"
	"sort"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
)

// The shared rig builds the tests' schemas and batches.
var (
	fields     = jsonrows.Fields
	mustSchema = jsonrows.Schema
	batch      = jsonrows.Batch
)

// addsSource is a scan.Source over the adds of one write, with no log.
type addsSource struct {
	st    storage.Store
	sc    *schema.Struct
	parts []string
	mode  schema.Mode
	files []*protocol.Add
}

func (s *addsSource) Store() storage.Store       { return s.st }
func (s *addsSource) Schema() *schema.Struct     { return s.sc }
func (s *addsSource) PartitionColumns() []string { return s.parts }
func (s *addsSource) ColumnMapping() schema.Mode { return s.mode }
func (s *addsSource) Files() []*protocol.Add     { return s.files }

// writeAll writes the batches with a new Writer and returns the adds.
func writeAll(t testing.TB, st storage.Store, opt Options, recs ...arrow.RecordBatch) []*protocol.Add {
	t.Helper()
	w, err := NewWriter(context.Background(), st, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	adds, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return adds
}

// readRows scans what the adds describe and renders the rows canonically,
// checking the allocator for leaks.
func readRows(t testing.TB, src scan.Source, opts ...scan.Option) []string {
	t.Helper()
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	s := scan.New(src, append([]scan.Option{scan.WithAllocator(mem)}, opts...)...)
	_, seq, err := s.Records(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return sorted(arrowrows.StreamRows(t, seq))
}

func sorted(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

// statsNumRecords reads numRecords from an add's statistics.
func statsNumRecords(t testing.TB, a *protocol.Add, sc *schema.Struct) int64 {
	t.Helper()
	n := stats.Parse(a.Stats, sc, schema.MappingNone).NumRecords
	if n < 0 {
		t.Fatalf("%s: no numRecords in %s", a.Path, a.Stats)
	}
	return n
}

// openParquet opens the data file of an add action; the test closes it.
func openParquet(t testing.TB, st storage.Store, a *protocol.Add) *file.Reader {
	t.Helper()
	key, _ := protocol.DecodePath(a.Path)
	r, err := st.Open(context.Background(), key)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	pf, err := file.NewParquetReader(io.NewSectionReader(r, 0, r.Size()))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pf.Close() })
	return pf
}
