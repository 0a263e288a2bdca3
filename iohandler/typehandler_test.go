package iohandler_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/iohandler"
)

// frame stands for a value of another engine (a Spark or DuckDB frame).
type frame struct{ rows int64 }

// fakeHandler records the requests it is handed.
type fakeHandler struct {
	write *iohandler.WriteRequest
	read  *iohandler.ReadRequest
}

func (f *fakeHandler) Handles(t reflect.Type) bool { return t == reflect.TypeFor[*frame]() }
func (f *fakeHandler) TypeNames() []string         { return []string{"*frame"} }
func (f *fakeHandler) Write(_ context.Context, req *iohandler.WriteRequest, v any) (iohandler.Metadata, error) {
	f.write = req
	return iohandler.Metadata{iohandler.OutNumRows: v.(*frame).rows}, nil
}
func (f *fakeHandler) Read(_ context.Context, req *iohandler.ReadRequest, _ reflect.Type) (any, error) {
	f.read = req
	return &frame{rows: 7}, nil
}

// A registered type handler takes its type, gets the write and read
// resolved (partition scope, replace-where, merge scoping, properties),
// and its metadata is completed by the handler.
func TestRegisteredTypeHandler(t *testing.T) {
	fake := &fakeHandler{}
	iohandler.RegisterTypeHandler(fake)
	h := newHandler(t, iohandler.Config{MergeConfig: json.RawMessage(`{"merge_type": "replace_delete_unmatched", "predicate": "s.id = t.id"}`),
		StorageOptions: map[string]string{"local_fsync": "log"}, WriterProperties: &iohandler.WriterProperties{TargetFileSize: 1 << 20}})
	// The table exists (written by the built-in handler) so the predicate
	// is typed against it.
	if _, err := keyed(t, h, nil, []string{"d1"}, "1:a:d1"); err != nil {
		t.Fatal(err)
	}
	md := map[string]string{"delta/partition_expr": "day", "delta/commit_properties": `{"custom_metadata": {"a": "b"}}`}
	out, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev", Metadata: md, Partitions: days, PartitionKeys: []string{"d2"}}, &frame{rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	w := fake.write
	if w.Mode != "overwrite" || w.ReplaceWhere != "day = 'd2'" || w.PartitionPredicate != "day = 'd2'" || len(w.PartitionBy) != 1 ||
		w.Table == nil || w.StorageOptions["local_fsync"] != "log" || w.Writer.TargetFileSize != 1<<20 || w.Commit.CustomMetadata["a"] != "b" ||
		w.TableURI != h.AssetTableURI("ev", nil) {
		t.Fatalf("write request %+v", w)
	}
	if out[iohandler.OutNumRows] != int64(3) || out[iohandler.OutVersion] != int64(0) || out[iohandler.OutMode] != "overwrite" {
		t.Fatalf("metadata %v", out)
	}
	md["delta/mode"] = "merge"
	if _, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev", Metadata: md, Partitions: days, PartitionKeys: []string{"d2"}}, &frame{}); err != nil {
		t.Fatal(err)
	}
	m := fake.write.Merge
	if m == nil || m.Predicate != "(s.id = t.id) AND (t.day = 'd2')" || len(m.Clauses) != 2 || m.Clauses[1].Predicate != "t.day = 'd2'" ||
		m.CommitMetadata["a"] != "b" || m.TargetFileSize != 1<<20 {
		t.Fatalf("merge %+v", m)
	}
	md = map[string]string{"delta/partition_expr": "day", "delta/columns": `["id"]`, "delta/version": "0"}
	v, err := iohandler.LoadInput[*frame](ctx, h, iohandler.InputContext{Asset: "ev", Metadata: md, Partitions: days, PartitionKeys: []string{"d1"}})
	if err != nil || v.rows != 7 {
		t.Fatalf("%v %v", v, err)
	}
	r := fake.read
	if r.Predicate != "day = 'd1'" || strings.Join(r.Columns, ",") != "id" || *r.Version != 0 || r.Table == nil || r.Table.Version() != 0 {
		t.Fatalf("read request %+v", r)
	}
	// The unsupported-type error lists the registered handler's types too.
	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "ev"}, 42)
	wantErr(t, err, "*frame", "arrow.Table")
}
