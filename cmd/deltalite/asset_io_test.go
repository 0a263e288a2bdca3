package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/asset/state"
)

// assetDir makes a handler file whose tables live in a fresh folder, and
// returns the handler's path and that folder; the asset state goes to
// the folder's sibling "state".
func assetDir(t *testing.T, extra string) (handler, tables string) {
	t.Helper()
	dir := t.TempDir()
	t.Setenv(EnvStateDir, filepath.Join(dir, "state"))
	tables = filepath.Join(dir, "tables")
	doc, _ := json.Marshal(tables)
	return writeFile(t, "h.json", `{"table_uri": `+string(doc)+extra+`}`), tables
}

// writeAsset runs asset write and decodes its standard output, which must
// be one JSON object and nothing else.
func writeAsset(t *testing.T, args ...string) map[string]any {
	t.Helper()
	out := mustRun(t, append([]string{"asset", "write"}, args...)...)
	var md map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	if err := dec.Decode(&md); err != nil {
		t.Fatalf("asset write printed %q: %v", out, err)
	}
	if rest := out[dec.InputOffset():]; strings.TrimSpace(rest) != "" {
		t.Fatalf("asset write printed more than the metadata: %q", rest)
	}
	return md
}

func TestCLIAssetWriteMetadata(t *testing.T) {
	h, tables := assetDir(t, "")
	in := writeFile(t, "users.csv", "id,name\n1,Alice\n2,Bob\n3,Carol\n")
	md := writeAsset(t, "--handler", h, "--asset", "users", "--input", in)
	keys := slices.Sorted(maps.Keys(md))
	want := []string{"delta/mode", "delta/num_rows", "delta/schema", "delta/size_bytes", "delta/skipped",
		"delta/table_num_rows", "delta/table_uri", "delta/version", "delta/write_duration_s"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys %v\nwant %v", keys, want)
	}
	if md["delta/mode"] != "overwrite" || md["delta/num_rows"] != 3.0 || md["delta/table_num_rows"] != 3.0 ||
		md["delta/version"] != 0.0 || md["delta/skipped"] != false || md["delta/table_uri"] != filepath.Join(tables, "users") {
		t.Errorf("metadata %v", md)
	}
	if size, ok := md["delta/size_bytes"].(float64); !ok || size <= 0 {
		t.Errorf("size_bytes %v", md["delta/size_bytes"])
	}
	if d, ok := md["delta/write_duration_s"].(float64); !ok || d < 0 {
		t.Errorf("write_duration_s %v", md["delta/write_duration_s"])
	}
	sc, _ := json.Marshal(md["delta/schema"])
	if string(sc) != `{"fields":[{"metadata":{},"name":"id","nullable":true,"type":"long"},{"metadata":{},"name":"name","nullable":true,"type":"string"}],"type":"struct"}` {
		t.Errorf("schema %s", sc)
	}
	if out := mustRun(t, "asset", "read", "--handler", h, "--asset", "users", "--format", "csv"); out != "id,name\n1,Alice\n2,Bob\n3,Carol\n" {
		t.Errorf("read back %q", out)
	}
}

// A mode from the asset's metadata overrides the handler's; a read picks
// columns and a version from metadata too.
func TestCLIAssetModeFromMetadata(t *testing.T) {
	h, _ := assetDir(t, `, "mode": "overwrite"`)
	in := writeFile(t, "e.ndjson", `{"id": 1}`+"\n"+`{"id": 2}`+"\n")
	writeAsset(t, "--handler", h, "--asset", "events", "--input", in)
	md := writeAsset(t, "--handler", h, "--asset", "events", "--input", in, "--metadata", "delta/mode=append")
	if md["delta/mode"] != "append" || md["delta/num_rows"] != 2.0 || md["delta/table_num_rows"] != 4.0 || md["delta/version"] != 1.0 {
		t.Errorf("append from metadata: %v", md)
	}
	md = writeAsset(t, "--handler", h, "--asset", "events", "--input", in)
	if md["delta/mode"] != "overwrite" || md["delta/table_num_rows"] != 2.0 {
		t.Errorf("the handler's overwrite: %v", md)
	}
	out := mustRun(t, "asset", "read", "--handler", h, "--asset", "events", "--metadata", "delta/version=1", "--format", "ndjson")
	if strings.Count(out, `{"id":`) != 4 {
		t.Errorf("version 1: %q", out)
	}
	out = mustRun(t, "asset", "read", "--handler", h, "--asset", "events", "--metadata", "delta/root_name=events",
		"--metadata", `delta/columns=["id"]`, "--format", "ndjson")
	if out != `{"id":1}`+"\n"+`{"id":2}`+"\n" {
		t.Errorf("latest: %q", out)
	}
}

