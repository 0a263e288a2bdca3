package dv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

func ints(lo, hi int, drop ...int) []string {
	var out []string
	for i := lo; i < hi; i++ {
		if !slices.Contains(drop, i) {
			out = append(out, strconv.Itoa(i))
		}
	}
	return out
}

func plus(s []string, add ...int) []string {
	out := slices.Clone(s)
	for _, a := range add {
		out = append(out, strconv.Itoa(a))
	}
	sort.Strings(out)
	return out
}

func sorted(s []string) []string {
	out := slices.Clone(s)
	sort.Strings(out)
	return out
}

func TestLoadSmallTable(t *testing.T) {
	dir := table(t, "delta-rs/table-with-dv-small")
	st := localStore(t, dir)
	dvs := allDVs(t, dir)
	if len(dvs) != 1 {
		t.Fatalf("want 1 DV in the log, got %d", len(dvs))
	}
	key, err := FileKey(st, dvs[0])
	if err != nil || key != "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin" {
		t.Fatalf("FileKey = %q, %v", key, err)
	}
	b, err := Load(context.Background(), st, dvs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{0, 9}) {
		t.Fatalf("deleted rows = %v, want [0 9]", got)
	}
	if !b.Contains(0) || !b.Contains(9) || b.Contains(1) || b.Cardinality() != 2 {
		t.Fatalf("Contains/Cardinality disagree with ToArray")
	}
	if got, want := visible(t, dir, st, 1, "value"), ints(1, 9); !slices.Equal(got, sorted(want)) {
		t.Fatalf("visible values = %v, want %v", got, want)
	}
}

func TestLoadDATDeletionVectors(t *testing.T) {
	base := table(t, "dat/deletion_vectors")
	dir := filepath.Join(base, "delta")
	st := localStore(t, dir)
	expected, err := filepath.Glob(filepath.Join(base, "expected", "latest", "table_content", "*.parquet"))
	if err != nil || len(expected) != 1 {
		t.Fatalf("expected content: %v %v", expected, err)
	}
	for _, col := range []string{"letter", "int", "date"} {
		got := visible(t, dir, st, 2, col)
		want := sorted(column(t, expected[0], col))
		if !slices.Equal(got, want) || len(want) != 1 {
			t.Errorf("column %s: visible %v, expected %v", col, got, want)
		}
	}
}

// The Spark tables' expected contents per version come from Delta's
// DeletionVectorsSuite.
func TestLoadLargeTables(t *testing.T) {
	v1 := ints(0, 2000, 0, 180, 300, 700, 1800)
	v2 := plus(v1, 300, 700)
	v3 := sorted(slices.DeleteFunc(slices.Clone(v2), func(s string) bool {
		return slices.Contains([]string{"300", "250", "350", "900", "1353", "1567", "1800"}, s)
	}))
	v4 := plus(v3, 900, 1567)

	p1 := ints(0, 2000, 0, 180, 308, 225, 756, 1007, 1503)
	p2 := plus(p1, 308, 756)
	p3 := sorted(slices.DeleteFunc(slices.Clone(p2), func(s string) bool {
		return slices.Contains([]string{"300", "257", "399", "786", "1353", "1567", "1800"}, s)
	}))
	p4 := plus(p3, 1353, 1567)

	for _, tc := range []struct {
		table, col string
		want       [][]string
	}{
		{"kernel-java-spark/table-with-dv-large", "value", [][]string{ints(0, 2000), v1, v2, v3, v4}},
		{"kernel-java-spark/partitioned-table-with-dv-large", "id", [][]string{ints(0, 2000), p1, p2, p3, p4}},
	} {
		t.Run(filepath.Base(tc.table), func(t *testing.T) {
			dir := table(t, tc.table)
			st := memCopy(t, dir)
			for v, want := range tc.want {
				if got := visible(t, dir, st, v, tc.col); !slices.Equal(got, sorted(want)) {
					t.Errorf("version %d: %d visible rows, want %d", v, len(got), len(want))
				}
			}
			// Every DV the log ever named loads, removes included.
			n := 0
			for _, d := range allDVs(t, dir) {
				if _, err := Load(context.Background(), st, d); err != nil {
					t.Errorf("%s: %v", d.UniqueID(), err)
				}
				n++
			}
			if n < 10 {
				t.Errorf("only %d DVs in the log", n)
			}
		})
	}
}

