package iohandler_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

var ctx = context.Background()

// batch builds (id long, name string, day string) rows.
func batch(ids []int64, names, days []string) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	b.Field(0).(*array.Int64Builder).AppendValues(ids, nil)
	b.Field(1).(*array.StringBuilder).AppendValues(names, nil)
	b.Field(2).(*array.StringBuilder).AppendValues(days, nil)
	return b.NewRecordBatch()
}

func newHandler(t *testing.T, cfg iohandler.Config) *iohandler.Handler {
	t.Helper()
	if cfg.TableURI == "" {
		cfg.TableURI = t.TempDir()
	}
	h, err := iohandler.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func mustWrite(t *testing.T, h *iohandler.Handler, oc iohandler.OutputContext, v any) iohandler.Metadata {
	t.Helper()
	md, err := h.HandleOutput(ctx, oc, v)
	if err != nil {
		t.Fatal(err)
	}
	return md
}

func loadRows(t *testing.T, h *iohandler.Handler, ic iohandler.InputContext) []string {
	t.Helper()
	tbl, err := iohandler.LoadInput[arrow.Table](ctx, h, ic)
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Release()
	return arrowrows.TableRows(tbl)
}

func equalRows(t *testing.T, got []string, want ...string) {
	t.Helper()
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("rows:\n got %q\nwant %q", got, want)
	}
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want one with %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Fatalf("error %q does not say %q", err, p)
		}
	}
}

func TestRoundTripArrowTypes(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	rec := batch([]int64{1, 2, 3}, []string{"Alice", "Bob", "Carol"}, []string{"d1", "d1", "d2"})
	defer rec.Release()
	md := mustWrite(t, h, iohandler.OutputContext{Asset: "users"}, rec)
	uri := h.AssetTableURI("users", nil)
	want := []string{`day="d1", id=1, name="Alice"`, `day="d1", id=2, name="Bob"`, `day="d2", id=3, name="Carol"`}
	equalRows(t, tablerows.Read(t, uri), want...)
	if md[iohandler.OutVersion] != int64(0) || md[iohandler.OutNumRows] != int64(3) || md[iohandler.OutTableNumRows] != int64(3) ||
		md[iohandler.OutMode] != "overwrite" || md[iohandler.OutTableURI] != uri || md[iohandler.OutSkipped] != false {
		t.Fatalf("metadata %v", md)
	}
	if md[iohandler.OutSizeBytes].(int64) <= 0 || md[iohandler.OutSchema] == nil {
		t.Fatalf("metadata %v", md)
	}
	if _, err := json.Marshal(md); err != nil {
		t.Fatalf("metadata is not JSON-able: %v", err)
	}

	// A table and a reader write as the batch does (overwrite: the table
	// ends with the last write's rows).
	tbl := array.NewTableFromRecords(rec.Schema(), []arrow.RecordBatch{rec})
	defer tbl.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "users"}, tbl)
	equalRows(t, tablerows.Read(t, uri), want...)
	rr, _ := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec, rec})
	defer rr.Release()
	md = mustWrite(t, h, iohandler.OutputContext{Asset: "users", Metadata: map[string]string{"delta/mode": "append"}}, rr)
	if md[iohandler.OutNumRows] != int64(6) || md[iohandler.OutTableNumRows] != int64(9) || md[iohandler.OutVersion] != int64(2) {
		t.Fatalf("append metadata %v", md)
	}

	// Reads: a table, a batch and a stream hold the same rows.
	all := append(append(slices.Clone(want), want...), want...)
	equalRows(t, loadRows(t, h, iohandler.InputContext{Asset: "users"}), all...)
	b, err := iohandler.LoadInput[arrow.RecordBatch](ctx, h, iohandler.InputContext{Asset: "users"})
	if err != nil {
		t.Fatal(err)
	}
	equalRows(t, arrowrows.Rows(b), all...)
	b.Release()
	r, err := iohandler.LoadInput[array.RecordReader](ctx, h, iohandler.InputContext{Asset: "users"})
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for r.Next() {
		n += r.RecordBatch().NumRows()
	}
	r.Release()
	if n != 9 {
		t.Fatalf("the stream had %d rows, want 9", n)
	}
}