func TestCLIAssetPartitionedWriteRead(t *testing.T) {
	h, tables := assetDir(t, "")
	daily := `{"kind": "daily", "start": "2024-01-01"}`
	part := []string{"--handler", h, "--asset", "daily_events", "--partitions-def", daily, "--metadata", "delta/partition_expr=day"}
	day1 := writeFile(t, "d1.csv", "id,day\n1,2024-01-01\n2,2024-01-01\n")
	day2 := writeFile(t, "d2.csv", "id,day\n3,2024-01-02\n")
	writeAsset(t, append(part, "--partition-key", "2024-01-01", "--input", day1)...)
	md := writeAsset(t, append(part, "--partition-key", "2024-01-02", "--input", day2)...)
	if md["delta/num_rows"] != 1.0 || md["delta/table_num_rows"] != 3.0 {
		t.Errorf("second partition: %v", md)
	}
	// Overwriting day 2 replaces only day 2.
	day2b := writeFile(t, "d2b.csv", "id,day\n4,2024-01-02\n5,2024-01-02\n")
	writeAsset(t, append(part, "--partition-key", "2024-01-02", "--input", day2b)...)
	out := mustRun(t, append([]string{"asset", "read"}, append(part, "--partition-key", "2024-01-02", "--format", "csv")...)...)
	if out != "id,day\n4,2024-01-02\n5,2024-01-02\n" {
		t.Errorf("read of 2024-01-02: %q", out)
	}
	dest := filepath.Join(t.TempDir(), "day1.ndjson")
	if out := mustRun(t, append([]string{"asset", "read"}, append(part, "--partition-key", "2024-01-01", "--output", dest)...)...); out != "" {
		t.Errorf("--output printed %q", out)
	}
	if b, _ := os.ReadFile(dest); string(b) != `{"day":"2024-01-01","id":1}`+"\n"+`{"day":"2024-01-01","id":2}`+"\n" {
		t.Errorf("--output file %q", b)
	}
	// An empty input is a value too: the partition is emptied, the others stay.
	empty := writeFile(t, "empty.csv", "id,day\n")
	md = writeAsset(t, append(part, "--partition-key", "2024-01-02", "--input", empty)...)
	if md["delta/num_rows"] != 0.0 || md["delta/table_num_rows"] != 2.0 {
		t.Errorf("empty input: %v", md)
	}
	// Rows outside the key are refused, and nothing is written.
	out, err := run(t, append([]string{"asset", "write"}, append(part, "--partition-key", "2024-01-01", "--input", day2)...)...)
	if err == nil || !strings.Contains(err.Error(), "replace-where") || out != "" {
		t.Errorf("rows outside the partition: %v %q", err, out)
	}
	logs, _ := os.ReadDir(filepath.Join(tables, "daily_events", "_delta_log"))
	if len(logs) != 4 {
		t.Errorf("%d log entries, want 4 commits", len(logs))
	}
}

