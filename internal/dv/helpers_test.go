package dv

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

func table(t *testing.T, rel string) string {
	t.Helper()
	p := corpus.Path(t, rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("conformance table %s: %v", rel, err)
	}
	return p
}

// commits decodes the JSON commits of a table, in version order.
func commits(t *testing.T, dir string) [][]protocol.Action {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "_delta_log", "*.json"))
	if err != nil || len(names) == 0 {
		t.Fatalf("no commits in %s: %v", dir, err)
	}
	sort.Strings(names)
	var out [][]protocol.Action
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		acts, err := protocol.DecodeCommit(data)
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		out = append(out, acts)
	}
	return out
}

// liveFiles replays commits 0..version by (path, DV id), as log replay does.
func liveFiles(t *testing.T, dir string, version int) []*protocol.Add {
	t.Helper()
	live := map[string]*protocol.Add{}
	for _, acts := range commits(t, dir)[:version+1] {
		for _, a := range acts {
			switch {
			case a.Add != nil:
				live[a.Add.Path+"|"+a.Add.DeletionVector.UniqueID()] = a.Add
			case a.Remove != nil:
				delete(live, a.Remove.Path+"|"+a.Remove.DeletionVector.UniqueID())
			}
		}
	}
	out := make([]*protocol.Add, 0, len(live))
	for _, a := range live {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// allDVs lists every DV descriptor that any add or remove of the log names.
func allDVs(t *testing.T, dir string) []*protocol.DeletionVector {
	t.Helper()
	var out []*protocol.DeletionVector
	for _, acts := range commits(t, dir) {
		for _, a := range acts {
			if a.Add != nil && a.Add.DeletionVector != nil {
				out = append(out, a.Add.DeletionVector)
			}
			if a.Remove != nil && a.Remove.DeletionVector != nil {
				out = append(out, a.Remove.DeletionVector)
			}
		}
	}
	return out
}

// testPrefix is a file-name prefix Delta's own test suite adds to DV files
// (not part of the protocol: the log names the files without it).
const testPrefix = "test%dv%prefix-"

// memCopy copies a table into a memory store, dropping Delta's test-only
// DV file-name prefix so the files sit where the log says they are.
func memCopy(t *testing.T, dir string) *storage.Memory {
	t.Helper()
	st := storage.NewMemory()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if i := strings.LastIndex(rel, "/"); strings.HasPrefix(rel[i+1:], testPrefix) {
			rel = rel[:i+1] + strings.TrimPrefix(rel[i+1:], testPrefix)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return st.PutIfAbsent(context.Background(), rel, data)
	})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func localStore(t *testing.T, dir string) storage.Store {
	t.Helper()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// column reads one column of a Parquet file as text, one entry per row.
func column(t *testing.T, path, name string) []string {
	t.Helper()
	rdr, err := file.OpenParquetFile(path, false)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	defer rdr.Close()
	fr, err := pqarrow.NewFileReader(rdr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	idx := tbl.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("%s has no column %q", path, name)
	}
	var out []string
	for _, arr := range tbl.Column(idx[0]).Data().Chunks() {
		for i := 0; i < arr.Len(); i++ {
			out = append(out, arr.ValueStr(i))
		}
	}
	return out
}

// visible reads column name of the table's live files at version, dropping
// the rows their DVs delete, loaded through st. Sorted.
func visible(t *testing.T, dir string, st storage.Store, version int, name string) []string {
	t.Helper()
	var out []string
	for _, add := range liveFiles(t, dir, version) {
		key, err := protocol.DecodePath(add.Path)
		if err != nil {
			t.Fatal(err)
		}
		vals := column(t, filepath.Join(dir, filepath.FromSlash(key)), name)
		var del *Bitmap
		if add.DeletionVector != nil {
			if del, err = Load(context.Background(), st, add.DeletionVector); err != nil {
				t.Fatalf("%s: %v", add.Path, err)
			}
			if m := del.ToArray(); len(m) > 0 && m[len(m)-1] >= uint64(len(vals)) {
				t.Fatalf("%s: DV deletes row %d of a %d-row file", add.Path, m[len(m)-1], len(vals))
			}
		}
		for i, v := range vals {
			if !del.Contains(uint64(i)) {
				out = append(out, v)
			}
		}
	}
	sort.Strings(out)
	return out
}
