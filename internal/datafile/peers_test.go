package datafile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// peerSchema has the types delta-rs reads, two partition columns (region
// with hostile values) and a timestamp_ntz (a reader feature).
var peerSchema = fields("id long not null", "name string", "score double", "day date", "ts timestamp", "ntz timestamp_ntz",
	"amount decimal(10,2)", "flag boolean", "bin binary", "small short",
	`tags {"type":"array","elementType":"string","containsNull":true}`,
	`s {"type":"struct","fields":[{"name":"a","type":"integer","nullable":true,"metadata":{}},{"name":"b","type":"string","nullable":true,"metadata":{}}]}`,
	`m {"type":"map","keyType":"string","valueType":"long","valueContainsNull":true}`,
	"region string", "bucket integer")

var peerRegions = []string{"../x", "a/b", "50%", "k=v", "#?&", "😈", "", "plain", strings.Repeat("long-", 60)}

// peerBatch makes n rows ordered by id, so that per-file id ranges are
// disjoint and statistics can prune.
func peerBatch(t *testing.T, mem memory.Allocator, sc *schema.Struct, n int) arrow.RecordBatch {
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(mem, as)
	defer b.Release()
	for i := 0; i < n; i++ {
		b.Field(0).(*array.Int64Builder).Append(int64(i))
		b.Field(1).(*array.StringBuilder).Append(fmt.Sprintf("name-%05d", i))
		if i%50 == 7 {
			for _, k := range []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12} {
				b.Field(k).AppendNull()
			}
		} else {
			b.Field(2).(*array.Float64Builder).Append(float64(i) / 8)
			b.Field(3).(*array.Date32Builder).Append(arrow.Date32(18000 + i/10))
			b.Field(4).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i)*3_600_000_123 + 1_600_000_000_000_000))
			b.Field(5).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i)*60_000_000 + 1_500_000_000_000_000))
			b.Field(6).(*array.Decimal128Builder).Append(decimal128.FromI64(int64(i)*101 - 5000))
			b.Field(7).(*array.BooleanBuilder).Append(i%3 == 0)
			b.Field(8).(*array.BinaryBuilder).Append([]byte{byte(i), byte(i >> 8)})
			b.Field(9).(*array.Int16Builder).Append(int16(i % 1000))
			lb := b.Field(10).(*array.ListBuilder)
			lb.Append(true)
			lb.ValueBuilder().(*array.StringBuilder).Append(fmt.Sprint(i))
			sb := b.Field(11).(*array.StructBuilder)
			sb.Append(true)
			sb.FieldBuilder(0).(*array.Int32Builder).Append(int32(i))
			sb.FieldBuilder(1).(*array.StringBuilder).Append("s" + fmt.Sprint(i%7))
			mb := b.Field(12).(*array.MapBuilder)
			mb.Append(true)
			mb.KeyBuilder().(*array.StringBuilder).Append("k")
			mb.ItemBuilder().(*array.Int64Builder).Append(int64(i))
		}
		// Regions in runs, so each partition gets a contiguous id range.
		if r := peerRegions[i*len(peerRegions)/n]; i%97 == 0 {
			b.Field(13).AppendNull()
		} else {
			b.Field(13).(*array.StringBuilder).Append(r)
		}
		b.Field(14).(*array.Int32Builder).Append(int32(i % 2))
	}
	return b.NewRecordBatch()
}

