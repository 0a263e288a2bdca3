package datafile

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// hostileValues are partition values that break naive path building.
var hostileValues = []string{
	"../x", "a/b", "50%", "k=v", "#?&", "😈", "", ".", "..", "%2F", "a:b", `back\slash`, "new\nline",
	" lead and trail ", "__HIVE_DEFAULT_PARTITION__", "{[^*]}'\"", "\x01ctl", "ünï/cødé",
	strings.Repeat("long/", 200) + "end", strings.Repeat("é", 300),
}

// stringPartitionBatch has one row per value (and one null) of p, and the
// row number in id.
func stringPartitionBatch(mem memory.Allocator, sc *schema.Struct, values []string) arrow.RecordBatch {
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	ib := array.NewInt64Builder(mem)
	defer ib.Release()
	pb := array.NewStringBuilder(mem)
	defer pb.Release()
	for i, v := range values {
		ib.Append(int64(i))
		pb.Append(v)
	}
	ib.Append(int64(len(values)))
	pb.AppendNull()
	id, p := ib.NewArray(), pb.NewArray()
	defer id.Release()
	defer p.Release()
	return array.NewRecordBatch(as, []arrow.Array{id, p}, int64(len(values)+1))
}

func TestHostilePartitionValuesStayInsideAndReadBack(t *testing.T) {
	parent := t.TempDir()
	root := filepath.Join(parent, "table")
	st, err := storage.NewLocal(root)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, fields("id long", "p string"))
	rec := stringPartitionBatch(mem, sc, hostileValues)
	defer rec.Release()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: []string{"p"}, Allocator: mem}, rec)

	// "" and null share the null partition; every other value has its own.
	if len(adds) != len(hostileValues) {
		t.Errorf("%d files, want %d", len(adds), len(hostileValues))
	}
	for _, a := range adds {
		key, err := protocol.DecodePath(a.Path)
		if err != nil {
			t.Fatal(err)
		}
		clean, err := storage.CleanKey(key)
		if err != nil || clean != key {
			t.Errorf("add path %q names key %q, which is not a clean key inside the root (%v)", a.Path, key, err)
		}
		dir, name, _ := strings.Cut(key, "/")
		if !strings.HasPrefix(dir, "p=") || strings.Contains(name, "/") || !strings.HasPrefix(name, "part-") ||
			!strings.HasSuffix(name, "-c000.snappy.parquet") || len(dir) > maxSegment {
			t.Errorf("key %q is not p=<escaped>/part-NNNNN-<uuid>-c000.snappy.parquet", key)
		}
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(key))); err != nil {
			t.Errorf("data file of %q: %v", a.Path, err)
		}
		if v, ok := a.PartitionValues["p"]; !ok || (v == "" && dir != "p=__HIVE_DEFAULT_PARTITION__") {
			t.Errorf("%q: partition values %v", key, a.PartitionValues)
		}
	}
	// Nothing was written next to the table.
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("%d entries beside the table root, want only the root", len(entries))
	}
	// Spark's escaping of the classic example.
	for _, a := range adds {
		if a.PartitionValues["p"] == "a/b" && !strings.HasPrefix(a.Path, "p=a%252Fb/") {
			t.Errorf("a/b is at %q, want p=a%%252Fb/...", a.Path)
		}
	}

	// Read back: the rows are equal, except that "" reads back as null.
	want := make([]string, 0, len(hostileValues)+1)
	for _, r := range arrowrows.Rows(rec) {
		want = append(want, strings.Replace(r, `p=""`, "p=null", 1))
	}
	src := &addsSource{st: st, sc: sc, parts: []string{"p"}, files: adds}
	arrowrows.Diff(t, readRows(t, src), sorted(want))

	// Each value prunes to exactly its own row.
	for i, v := range hostileValues {
		if v == "" {
			continue
		}
		f, err := scan.NewFilter("p", "=", v)
		if err != nil {
			t.Fatal(err)
		}
		rows := readRows(t, src, scan.WithFilters(f))
		if len(rows) != 1 || !strings.HasPrefix(rows[0], "id="+strconv.Itoa(i)+",") {
			t.Errorf("p = %q: rows %v", v, rows)
		}
	}
}

