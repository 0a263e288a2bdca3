package deltalite_test

import (
	"context"
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// fromJSON builds a one-batch stream from JSON rows.
var fromJSON = jsonrows.Reader

var allTypes = arrow.NewSchema([]arrow.Field{
	{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
	{Name: "s", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
	{Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
	{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
	{Name: "d", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "ok", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
	{Name: "str", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "bin", Type: arrow.BinaryTypes.Binary, Nullable: true},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
	{Name: "ts", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "ntz", Type: &arrow.TimestampType{Unit: arrow.Microsecond}, Nullable: true},
	{Name: "dec", Type: &arrow.Decimal128Type{Precision: 10, Scale: 2}, Nullable: true},
	{Name: "st", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "y", Type: arrow.BinaryTypes.String, Nullable: true}), Nullable: true},
	{Name: "arr", Type: arrow.ListOf(arrow.BinaryTypes.String), Nullable: true},
	{Name: "m", Type: arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64), Nullable: true},
}, nil)

const allTypesRows = `[
{"l":1,"i":2,"s":3,"b":4,"f":1.5,"d":-0.25,"ok":true,"str":"héllo","bin":"AQI=","day":"2026-01-02","ts":"2026-01-02T03:04:05.123456Z","ntz":"2026-01-02 03:04:05.5","dec":"12.34","st":{"x":5,"y":"q"},"arr":["a",null],"m":[{"key":"k","value":1}]},
{"l":-9223372036854775808,"i":-2147483648,"s":-32768,"b":-128,"f":-0.0,"d":1e300,"ok":false,"str":"","bin":"","day":"1969-12-31","ts":"1900-01-01T00:00:00Z","ntz":"9999-12-31 23:59:59.999999","dec":"-99999999.99","st":{"x":null,"y":null},"arr":[],"m":[]},
{"l":null,"i":null,"s":null,"b":null,"f":null,"d":null,"ok":null,"str":null,"bin":null,"day":null,"ts":null,"ntz":null,"dec":null,"st":null,"arr":null,"m":null}]`

var hostileValues = []string{"../x", "a/b", "50%", "k=v", "#?&", "😈", "", "sp ace", `back\slash`, "quo'te\"", strings.Repeat("long", 60)}

// writtenTables writes every table shape the interop tests check and
// returns name -> path.
func writtenTables(t *testing.T) map[string]string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	out := map[string]string{}
	path := func(name string) string { p := filepath.Join(dir, name); out[name] = p; return p }

	mustWrite(t, path("plain"), people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}), deltalite.WriteOptions{})

	ids := make([]int64, len(hostileValues))
	names := make([]string, len(hostileValues))
	for i := range ids {
		ids[i], names[i] = int64(i), "n"
	}
	mustWrite(t, path("hostile"), people(t, ids, names, hostileValues), deltalite.WriteOptions{PartitionBy: []string{"day"}})

	mustWrite(t, path("alltypes"), fromJSON(t, allTypes, allTypesRows), deltalite.WriteOptions{})
	mustWrite(t, path("alltypes_partitioned"), fromJSON(t, allTypes, allTypesRows), deltalite.WriteOptions{PartitionBy: []string{"day", "ok"}})

	p := path("overwritten")
	mustWrite(t, p, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	mustWrite(t, p, people(t, []int64{3}, []string{"c"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})

	p = path("replaced")
	mustWrite(t, p, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	mustWrite(t, p, fromJSON(t, allTypes, allTypesRows), deltalite.WriteOptions{Mode: deltalite.ModeCreateOrReplace, PartitionBy: []string{"b"}})

	// Created by its first upsert (one commit), then upserted into the
	// null partition, and a replace-where on a data column.
	p = path("upserted")
	uo := deltalite.UpsertOptions{PrimaryKeys: []string{"id"}, PartitionBy: []string{"day"}, CreateIfMissing: true}
	for _, batch := range []array.RecordReader{
		people(t, []int64{1, 2, 3}, []string{"a", "b", "c"}, []string{"d1", "", "d2"}),
		people(t, []int64{2, 4, 1}, []string{"B", "d", "A"}, []string{"", "", "d1"}),
	} {
		if _, err := deltalite.Upsert(ctx, p, batch, uo); err != nil {
			t.Fatal(err)
		}
	}
	mustWrite(t, p, people(t, []int64{9}, []string{"z"}, []string{"d2"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id >= 3"})

	p = path("checkpointed")
	for i := range 5 {
		mustWrite(t, p, people(t, []int64{int64(i)}, []string{"x"}, []string{"d"}), deltalite.WriteOptions{
			Mode: deltalite.ModeAppend, PartitionBy: []string{"day"},
			Properties: map[string]string{"delta.checkpointInterval": "2", "delta.checkpoint.writeStatsAsStruct": "true"}})
	}
	tb, err := deltalite.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version() != 4 {
		t.Fatalf("checkpointed table at version %d", tb.Version())
	}
	maps.Copy(out, dmlWrittenTables(t, dir))
	return out
}

// TestPeersReadWhatWeWrite: delta-rs, pyarrow (files planned by delta-rs)
// and Spark read every table shape this engine writes with the same rows.
func TestPeersReadWhatWeWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs and Spark: not in -short mode")
	}
	peers.Python(t)
	tables := writtenTables(t)
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range tables {
			if !yield(n) {
				return
			}
		}
	})
	ours := map[string][]string{}
	for _, n := range names {
		ours[n] = readRows(t, tables[n])
		if len(ours[n]) == 0 {
			t.Fatalf("%s: we read no rows", n)
		}
	}
	for _, n := range names {
		got := peers.ReadTable(t, peers.DeltaRS, tables[n], peers.ReadOptions{}).Lines(t)
		if d := diffRows(got, ours[n]); d != "" {
			t.Errorf("delta-rs reads %s differently: %s", n, d)
		}
	}
	got := peers.ReadTable(t, peers.PyArrow, tables["alltypes_partitioned"], peers.ReadOptions{}).Lines(t)
	if d := diffRows(got, ours["alltypes_partitioned"]); d != "" {
		t.Errorf("pyarrow reads alltypes_partitioned differently: %s", d)
	}
	s := peers.Spark(t)
	ops := make([]peers.Op, len(names))
	for i, n := range names {
		ops[i] = peers.ReadOp(tables[n], peers.ReadOptions{})
	}
	for i, r := range s.Run(t, ops...) {
		if d := diffRows(r.Table(t).Lines(t), ours[names[i]]); d != "" {
			t.Errorf("Spark reads %s differently: %s", names[i], d)
		}
	}
	// The hostile values stay inside the table root and read back equal
	// ("" is null in Delta).
	want := make([]string, 0, len(hostileValues))
	for i, v := range hostileValues {
		day := `"` + strings.ReplaceAll(strings.ReplaceAll(v, `\`, `\\`), `"`, `\"`) + `"`
		if v == "" {
			day = "null"
		}
		want = append(want, "day="+day+", id="+strconv.Itoa(i)+`, name="n"`)
	}
	if d := diffRows(ours["hostile"], slices.Sorted(slices.Values(want))); d != "" {
		t.Errorf("hostile partition values: %s", d)
	}
}

// TestDeltaRSSkipsWithOurStats: delta-rs parses the statistics we write
// and prunes partitions with them.
func TestDeltaRSSkipsWithOurStats(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with delta-rs and Spark: not in -short mode")
	}
	peers.Python(t)
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1, 5, 7}, []string{"a", "b", "c"}, []string{"d1", "d1", "d2"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	out := peers.RunPython(t, "add_actions.py", uri, "--partition", "day=d1")
	var res struct {
		Files []string `json:"files"`
		Stats []struct {
			Path       string         `json:"path"`
			NumRecords int64          `json:"num_records"`
			Min        map[string]any `json:"min"`
			Max        map[string]any `json:"max"`
			NullCount  map[string]any `json:"null_count"`
		} `json:"stats"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	if len(res.Files) != 1 || !strings.Contains(res.Files[0], "day=d1") {
		t.Fatalf("delta-rs kept %v for day=d1", res.Files)
	}
	found := false
	for _, s := range res.Stats {
		if strings.Contains(s.Path, "day=d1") {
			found = true
			if s.NumRecords != 2 || s.Min["id"] != float64(1) || s.Max["id"] != float64(5) || s.Min["name"] != "a" || s.Max["name"] != "b" || s.NullCount["id"] != float64(0) {
				t.Errorf("delta-rs parsed stats %+v", s)
			}
		}
	}
	if !found {
		t.Fatalf("no stats for the d1 file: %+v", res.Stats)
	}
}

func diffRows(got, want []string) string {
	if slices.Equal(got, want) {
		return ""
	}
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return "row " + strconv.Itoa(i) + ": got " + got[i] + ", want " + want[i]
		}
	}
	return "got " + strconv.Itoa(len(got)) + " rows, want " + strconv.Itoa(len(want))
}