func TestReadColumnsAndVersion(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	rec := batch([]int64{1, 2}, []string{"a", "b"}, []string{"x", "y"})
	defer rec.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "t"}, rec)
	rec2 := batch([]int64{3}, []string{"c"}, []string{"z"})
	defer rec2.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "t"}, rec2)
	equalRows(t, loadRows(t, h, iohandler.InputContext{Asset: "t", Metadata: map[string]string{"delta/columns": `["name","id"]`}}), `id=3, name="c"`)
	equalRows(t, loadRows(t, h, iohandler.InputContext{Asset: "t", Metadata: map[string]string{"delta/version": "0", "delta/columns": `["id"]`}}), "id=1", "id=2")
	_, err := iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "t", Metadata: map[string]string{"delta/version": "x"}})
	wantErr(t, err, "delta/version", `"x"`)
	_, err = iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "t", Metadata: map[string]string{"delta/columns": `"id"`}})
	wantErr(t, err, "delta/columns", "JSON list")
	_, err = iohandler.LoadInput[arrow.Table](ctx, h, iohandler.InputContext{Asset: "missing"})
	if !errors.Is(err, deltalite.ErrTableNotFound) {
		t.Fatalf("missing table: %v", err)
	}
	wantErr(t, err, `"missing"`, "materialize")
}

func TestRootNameAndLeafChecks(t *testing.T) {
	h := newHandler(t, iohandler.Config{TableURI: "/data/delta/"})
	if got := h.AssetTableURI("users", nil); got != "/data/delta/users" {
		t.Fatal(got)
	}
	if got := h.AssetTableURI("users", map[string]string{"delta/root_name": "people"}); got != "/data/delta/people" {
		t.Fatal(got)
	}
	for _, leaf := range []string{"..", "../x", "a/b", `a\b`, "", "a..b", "x?y", "%2e%2e"} {
		if got := h.AssetTableURI("users", map[string]string{"delta/root_name": leaf}); got != "" {
			t.Errorf("leaf %q gave %q", leaf, got)
		}
		_, err := h.ResolveTableURI("users", map[string]string{"delta/root_name": leaf})
		wantErr(t, err, "delta/root_name")
	}
	_, err := h.ResolveTableURI("../etc", nil)
	wantErr(t, err, "asset name", "..")
}