// Delta's test suite names DV files with a "test%dv%prefix-" the log does
// not mention: read in place, the DV the log names is missing, and the
// error must say which file.
func TestLoadMissingFileNamesIt(t *testing.T) {
	dir := table(t, "kernel-java-spark/table-with-dv-large")
	d := allDVs(t, dir)[0]
	_, err := Load(context.Background(), localStore(t, dir), d)
	if !errors.Is(err, errs.ErrNotFound) || !errors.Is(err, storage.ErrNotExist) {
		t.Fatalf("want a not-found error wrapping not-exist, got %v", err)
	}
	key, _ := FileKey(nil, d)
	if !strings.Contains(err.Error(), key) || !strings.HasPrefix(key, "deletion_vector_") {
		t.Fatalf("error %q does not name %q", err, key)
	}
}

func TestLoadShortDV(t *testing.T) {
	dir := table(t, "kernel-rs/with-short-dv")
	st := localStore(t, dir)
	dvs := allDVs(t, dir)
	if len(dvs) != 1 {
		t.Fatalf("want 1 DV, got %d", len(dvs))
	}
	b, err := Load(context.Background(), st, dvs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{0, 1, 2}) {
		t.Fatalf("deleted rows = %v", got)
	}
	if got, want := visible(t, dir, st, 0, "id"), ints(3, 10); !slices.Equal(got, sorted(want)) {
		t.Fatalf("visible ids = %v, want %v", got, want)
	}
}

func TestLoadDVKeyCases(t *testing.T) {
	base := table(t, "golden/log-replay-dv-key-cases")
	dir := filepath.Join(base, "delta")
	st := localStore(t, dir)
	expected, _ := filepath.Glob(filepath.Join(base, "expected", "*.parquet"))
	if len(expected) != 1 {
		t.Fatalf("expected content: %v", expected)
	}
	want := sorted(column(t, expected[0], "id"))
	if got := visible(t, dir, st, 3, "id"); !slices.Equal(got, want) {
		t.Fatalf("visible ids = %v, want %v", got, want)
	}
	// The three DVs grow by one row per DELETE.
	var cards []uint64
	for _, d := range allDVs(t, dir) {
		b, err := Load(context.Background(), st, d)
		if err != nil {
			t.Fatal(err)
		}
		cards = append(cards, b.Cardinality())
	}
	if !slices.Equal(cards, []uint64{1, 2, 1, 3, 2}) {
		t.Fatalf("cardinalities in log order = %v", cards)
	}
}

// Inline ("i") DVs: Z85 in the log, padded to whole 4-byte blocks.
func TestLoadInline(t *testing.T) {
	dir := table(t, "kernel-rs/cdf-table-with-dv")
	st := localStore(t, dir)
	n := 0
	for _, d := range allDVs(t, dir) {
		if d.StorageType != StorageInline {
			continue
		}
		n++
		b, err := Load(context.Background(), st, d)
		if err != nil {
			t.Fatalf("%s: %v", d.PathOrInlineDv, err)
		}
		if b.Cardinality() != uint64(d.Cardinality) {
			t.Fatalf("cardinality %d, want %d", b.Cardinality(), d.Cardinality)
		}
	}
	if n == 0 {
		t.Fatal("no inline DV found")
	}
	// The hand-made history: a file DV, then inline DVs, one of them with
	// delta-kernel-rs's short Z85 tail ("##093" is row 3 alone).
	want := [][]uint64{{}, {0, 9}, {}, {0, 1, 4, 5}, {0, 5}, {3}, {}}
	for v := range want {
		var got []uint64
		for _, add := range liveFiles(t, dir, v) {
			if add.DeletionVector != nil {
				b, err := Load(context.Background(), st, add.DeletionVector)
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, b.ToArray()...)
			}
		}
		if !slices.Equal(got, want[v]) && len(got)+len(want[v]) > 0 {
			t.Errorf("version %d: deleted rows %v, want %v", v, got, want[v])
		}
		if n := len(visible(t, dir, st, v, "value")); n != 10-len(want[v]) {
			t.Errorf("version %d: %d visible rows", v, n)
		}
	}
}