// commitTable writes version 0 of a table: protocol, metaData and the adds.
func commitTable(t *testing.T, dir string, sc *schema.Struct, parts []string, config map[string]string, proto protocol.Protocol, adds []*protocol.Add) {
	t.Helper()
	if parts == nil {
		parts = []string{}
	}
	if config == nil {
		config = map[string]string{}
	}
	actions := []protocol.Action{
		{Protocol: &proto},
		{Metadata: &protocol.Metadata{ID: "5f5d4e3c-2b1a-4f00-9e8d-7c6b5a493827", Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
			SchemaString: sc.JSON(), PartitionColumns: parts, Configuration: config}},
	}
	for _, a := range adds {
		actions = append(actions, protocol.Action{Add: a})
	}
	var buf bytes.Buffer
	for _, a := range actions {
		line, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(line)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "_delta_log", "00000000000000000000.json"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pythonJSON runs a Python snippet of the test environment with args and
// decodes what it prints as JSON.
func pythonJSON(t *testing.T, code string, out any, args ...string) {
	t.Helper()
	py := peers.Python(t)
	cmd := exec.Command(py, append([]string{"-c", code}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), out); err != nil {
		t.Fatalf("python output: %v\n%s", err, stdout.String())
	}
}

// deltaRSFiles prints, for a table, delta-rs's parsed add actions (flattened
// statistics) and, for each predicate, the files file_uris keeps.
const deltaRSFiles = `
import json, sys, os
import pyarrow as pa
from deltalake import DeltaTable
dt = DeltaTable(sys.argv[1])
acts = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
kept = {p: sorted(os.path.basename(u) for u in dt.file_uris(file_pruning_predicate=p)) for p in json.loads(sys.argv[2])}
print(json.dumps({"actions": acts, "kept": kept}, default=str))
`

// writtenTable is a table this package wrote and committed for peers to
// read, with the rows they must read.
type writtenTable struct {
	dir   string
	st    storage.Store
	sc    *schema.Struct
	parts []string
	mode  schema.Mode
	adds  []*protocol.Add
	want  []string
}

// hostileTable has every type delta-rs reads, two partition columns with
// hostile values, several files per partition (an 8 KiB target) and a
// timestamp_ntz column (reader feature).
func hostileTable(t *testing.T, mem memory.Allocator) writtenTable {
	sc := mustSchema(t, peerSchema)
	rec := peerBatch(t, mem, sc, 4000)
	defer rec.Release()
	dir := t.TempDir()
	st, err := storage.NewLocal(dir)
	if err != nil {
		t.Fatal(err)
	}
	parts := []string{"region", "bucket"}
	lo, hi := rec.NewSlice(0, 1500), rec.NewSlice(1500, 4000)
	defer lo.Release()
	defer hi.Release()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: parts, TargetFileSize: 8 << 10, Allocator: mem, DataChange: true}, lo, hi)
	// Spark wants invariants listed at writer version 7 when a column is
	// NOT NULL.
	commitTable(t, dir, sc, parts, nil, protocol.Protocol{MinReaderVersion: 3, MinWriterVersion: 7,
		ReaderFeatures: []string{"timestampNtz"}, WriterFeatures: []string{"timestampNtz", "invariants"}}, adds)
	if len(adds) < 2*len(peerRegions) {
		t.Fatalf("only %d files", len(adds))
	}
	want := arrowrows.Rows(rec)
	for i := range want { // the empty region reads back as null
		want[i] = strings.Replace(want[i], `region=""`, "region=null", 1)
	}
	return writtenTable{dir: dir, st: st, sc: sc, parts: parts, adds: adds, want: sorted(want)}
}

// partitionTypesTable is partitioned by a column of every partitionable type.
func partitionTypesTable(t *testing.T, mem memory.Allocator) writtenTable {
	sc := mustSchema(t, everyPartitionType)
	parts := everyPartitionColumn(sc)
	rec := batch(t, mem, sc, `[
	{"b":1,"s":2,"i":3,"l":4,"f":1.5,"d":-0.25,"dec":"1.500","ok":true,"bin":"YS9i","day":"2024-01-02","ts":"2024-01-02T03:04:05.123456Z","ntz":"2024-01-02T03:04:05","str":"x","v":1},
	{"b":null,"s":null,"i":null,"l":null,"f":null,"d":null,"dec":null,"ok":null,"bin":null,"day":null,"ts":null,"ntz":null,"str":null,"v":3},
	{"b":-1,"s":-2,"i":-3,"l":-4,"f":-1.5,"d":1e10,"dec":"-0.001","ok":false,"bin":"","day":"1900-01-01","ts":"1900-01-01T00:00:00Z","ntz":"2262-01-01T00:00:00.000001","str":"y/z","v":4}
	]`)
	defer rec.Release()
	dir := t.TempDir()
	st, _ := storage.NewLocal(dir)
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: parts, Allocator: mem, DataChange: true}, rec)
	commitTable(t, dir, sc, parts, nil, protocol.Protocol{MinReaderVersion: 3, MinWriterVersion: 7,
		ReaderFeatures: []string{"timestampNtz"}, WriterFeatures: []string{"timestampNtz"}}, adds)
	want := arrowrows.Rows(rec)
	for i := range want { // the empty binary value is stored as null
		want[i] = strings.Replace(want[i], "bin=0x,", "bin=null,", 1)
	}
	return writtenTable{dir: dir, st: st, sc: sc, parts: parts, adds: adds, want: sorted(want)}
}

// mappedTable is a partitioned table under column mapping by name.
func mappedTable(t *testing.T, mem memory.Allocator) writtenTable {
	sc := mustSchema(t, mappedSchema)
	rec := batch(t, mem, sc, `[{"id":1,"s":{"x":"a"},"p":7},{"id":2,"s":null,"p":7},{"id":3,"s":{"x":"b"},"p":null},{"id":4,"s":{"x":null},"p":8}]`)
	defer rec.Release()
	dir := t.TempDir()
	st, _ := storage.NewLocal(dir)
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: []string{"p"}, ColumnMapping: schema.MappingName, Allocator: mem, DataChange: true}, rec)
	commitTable(t, dir, sc, []string{"p"}, map[string]string{"delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "4"},
		protocol.Protocol{MinReaderVersion: 2, MinWriterVersion: 5}, adds)
	return writtenTable{dir: dir, st: st, sc: sc, parts: []string{"p"}, mode: schema.MappingName, adds: adds, want: arrowrows.Rows(rec)}
}