func TestNewValidates(t *testing.T) {
	for _, c := range []struct {
		cfg  iohandler.Config
		want []string
	}{
		{iohandler.Config{TableURI: "/x", Mode: "bogus"}, []string{"mode", `"bogus"`, "overwrite"}},
		{iohandler.Config{TableURI: "/x", SchemaMode: "strict"}, []string{"schema_mode", `"strict"`}},
		{iohandler.Config{TableURI: "/x", Mode: "merge"}, []string{"merge_config is required"}},
		{iohandler.Config{TableURI: "/x", MergeConfig: json.RawMessage(`{"merge_type": "upsrt", "predicate": "s.id = t.id"}`)}, []string{"merge_config", "upsrt"}},
		{iohandler.Config{TableURI: "/x", WriterProperties: &iohandler.WriterProperties{TargetFileSize: -1}}, []string{"writer_properties.target_file_size"}},
		{iohandler.Config{TableURI: "/x", CommitProperties: &iohandler.CommitProperties{AppTransactions: []iohandler.AppTransaction{{AppID: "a"}, {AppID: "b"}}}}, []string{"app_transactions"}},
		{iohandler.Config{TableURI: "/x", Engine: &iohandler.EngineSettings{ReadBatchSize: -2}}, []string{"engine.read_batch_size"}},
	} {
		_, err := iohandler.New(c.cfg)
		wantErr(t, err, c.want...)
	}
	t.Setenv(iohandler.EnvTableURI, "/from/env")
	h, err := iohandler.New(iohandler.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.AssetTableURI("a", nil); got != "/from/env/a" {
		t.Fatal(got)
	}
	t.Setenv(iohandler.EnvTableURI, "")
	_, err = iohandler.New(iohandler.Config{})
	wantErr(t, err, "table_uri", "TABLE_URI")
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "h.json")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg, err := iohandler.LoadConfig(write(`{"table_uri": "/d", "mode": "merge", "schema_mode": "merge",
		"storage_options": {"AWS_REGION": "eu"}, "table_config": {"delta.appendOnly": "false"},
		"merge_config": {"merge_type": "upsert", "predicate": "s.id = t.id"},
		"writer_properties": {"compression": "ZSTD", "target_file_size": 1000, "statistics_columns": ["id"]},
		"commit_properties": {"custom_metadata": {"who": "me"}, "max_commit_retries": 3, "app_transactions": [{"app_id": "job", "version": 7}]},
		"engine": {"read_batch_size": 100}}`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Mode != "merge" || cfg.WriterProperties.Compression != "ZSTD" || *cfg.CommitProperties.MaxCommitRetries != 3 ||
		cfg.CommitProperties.AppTransactions[0].Version != 7 || cfg.Engine.ReadBatchSize != 100 || cfg.StorageOptions["AWS_REGION"] != "eu" {
		t.Fatalf("%+v", cfg)
	}
	if _, err := iohandler.New(cfg); err != nil {
		t.Fatal(err)
	}
	_, err = iohandler.LoadConfig(write(`{"table_uri": "/d", "mdoe": "append"}`))
	wantErr(t, err, "mdoe", `did you mean "mode"`)
	_, err = iohandler.LoadConfig(write(`{"table_uri": "/d", "writer_properties": {"max_row_group_size": 10}}`))
	wantErr(t, err, "writer_properties.max_row_group_size", "not supported")
	_, err = iohandler.LoadConfig(write(`{"table_uri": "/d", "commit_properties": {"app_transactions": [{"app_id": "a", "version": 1, "last_updated": 5}]}}`))
	wantErr(t, err, "commit_properties.app_transactions[0].last_updated", "unknown key")
	_, err = iohandler.LoadConfig(write("{\"table_uri\": \"/d\",\n  \"mode\": }"))
	wantErr(t, err, "line 2", "malformed JSON")
}

func TestMetadataKeysChecked(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	rec := batch([]int64{1}, []string{"a"}, []string{"x"})
	defer rec.Release()
	for _, c := range []struct {
		md   map[string]string
		want []string
	}{
		{map[string]string{"delta/mode": "bogus"}, []string{"delta/mode", `"bogus"`}},
		{map[string]string{"delta/schema_mode": "x"}, []string{"delta/schema_mode"}},
		{map[string]string{"delta/modes": "append"}, []string{"delta/modes", `did you mean "delta/mode"`}},
		{map[string]string{"delta/writer_properties": `{"compresion": "zstd"}`}, []string{"delta/writer_properties", "compresion"}},
		{map[string]string{"delta/commit_properties": `[1]`}, []string{"delta/commit_properties"}},
		{map[string]string{"delta/table_configuration": `{"a": 1}`}, []string{"delta/table_configuration"}},
		{map[string]string{"delta/merge_predicate": " "}, []string{"delta/merge_predicate"}},
	} {
		_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a", Metadata: c.md}, rec)
		wantErr(t, err, append([]string{`asset "a"`}, c.want...)...)
	}
	// Nothing was written by any of them.
	if _, err := os.Stat(h.AssetTableURI("a", nil)); !os.IsNotExist(err) {
		t.Fatalf("a refused write left %v", err)
	}
	// Keys outside delta/ belong to others.
	mustWrite(t, h, iohandler.OutputContext{Asset: "a", Metadata: map[string]string{"owner": "me"}}, rec)
}

func TestUnsupportedType(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a"}, map[string]int{"x": 1})
	wantErr(t, err, "map[string]int", "arrow.Table", "arrow.RecordBatch", "array.RecordReader")
	_, err = iohandler.LoadInput[map[string]int](ctx, h, iohandler.InputContext{Asset: "a"})
	wantErr(t, err, "map[string]int", "supported types")
}

// No secret of the table URI or the storage options reaches an error.
func TestNoSecretsInErrors(t *testing.T) {
	h := newHandler(t, iohandler.Config{TableURI: "s3://AKIAEXAMPLE:s3cr3tvalue@bucket/root", StorageOptions: map[string]string{"AWS_SECRET_ACCESS_KEY": "optsecret123"}})
	rec := batch([]int64{1}, []string{"a"}, []string{"x"})
	defer rec.Release()
	_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a"}, rec)
	if err == nil {
		t.Fatal("a write to an unreachable store passed")
	}
	for _, s := range []string{"s3cr3tvalue", "optsecret123"} {
		if strings.Contains(err.Error(), s) {
			t.Fatalf("error %q holds a secret", err)
		}
	}
}
