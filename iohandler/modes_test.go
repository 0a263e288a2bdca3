package iohandler_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// kv builds (id long, v string) rows from "id:v" pairs.
func kv(pairs ...string) arrow.RecordBatch {
	sc := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "v", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
	defer b.Release()
	for _, p := range pairs {
		id, v, _ := strings.Cut(p, ":")
		var n int64
		for _, c := range id {
			n = n*10 + int64(c-'0')
		}
		b.Field(0).(*array.Int64Builder).Append(n)
		b.Field(1).(*array.StringBuilder).Append(v)
	}
	return b.NewRecordBatch()
}

// kvRows renders "id:v" pairs as the rows tablerows.Read reads.
func kvRows(pairs ...string) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		id, v, _ := strings.Cut(p, ":")
		out[i] = "id=" + id + `, v="` + v + `"`
	}
	return out
}

func version(t *testing.T, uri string) int64 {
	t.Helper()
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	return tb.Version()
}

func commitInfo(t *testing.T, uri string, v int64) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(uri, "_delta_log", strings.Repeat("0", 20-len(itoa(v)))+itoa(v)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		var m map[string]map[string]any
		if json.Unmarshal([]byte(line), &m) == nil && m["commitInfo"] != nil {
			return m["commitInfo"]
		}
	}
	t.Fatalf("no commitInfo in version %d", v)
	return nil
}

func itoa(v int64) string {
	if v < 10 {
		return string(rune('0' + v))
	}
	return itoa(v/10) + string(rune('0'+v%10))
}

func writeKV(t *testing.T, h *iohandler.Handler, asset string, md map[string]string, pairs ...string) (iohandler.Metadata, error) {
	t.Helper()
	rec := kv(pairs...)
	defer rec.Release()
	return h.HandleOutput(ctx, iohandler.OutputContext{Asset: asset, Metadata: md}, rec)
}

func TestModesUnpartitioned(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	uri := h.AssetTableURI("a", nil)
	mode := func(m string) map[string]string { return map[string]string{"delta/mode": m} }

	// error creates a missing table, then refuses.
	if _, err := writeKV(t, h, "a", mode("error"), "1:a"); err != nil {
		t.Fatal(err)
	}
	_, err := writeKV(t, h, "a", mode("error"), "2:b")
	if !errors.Is(err, deltalite.ErrTableExists) {
		t.Fatalf("error mode on an existing table: %v", err)
	}
	// ignore skips an existing table, and says so, at the current version.
	md, err := writeKV(t, h, "a", mode("ignore"), "3:c")
	if err != nil {
		t.Fatal(err)
	}
	if md[iohandler.OutSkipped] != true || md[iohandler.OutNumRows] != int64(0) || md[iohandler.OutVersion] != int64(0) || md[iohandler.OutTableNumRows] != int64(1) {
		t.Fatalf("ignore metadata %v", md)
	}
	// ignore writes a missing table.
	if md, err = writeKV(t, h, "b", mode("ignore"), "3:c"); err != nil || md[iohandler.OutSkipped] != false {
		t.Fatalf("%v %v", md, err)
	}
	equalRows(t, tablerows.Read(t, h.AssetTableURI("b", nil)), kvRows("3:c")...)
	// append adds.
	if _, err := writeKV(t, h, "a", mode("append"), "2:b"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri), kvRows("1:a", "2:b")...)
	// overwrite (the default) replaces.
	if _, err := writeKV(t, h, "a", nil, "5:e"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri), kvRows("5:e")...)
	// create_or_replace replaces schema and rows in one commit.
	before := version(t, uri)
	rec := batch([]int64{7}, []string{"g"}, []string{"d"})
	defer rec.Release()
	md = mustWrite(t, h, iohandler.OutputContext{Asset: "a", Metadata: mode("create_or_replace")}, rec)
	if md[iohandler.OutVersion] != before+1 {
		t.Fatalf("create_or_replace took versions %d -> %v", before, md[iohandler.OutVersion])
	}
	if op := commitInfo(t, uri, before+1)["operation"]; op != "CREATE OR REPLACE TABLE" {
		t.Fatalf("operation %v", op)
	}
	equalRows(t, tablerows.Read(t, uri), `day="d", id=7, name="g"`)
	// A different schema without schema_mode is refused; with overwrite it replaces.
	_, err = writeKV(t, h, "a", nil, "1:x")
	if !errors.Is(err, deltalite.ErrSchemaMismatch) {
		t.Fatalf("overwrite with another schema: %v", err)
	}
	if _, err = writeKV(t, h, "a", map[string]string{"delta/schema_mode": "overwrite"}, "1:x"); err != nil {
		t.Fatal(err)
	}
	equalRows(t, tablerows.Read(t, uri), kvRows("1:x")...)
	// schema_mode merge adds a column on append.
	rec2 := batch([]int64{2}, []string{"n"}, []string{"d2"})
	defer rec2.Release()
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a", Metadata: map[string]string{"delta/mode": "append"}}, rec2)
	if err == nil {
		t.Fatal("append with new columns and no schema mode passed")
	}
	mustWrite(t, h, iohandler.OutputContext{Asset: "a", Metadata: map[string]string{"delta/mode": "append", "delta/schema_mode": "merge"}}, rec2)
	tb, _ := deltalite.Open(ctx, uri)
	if n := len(tb.DeltaSchema().Fields); n != 4 {
		t.Fatalf("merged schema has %d fields", n)
	}
}