func TestPeersReadWhatWeWrite(t *testing.T) {
	peers.Python(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tables := map[string]writtenTable{"hostile": hostileTable(t, mem), "partition-types": partitionTypesTable(t, mem), "mapped": mappedTable(t, mem)}
	for name, tb := range tables {
		t.Run(name+"/deltalite", func(t *testing.T) {
			arrowrows.Diff(t, readRows(t, &addsSource{st: tb.st, sc: tb.sc, parts: tb.parts, mode: tb.mode, files: tb.adds}), tb.want)
		})
		engines := []string{peers.DeltaRS}
		if name == "hostile" {
			// Plain Parquet readers, with delta-rs planning the files.
			engines = append(engines, peers.PyArrow, peers.DuckDB)
		}
		for _, engine := range engines {
			t.Run(name+"/"+engine, func(t *testing.T) {
				arrowrows.Diff(t, peers.ReadTable(t, engine, tb.dir, peers.ReadOptions{}).Lines(t), tb.want)
			})
		}
	}
}

func TestSparkReadsWhatWeWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("Spark is slow to start")
	}
	s := peers.Spark(t)
	mem := memory.NewGoAllocator()
	tables := map[string]writtenTable{"hostile": hostileTable(t, mem), "partition-types": partitionTypesTable(t, mem), "mapped": mappedTable(t, mem)}
	for name, tb := range tables {
		t.Run(name, func(t *testing.T) {
			arrowrows.Diff(t, s.Read(t, tb.dir, peers.ReadOptions{}).Lines(t), tb.want)
		})
	}
}

func TestDeltaRSPrunesWithOurStatistics(t *testing.T) {
	peers.Python(t)
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	tb := hostileTable(t, mem)
	sc, adds := tb.sc, tb.adds
	preds := []string{"id > 3500", "id < 40", "name = 'name-02000'", "day >= '2020-04-01'",
		"ts < '2020-09-14T00:00:00Z'", "amount > 3800", "score <= 3.0", "small = 999"}
	var got struct {
		Actions []map[string]any
		Kept    map[string][]string
	}
	pythonJSON(t, deltaRSFiles, &got, tb.dir, mustJSON(t, preds))
	byName := map[string]*protocol.Add{}
	for _, a := range adds {
		byName[path.Base(a.Path)] = a
	}
	if len(got.Actions) != len(adds) {
		t.Fatalf("delta-rs sees %d files, we wrote %d", len(got.Actions), len(adds))
	}
	for _, act := range got.Actions {
		a := byName[path.Base(fmt.Sprint(act["path"]))]
		if a == nil {
			t.Fatalf("delta-rs lists unknown file %v", act["path"])
		}
		f := stats.Parse(a.Stats, sc, schema.MappingNone)
		if fmt.Sprint(act["num_records"]) != fmt.Sprint(f.NumRecords) ||
			fmt.Sprint(act["min.id"]) != fmt.Sprint(f.Column("id").Min.Int) ||
			fmt.Sprint(act["max.id"]) != fmt.Sprint(f.Column("id").Max.Int) ||
			fmt.Sprint(act["null_count.score"]) != fmt.Sprint(f.Column("score").NullCount) ||
			fmt.Sprint(act["max.name"]) != f.Column("name").Max.Bytes ||
			act["min.s.a"] == nil || act["max.amount"] == nil || act["min.ts"] == nil {
			t.Errorf("delta-rs reads the stats of %s as %v; we wrote %s", a.Path, act, a.Stats)
		}
	}
	for _, p := range preds {
		kept := got.Kept[p]
		if len(kept) == 0 || len(kept) >= len(adds) {
			t.Errorf("%s: delta-rs keeps %d of %d files: statistics did not prune", p, len(kept), len(adds))
		}
	}
	// Exactly the files whose id range can match.
	var wantKept []string
	for _, a := range adds {
		if f := stats.Parse(a.Stats, sc, schema.MappingNone); f.Column("id").Max.Int > 3500 {
			wantKept = append(wantKept, path.Base(a.Path))
		}
	}
	sort.Strings(wantKept)
	if strings.Join(got.Kept["id > 3500"], ",") != strings.Join(wantKept, ",") {
		t.Errorf("id > 3500: delta-rs keeps %v, want %v", got.Kept["id > 3500"], wantKept)
	}

	// Under column mapping the statistics are keyed by physical names.
	mt := mappedTable(t, mem)
	pythonJSON(t, deltaRSFiles, &got, mt.dir, mustJSON(t, []string{"id > 3"}))
	if len(got.Kept["id > 3"]) != 1 {
		t.Errorf("column mapping: id > 3 keeps %v of %d files", got.Kept["id > 3"], len(mt.adds))
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
