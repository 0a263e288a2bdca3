package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// writeIPC writes batches of the rows (one batch per JSON array) as an
// Arrow IPC file (stream false) or stream.
func writeIPC(t *testing.T, name string, stream bool, batches ...string) string {
	t.Helper()
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int32},
		{Name: "tags", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	}, nil)
	p := filepath.Join(t.TempDir(), name)
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var w interface {
		Write(arrow.RecordBatch) error
		Close() error
	}
	if stream {
		w = ipc.NewWriter(f, ipc.WithSchema(sc))
	} else if w, err = ipc.NewFileWriter(f, ipc.WithSchema(sc)); err != nil {
		t.Fatal(err)
	}
	for _, b := range batches {
		rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		err = w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCLIWriteArrowIPC(t *testing.T) {
	b1 := `[{"id": 1, "tags": ["a", "b"]}, {"id": 2, "tags": null}]`
	b2 := `[{"id": 3, "tags": []}]`
	for _, c := range []struct {
		name   string
		stream bool
	}{{"in.arrow", false}, {"in.arrows", true}} {
		table := filepath.Join(t.TempDir(), "t")
		in := writeIPC(t, c.name, c.stream, b1, b2)
		if out := mustRun(t, "write", table, "--input", in); !strings.Contains(out, "created table and wrote 3 rows") {
			t.Fatalf("%s: %s", c.name, out)
		}
		out := mustRun(t, "scan", table, "--format", "ndjson")
		if out != `{"id":1,"tags":["a","b"]}`+"\n"+`{"id":2,"tags":null}`+"\n"+`{"id":3,"tags":[]}`+"\n" {
			t.Errorf("%s: scan %q", c.name, out)
		}
		// An input of no rows commits nothing.
		empty := writeIPC(t, "empty-"+c.name, c.stream)
		if out := mustRun(t, "write", table, "--input", empty); !strings.Contains(out, "has no rows") {
			t.Errorf("%s: empty input: %s", c.name, out)
		}
	}
	// asset write streams it too.
	h, _ := assetDir(t, "")
	md := writeAsset(t, "--handler", h, "--asset", "tagged", "--input", writeIPC(t, "a.arrows", true, b1, b2))
	if md["delta/num_rows"] != 3.0 {
		t.Errorf("asset write: %v", md)
	}
	// The format can be named when the extension does not say it.
	table := filepath.Join(t.TempDir(), "t")
	in := writeIPC(t, "data.bin", true, b1)
	mustRun(t, "write", table, "--input", in, "--input-format", "arrow")
	bad := writeFile(t, "bad.arrow", "not arrow at all")
	if _, err := run(t, "write", table, "--input", bad); err == nil || !strings.Contains(err.Error(), bad+": not a readable Arrow IPC file or stream") {
		t.Errorf("bad input: %v", err)
	}
	if _, err := run(t, "write", table, "--input", in, "--input-format", "xml"); err == nil || !strings.Contains(err.Error(), "use parquet, csv, ndjson or arrow") {
		t.Errorf("unknown format: %v", err)
	}
}