func TestEscapePathName(t *testing.T) {
	cases := map[string]string{
		"a/b":       "a%2Fb",
		"50%":       "50%25",
		"k=v":       "k%3Dv",
		"#?&":       "%23%3F&",
		"😈":         "😈",
		"x\x00y":    "x%00y",
		"a b":       "a b",
		`"'*:\{[]^`: "%22%27%2A%3A%5C%7B%5B%5D%5E",
		"\x7f":      "%7F",
	}
	for in, want := range cases {
		if got := escapePathName(in); got != want {
			t.Errorf("escape %q = %q, want %q", in, got, want)
		}
	}
	long := partitionSegment("p", strings.Repeat("%", 300), true)
	if len(long) > maxSegment || !strings.HasPrefix(long, "p=%25%25") || strings.Count(long, "%") != strings.Count(long, "%25") {
		t.Errorf("long segment %q cut badly", long)
	}
	if a, b := partitionSegment("p", strings.Repeat("x", 300)+"1", true), partitionSegment("p", strings.Repeat("x", 300)+"2", true); a == b {
		t.Errorf("two long values share the directory %q", a)
	}
}

// everyPartitionType is a table partitioned by a column of each type that
// can partition, plus one data column.
var everyPartitionType = fields("b byte", "s short", "i integer", "l long", "f float", "d double",
	"dec decimal(7,3)", "ok boolean", "bin binary", "day date", "ts timestamp", "ntz timestamp_ntz", "str string", "v long")

// everyPartitionColumn names the partition columns of everyPartitionType:
// all but the last, the data column.
func everyPartitionColumn(sc *schema.Struct) []string {
	var parts []string
	for _, f := range sc.Fields[:len(sc.Fields)-1] {
		parts = append(parts, f.Name)
	}
	return parts
}

func TestPartitionByEveryType(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, everyPartitionType)
	parts := everyPartitionColumn(sc)
	rec := batch(t, mem, sc, `[
	{"b":1,"s":2,"i":3,"l":4,"f":1.5,"d":-0.25,"dec":"1.500","ok":true,"bin":"YS9i","day":"2024-01-02","ts":"2024-01-02T03:04:05.123456Z","ntz":"2024-01-02T03:04:05","str":"x","v":1},
	{"b":1,"s":2,"i":3,"l":4,"f":1.5,"d":-0.25,"dec":"1.500","ok":true,"bin":"YS9i","day":"2024-01-02","ts":"2024-01-02T03:04:05.123456Z","ntz":"2024-01-02T03:04:05","str":"x","v":2},
	{"b":null,"s":null,"i":null,"l":null,"f":null,"d":null,"dec":null,"ok":null,"bin":null,"day":null,"ts":null,"ntz":null,"str":null,"v":3},
	{"b":-1,"s":-2,"i":-3,"l":-4,"f":-1.5,"d":1e10,"dec":"-0.001","ok":false,"bin":"","day":"1900-01-01","ts":"1900-01-01T00:00:00Z","ntz":"2262-01-01T00:00:00.000001","str":"y","v":4}
	]`)
	defer rec.Release()
	st := storage.NewMemory()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: parts, Allocator: mem}, rec)
	if len(adds) != 3 {
		t.Fatalf("%d files, want 3", len(adds))
	}
	first := adds[0]
	wantDir := "b=1/s=2/i=3/l=4/f=1.5/d=-0.25/dec=1.500/ok=true/bin=a%2Fb/day=2024-01-02/" +
		"ts=2024-01-02T03%3A04%3A05.123456Z/ntz=2024-01-02 03%3A04%3A05.000000/str=x/"
	key, _ := protocol.DecodePath(first.Path)
	if !strings.HasPrefix(key, wantDir) {
		t.Errorf("first file at %q, want under %q", key, wantDir)
	}
	if first.PartitionValues["bin"] != "a/b" || first.PartitionValues["ts"] != "2024-01-02T03:04:05.123456Z" ||
		first.PartitionValues["dec"] != "1.500" || first.PartitionValues["ok"] != "true" {
		t.Errorf("partition values %v", first.PartitionValues)
	}
	for k, v := range adds[1].PartitionValues {
		if v != "" {
			t.Errorf("null row: partition value %s = %q", k, v)
		}
	}
	src := &addsSource{st: st, sc: sc, parts: parts, files: adds}
	want := arrowrows.Rows(rec)
	for i := range want { // the empty binary value is stored as null
		want[i] = strings.Replace(want[i], "bin=0x,", "bin=null,", 1)
	}
	arrowrows.Diff(t, readRows(t, src), sorted(want))
}