func TestCLIAssetErrors(t *testing.T) {
	h, tables := assetDir(t, "")
	in := writeFile(t, "x.csv", "id\n1\n")
	bogus := writeFile(t, "bogus.json", `{"table_uri": "`+tables+`", "mode": "bogus"}`)
	typo := writeFile(t, "typo.json", `{"table_uri": "`+tables+`", "writer_properties": {"compresion": "zstd"}}`)
	wrongType := writeFile(t, "type.json", `{"table_uri": "`+tables+`", "schema_mode": 3}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"write", "--handler", bogus, "--asset", "a", "--input", in}, `mode: unknown mode "bogus"`},
		{[]string{"write", "--handler", typo, "--asset", "a", "--input", in}, `writer_properties.compresion: unknown key; did you mean "compression"?`},
		{[]string{"write", "--handler", wrongType, "--asset", "a", "--input", in}, "schema_mode: a JSON number where string was expected"},
		{[]string{"write", "--handler", "nope.json", "--asset", "a", "--input", in}, "nope.json"},
		{[]string{"write", "--asset", "a", "--input", in}, "--handler is required"},
		{[]string{"write", "--handler", h, "--input", in}, "--asset is required"},
		{[]string{"write", "--handler", h, "--asset", "a"}, "--input FILE is required"},
		{[]string{"write", "--handler", h, "--asset", "a", "--input", in, "--metadata", "delta/mode=bogus"}, `metadata delta/mode: value: unknown mode "bogus"`},
		{[]string{"write", "--handler", h, "--asset", "a", "--input", in, "--partition-key", "x"}, `asset "a" is not partitioned, but partition keys ["x"] were given`},
		{[]string{"write", "--handler", h, "--asset", "a", "--input", in, "--partitions-def", `{"kind": "yearly"}`}, `--partitions-def: `},
		{[]string{"read", "--handler", h, "--asset", "missing"}, `asset "missing" has no table yet`},
		{[]string{"write", "--handler", h, "--asset", "a", "--input", in, "--storage-option", "AWS_REGION=x"}, "--storage-option does not apply to asset commands"},
		{[]string{"read", "--handler", h, "--asset", "a", "--format", "xml"}, `unknown --format "xml"`},
	} {
		out, err := run(t, append([]string{"asset"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v (want %q)", c.args, err, c.want)
		}
		if out != "" {
			t.Errorf("%v printed %q", c.args, out)
		}
	}
	if _, err := os.Stat(tables); !os.IsNotExist(err) {
		t.Errorf("a refused command made %s: %v", tables, err)
	}
}

// A write is recorded in the asset state as the runtime records a
// materialization (keys, table version, output metadata), and asset
// action delete clears what it recorded.
func TestCLIAssetWriteRecordsState(t *testing.T) {
	h, _ := assetDir(t, "")
	st, err := state.OpenFile(os.Getenv(EnvStateDir))
	if err != nil {
		t.Fatal(err)
	}
	list := func(asset string) string {
		t.Helper()
		recs, err := st.List(context.Background(), asset)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range recs {
			out = append(out, fmt.Sprintf("%s@%d rows=%v", r.Key, r.Version, r.Metadata["delta/num_rows"]))
		}
		return strings.Join(out, " ")
	}
	pd := `{"kind": "static", "keys": ["us", "eu"]}`
	part := []string{"--handler", h, "--asset", "orders", "--partitions-def", pd, "--metadata", "delta/partition_expr=region"}
	writeAsset(t, append(part, "--partition-key", "us", "--input", writeFile(t, "us.csv", "id,region\n1,us\n2,us\n"))...)
	writeAsset(t, append(part, "--partition-key", "eu", "--input", writeFile(t, "eu.csv", "id,region\n3,eu\n"))...)
	if got := list("orders"); got != "eu@1 rows=1 us@0 rows=2" {
		t.Fatalf("state after two writes: %s", got)
	}
	writeAsset(t, "--handler", h, "--asset", "users", "--input", writeFile(t, "u.csv", "id\n1\n"))
	if got := list("users"); got != "@0 rows=1" {
		t.Fatalf("state of an unpartitioned write: %s", got)
	}
	rec, _, _ := st.Get(context.Background(), "orders", "us")
	if rec.MaterializedAt.IsZero() || rec.Metadata["delta/table_uri"] == nil || rec.Metadata["delta/mode"] != "overwrite" {
		t.Fatalf("record %+v", rec)
	}

	mustRun(t, append([]string{"asset", "action", "delete"}, append(part, "--partition-key", "us")...)...)
	if got := list("orders"); got != "eu@1 rows=1" {
		t.Fatalf("state after deleting us: %s", got)
	}
	mustRun(t, "asset", "action", "delete", "--handler", h, "--asset", "users")
	if got := list("users"); got != "" {
		t.Fatalf("state after deleting users: %s", got)
	}
	// A refused write records nothing, and says why as the handler does.
	_, err = run(t, append([]string{"asset", "write"}, append(part, "--partition-key", "us", "--input", writeFile(t, "x.csv", "id,region\n9,eu\n"))...)...)
	if err == nil || !strings.HasPrefix(err.Error(), `invalid argument: asset "orders", partition keys ["us"]: `) {
		t.Fatalf("rows outside the partition: %v", err)
	}
	if got := list("orders"); got != "eu@1 rows=1" {
		t.Fatalf("state after a refused write: %s", got)
	}
}
