package sparkdelta_test

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/integrations/spark/internal/sparktest"
	"github.com/deltalite-go/deltalite/integrations/spark/sparkdelta"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestIOHandlerSparkPath runs a keyed asset whose value is a Spark
// DataFrame through the IO handler: each key's overwrite replaces its
// partition only, a merge is scoped to its key's partition, a load reads
// one key's rows through Spark, and create_or_replace is refused.
func TestIOHandlerSparkPath(t *testing.T) {
	s := sparktest.Session(t)
	iohandler.RegisterTypeHandler(sparkdelta.NewTypeHandler(s))
	ctx := context.Background()
	h, err := iohandler.New(iohandler.Config{TableURI: t.TempDir(), Mode: "overwrite",
		MergeConfig: json.RawMessage(`{"merge_type": "replace_delete_unmatched", "predicate": "s.id = t.id"}`)})
	if err != nil {
		t.Fatal(err)
	}
	def := partitions.Static("a", "b")
	out := func(key string, md map[string]string) iohandler.OutputContext {
		m := map[string]string{"delta/partition_expr": "p"}
		for k, v := range md {
			m[k] = v
		}
		return iohandler.OutputContext{Asset: "orders", Metadata: m, Partitions: def, PartitionKeys: []string{key}}
	}
	uri := h.AssetTableURI("orders", nil)
	for _, w := range []struct {
		key  string
		rows []row
	}{{"a", []row{{1, "a", "x"}, {2, "a", "y"}}}, {"b", []row{{3, "b", "z"}}}} {
		md, err := h.HandleOutput(ctx, out(w.key, nil), frame(t, s, w.rows...))
		if err != nil {
			t.Fatalf("key %s: %v", w.key, err)
		}
		if md[iohandler.OutNumRows] != int64(len(w.rows)) {
			t.Errorf("key %s: num_rows %v, want %d", w.key, md[iohandler.OutNumRows], len(w.rows))
		}
	}
	tbl, got := scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=1, p="a", v="x"`, `id=2, p="a", v="y"`, `id=3, p="b", v="z"`})
	filesB := filesOf(tbl, "b")
	if _, err := h.HandleOutput(ctx, out("a", nil), frame(t, s, row{1, "a", "x"}, row{2, "a", "y"})); err != nil {
		t.Fatal(err)
	}
	tbl, _ = scanned(t, uri)
	if after := filesOf(tbl, "b"); !slices.Equal(after, filesB) {
		t.Errorf("partition b's files changed by key a's overwrite:\nbefore %v\nafter  %v", filesB, after)
	}

	// replace_delete_unmatched scoped to key a: 2 is updated, 1 deleted, b kept.
	md, err := h.HandleOutput(ctx, out("a", map[string]string{"delta/mode": "merge"}), frame(t, s, row{2, "a", "Y"}))
	if err != nil {
		t.Fatal(err)
	}
	if md[iohandler.OutNumRows] != int64(1) || !strings.Contains(md[iohandler.OutMergeStats].(string), `"numTargetRowsDeleted":"1"`) {
		t.Errorf("merge metadata %v", md)
	}
	// Delta may rewrite other partitions' files in a merge with a NOT
	// MATCHED BY SOURCE clause; their rows stay.
	_, got = scanned(t, uri)
	arrowrows.Diff(t, got, []string{`id=2, p="a", v="Y"`, `id=3, p="b", v="z"`})

	v, err := h.Load(ctx, iohandler.InputContext{Asset: "orders", Metadata: map[string]string{"delta/partition_expr": "p", "delta/columns": `["id", "v"]`},
		Partitions: def, PartitionKeys: []string{"b"}}, reflect.TypeFor[sql.DataFrame]())
	if err != nil {
		t.Fatal(err)
	}
	arrowrows.Diff(t, sparkRows(t, v.(sql.DataFrame)), []string{`id=3, v="z"`})

	_, err = h.HandleOutput(ctx, iohandler.OutputContext{Asset: "flat", Metadata: map[string]string{"delta/mode": "create_or_replace"}}, frame(t, s, row{9, "a", "no"}))
	if err == nil || !strings.Contains(err.Error(), "Spark does not support the write mode create_or_replace") {
		t.Errorf("create_or_replace: %v", err)
	}
	if ok, err := deltalite.IsDeltaTable(ctx, h.AssetTableURI("flat", nil)); ok || err != nil {
		t.Errorf("a refused create_or_replace left a table (%v, %v)", ok, err)
	}
}