func TestTwoPartitionColumns(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	sc := mustSchema(t, fields("id long", "region string", "day date", "amount double"))
	regions := []string{"eu", "us", "ap", ""}
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for i := 0; i < 1000; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		if r := regions[i%4]; r == "" {
			b.Field(1).AppendNull()
		} else {
			b.Field(1).(*array.StringBuilder).Append(r)
		}
		b.Field(2).(*array.Date32Builder).Append(arrow.Date32(19000 + i%3))
		b.Field(3).(*array.Float64Builder).Append(float64(i) / 4)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	// In two batches, so partitions receive rows more than once.
	st := storage.NewMemory()
	lo, hi := rec.NewSlice(0, 500), rec.NewSlice(500, 1000)
	defer lo.Release()
	defer hi.Release()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: []string{"day", "region"}, Allocator: mem}, lo, hi)
	if len(adds) != 12 {
		t.Errorf("%d files, want 12 (3 days x 4 regions)", len(adds))
	}
	seen := map[string]bool{}
	var total int64
	for _, a := range adds {
		key, _ := protocol.DecodePath(a.Path)
		dir := key[:strings.LastIndexByte(key, '/')]
		region := a.PartitionValues["region"]
		if region == "" {
			region = schema.HiveDefaultPartition
		}
		if want := "day=" + a.PartitionValues["day"] + "/region=" + region; dir != want {
			t.Errorf("file in %q, want %q", dir, want)
		}
		if seen[dir] {
			t.Errorf("two files in %q", dir)
		}
		seen[dir] = true
		f := statsNumRecords(t, a, sc)
		total += f
	}
	if total != 1000 {
		t.Errorf("numRecords add up to %d", total)
	}
	arrowrows.Diff(t, readRows(t, &addsSource{st: st, sc: sc, parts: []string{"day", "region"}, files: adds}), arrowrows.Rows(rec))
}

func TestEmptyStringInNonNullablePartitionRefused(t *testing.T) {
	sc := mustSchema(t, fields("id long", "p string not null"))
	mem := memory.NewGoAllocator()
	rec := batch(t, mem, sc, `[{"id":1,"p":"a"},{"id":2,"p":""}]`)
	w, err := NewWriter(context.Background(), storage.NewMemory(), Options{Schema: sc, PartitionColumns: []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	err = w.Write(rec)
	if err == nil || !strings.Contains(err.Error(), `"p"`) || !strings.Contains(err.Error(), "empty string") {
		t.Fatalf("error %v, want one about the empty string in p", err)
	}
	// The Writer stays usable after a refused batch.
	if err := w.Write(batch(t, mem, sc, `[{"id":3,"p":"b"}]`)); err != nil {
		t.Fatal(err)
	}
	adds, err := w.Close()
	if err != nil || len(adds) != 1 || adds[0].PartitionValues["p"] != "b" {
		t.Fatalf("adds %v, err %v", adds, err)
	}
}