// An absolute ("p") path: Delta's suite writes the table root into the log
// (URI-encoded) before reading it; we do the same on a copy.
func TestLoadAbsolutePath(t *testing.T) {
	src := table(t, "kernel-java-spark/table-with-dv-special-char")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	st := localStore(t, dir)
	logFile := filepath.Join(dir, "_delta_log", "00000000000000000000.json")
	data, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	folder := strings.TrimPrefix(st.URL(), "file:") + "/" + strings.NewReplacer("%", "%25", " ", "%20").Replace("folder&with%special char")
	data = []byte(strings.ReplaceAll(string(data), "{{FOLDER_WITH_SPECIAL_CHAR}}", folder))
	if err := os.WriteFile(logFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dvs := allDVs(t, dir)
	if len(dvs) != 1 || dvs[0].StorageType != StorageAbsolute {
		t.Fatalf("want one p DV, got %+v", dvs)
	}
	key, err := FileKey(st, dvs[0])
	if want := "folder&with%special char/test%dv%prefix-deletion_vector_67bc892e-2979-4760-a78c-856aba806564.bin"; err != nil || key != want {
		t.Fatalf("FileKey = %q, %v; want %q", key, err, want)
	}
	b, err := Load(context.Background(), st, dvs[0])
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{0, 2, 4, 6, 8}) {
		t.Fatalf("deleted rows = %v", got)
	}
	if got, want := visible(t, dir, st, 0, "id"), []string{"1", "3", "5", "7", "9"}; !slices.Equal(got, want) {
		t.Fatalf("visible ids = %v, want %v", got, want)
	}

	// Not encoded, the path is not a URI at all (Spark: "Malformed escape pair").
	raw := *dvs[0]
	raw.PathOrInlineDv = strings.Replace(raw.PathOrInlineDv, "%25special%20char", "%special char", 1)
	if _, err := Load(context.Background(), st, &raw); !errors.Is(err, errs.ErrCorruptTable) {
		t.Fatalf("unencoded path: want corrupt table, got %v", err)
	}
}

// TestFileKeyAbsolute checks that "p" descriptors go through the table's
// one path rule (protocol.ObjectKey, tested there case by case) and that a
// refusal is a corrupt table naming the path.
func TestFileKeyAbsolute(t *testing.T) {
	st := storage.NewMemory()
	ok := &protocol.DeletionVector{StorageType: StorageAbsolute, PathOrInlineDv: st.URL() + "/a/x.bin"}
	if key, err := FileKey(st, ok); err != nil || key != "a/x.bin" {
		t.Errorf("under the root: %q, %v; want a/x.bin", key, err)
	}
	for _, p := range []string{"a/x.bin", "memory://other/x.bin", "file:/x.bin"} {
		_, err := FileKey(st, &protocol.DeletionVector{StorageType: StorageAbsolute, PathOrInlineDv: p})
		if !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: want a corrupt-table error naming it, got %v", p, err)
		}
	}
}

func TestFileKeyUUID(t *testing.T) {
	for _, c := range []struct{ in, key string }{
		{"vBn[lx{q8@P<9BNH/isA", "deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"},
		{"abvBn[lx{q8@P<9BNH/isA", "ab/deletion_vector_61d16c75-6994-46b7-a15b-8b538852e50e.bin"},
	} {
		key, err := FileKey(nil, &protocol.DeletionVector{StorageType: "u", PathOrInlineDv: c.in})
		if err != nil || key != c.key {
			t.Errorf("%q: %q, %v; want %q", c.in, key, err, c.key)
		}
	}
	for _, bad := range []string{"short", "vBn[lx{q8@P<9BNH/is~", "../vBn[lx{q8@P<9BNH/isA", "#####vBn[lx{q8@P<9BN"} {
		if _, err := FileKey(nil, &protocol.DeletionVector{StorageType: "u", PathOrInlineDv: bad}); !errors.Is(err, errs.ErrCorruptTable) {
			t.Errorf("%q: want corrupt table, got %v", bad, err)
		}
	}
	if _, err := FileKey(nil, &protocol.DeletionVector{StorageType: "x"}); !errors.Is(err, errs.ErrUnsupportedTable) {
		t.Errorf("storage type x: want unsupported table, got %v", err)
	}
}