func TestWriterAndCommitProperties(t *testing.T) {
	h := newHandler(t, iohandler.Config{
		WriterProperties: &iohandler.WriterProperties{Compression: "ZSTD", StatisticsColumns: []string{"id"}},
		CommitProperties: &iohandler.CommitProperties{CustomMetadata: map[string]any{"who": "handler"}},
	})
	if _, err := writeKV(t, h, "a", nil, "1:a"); err != nil {
		t.Fatal(err)
	}
	uri := h.AssetTableURI("a", nil)
	if ci := commitInfo(t, uri, 0); ci["who"] != "handler" {
		t.Fatalf("commitInfo %v", ci)
	}
	tb, _ := deltalite.Open(ctx, uri)
	if p := tb.Metadata().Configuration["delta.dataSkippingStatsColumns"]; p != "id" {
		t.Fatalf("statistics columns property %q", p)
	}
	if files := tb.FileURIs(); len(files) != 1 || !strings.Contains(files[0], ".zstd.") {
		t.Fatalf("files %v are not zstd", files)
	}
	// The asset's commit properties replace the handler's; an app
	// transaction seen makes the write a skip.
	md := map[string]string{"delta/mode": "append", "delta/commit_properties": `{"custom_metadata": {"run": "r1"}, "app_transactions": [{"app_id": "job", "version": 1}]}`}
	if _, err := writeKV(t, h, "a", md, "2:b"); err != nil {
		t.Fatal(err)
	}
	ci := commitInfo(t, uri, 1)
	if ci["run"] != "r1" || ci["who"] != nil {
		t.Fatalf("commitInfo %v", ci)
	}
	out, err := writeKV(t, h, "a", md, "2:b")
	if err != nil || out[iohandler.OutSkipped] != true || out[iohandler.OutVersion] != int64(1) {
		t.Fatalf("a repeated app transaction: %v %v", out, err)
	}
	equalRows(t, tablerows.Read(t, uri), kvRows("1:a", "2:b")...)
	// The asset's writer properties replace the handler's (no zstd, no
	// statistics columns from the handler).
	if _, err := writeKV(t, h, "b", map[string]string{"delta/writer_properties": `{"compression": "snappy"}`}, "1:a"); err != nil {
		t.Fatal(err)
	}
	tb, _ = deltalite.Open(ctx, h.AssetTableURI("b", nil))
	if files := tb.FileURIs(); len(files) != 1 || !strings.Contains(files[0], ".snappy.") || tb.Metadata().Configuration["delta.dataSkippingStatsColumns"] != "" {
		t.Fatalf("files %v, properties %v", files, tb.Metadata().Configuration)
	}
	// A merge cannot honour another codec: refused before any I/O.
	mh := newHandler(t, iohandler.Config{Mode: "merge", MergeConfig: json.RawMessage(`{"merge_type": "upsert", "predicate": "s.id = t.id"}`),
		WriterProperties: &iohandler.WriterProperties{Compression: "zstd"}})
	_, err = writeKV(t, mh, "a", nil, "1:a")
	wantErr(t, err, "writer_properties.compression", "merges write snappy")
}

func TestTableConfigAfterCreation(t *testing.T) {
	h := newHandler(t, iohandler.Config{TableConfig: map[string]string{"delta.logRetentionDuration": "interval 10 days"}})
	uri := h.AssetTableURI("a", nil)
	if _, err := writeKV(t, h, "a", nil, "1:a"); err != nil {
		t.Fatal(err)
	}
	md := map[string]string{"delta/mode": "append", "delta/table_configuration": `{"delta.appendOnly": "true", "owner": "team"}`}
	out, err := writeKV(t, h, "a", md, "2:b")
	if err != nil {
		t.Fatal(err)
	}
	// One metadata commit, then the write.
	if out[iohandler.OutVersion] != int64(2) || commitInfo(t, uri, 1)["operation"] != "SET TBLPROPERTIES" {
		t.Fatalf("metadata %v, commit 1 %v", out, commitInfo(t, uri, 1))
	}
	tb, _ := deltalite.Open(ctx, uri)
	p := tb.Metadata().Configuration
	if p["delta.appendOnly"] != "true" || p["owner"] != "team" || p["delta.logRetentionDuration"] != "interval 10 days" {
		t.Fatalf("properties %v", p)
	}
	equalRows(t, tablerows.Read(t, uri), kvRows("1:a", "2:b")...)
	// The same configuration again commits no metadata.
	if out, err = writeKV(t, h, "a", md, "3:c"); err != nil || out[iohandler.OutVersion] != int64(3) {
		t.Fatalf("%v %v", out, err)
	}
	// A property that cannot change is refused before the write.
	_, err = writeKV(t, h, "a", map[string]string{"delta/mode": "append", "delta/table_configuration": `{"delta.columnMapping.mode": "name"}`}, "4:d")
	wantErr(t, err, "delta.columnMapping.mode", `asset "a"`)
	if version(t, uri) != 3 {
		t.Fatal("a refused configuration changed the table")
	}
}

type user struct {
	ID      int64     `delta:"id"`
	Name    string    `delta:"name"`
	Tags    []string  `delta:"tags"`
	Score   *float64  `delta:"score"`
	Created time.Time `delta:"created"`
}

func TestStructs(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	s := 1.5
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	in := []user{{ID: 1, Name: "a", Tags: []string{"x"}, Score: &s, Created: at}, {ID: 2, Name: "b", Created: at}}
	md := mustWrite(t, h, iohandler.OutputContext{Asset: "users"}, in)
	if md[iohandler.OutNumRows] != int64(2) {
		t.Fatalf("metadata %v", md)
	}
	out, err := iohandler.LoadInput[[]user](ctx, h, iohandler.InputContext{Asset: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 || out[0].ID+out[1].ID != 3 {
		t.Fatalf("read %+v", out)
	}
	for _, u := range out {
		if !u.Created.Equal(at) || (u.ID == 1 && (*u.Score != 1.5 || u.Tags[0] != "x")) || (u.ID == 2 && u.Score != nil) {
			t.Fatalf("read %+v", u)
		}
	}
	type userID struct {
		ID int64 `delta:"id"`
	}
	ptrs, err := iohandler.LoadInput[[]*userID](ctx, h, iohandler.InputContext{Asset: "users", Metadata: map[string]string{"delta/columns": `["id"]`}})
	if err != nil || len(ptrs) != 2 || ptrs[0].ID+ptrs[1].ID != 3 {
		t.Fatalf("%+v %v", ptrs, err)
	}
	// A projection without a field's column names the field.
	_, err = iohandler.LoadInput[[]user](ctx, h, iohandler.InputContext{Asset: "users", Metadata: map[string]string{"delta/columns": `["id"]`}})
	wantErr(t, err, `asset "users"`, "name")
}

// A write to an existing table whose properties the configuration leaves
// unchanged does not check them again: a table whose retentions were
// valid together (or that another engine made) takes writes from a handler
// that names only one of them.
func TestUnchangedTableConfigNotRechecked(t *testing.T) {
	dir := t.TempDir()
	both := newHandler(t, iohandler.Config{TableURI: dir, TableConfig: map[string]string{
		"delta.logRetentionDuration": "interval 2 days", "delta.deletedFileRetentionDuration": "interval 1 day"}})
	if _, err := writeKV(t, both, "a", nil, "1:a"); err != nil {
		t.Fatal(err)
	}
	one := newHandler(t, iohandler.Config{TableURI: dir, Mode: "append", TableConfig: map[string]string{"delta.logRetentionDuration": "interval 2 days"}})
	if _, err := writeKV(t, one, "a", nil, "2:b"); err != nil {
		t.Fatalf("append with unchanged table configuration: %v", err)
	}
	uri := one.AssetTableURI("a", nil)
	equalRows(t, tablerows.Read(t, uri), kvRows("1:a", "2:b")...)
	if version(t, uri) != 1 {
		t.Fatalf("version %d, want 1 (no metadata commit)", version(t, uri))
	}
}

// An append whose input lacks nullable table columns writes nulls in them,
// as Spark does (rivers, through delta-rs, refuses it); a missing column
// that cannot hold null is refused, naming it, and nothing is written.
func TestAppendFillsMissingNullableColumns(t *testing.T) {
	h := newHandler(t, iohandler.Config{Mode: "append"})
	uri := h.AssetTableURI("a", nil)
	rec := batch([]int64{1}, []string{"a"}, []string{"d1"})
	defer rec.Release()
	mustWrite(t, h, iohandler.OutputContext{Asset: "a"}, rec)
	type idOnly struct {
		ID *int64 `delta:"id"`
	}
	two := int64(2)
	md := mustWrite(t, h, iohandler.OutputContext{Asset: "a"}, []idOnly{{&two}})
	if md[iohandler.OutNumRows] != int64(1) {
		t.Fatalf("num_rows %v", md[iohandler.OutNumRows])
	}
	equalRows(t, tablerows.Read(t, uri), `day="d1", id=1, name="a"`, "day=null, id=2, name=null")

	type strict struct {
		ID   int64  `delta:"id"`
		Name string `delta:"name"`
	}
	mustWrite(t, h, iohandler.OutputContext{Asset: "s"}, []strict{{1, "a"}})
	_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "s"}, []idOnly{{&two}})
	wantErr(t, err, `column "name" is not nullable and missing`)
	if v := version(t, h.AssetTableURI("s", nil)); v != 0 {
		t.Fatalf("a refused append committed: version %d", v)
	}
}
