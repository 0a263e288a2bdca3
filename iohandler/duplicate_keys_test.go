package iohandler_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/deltalite-go/deltalite/iohandler"
)

// A key given twice in the handler config or in a metadata JSON value is
// refused naming it: JSON decoders would keep the last one silently.
func TestDuplicateKeysRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "h.json")
	if err := os.WriteFile(p, []byte(`{"table_uri": "/d", "merge_config": {"merge_type": "upsert", "predicate": "s.id = t.id", "merge_type": "custom"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := iohandler.LoadConfig(p)
	wantErr(t, err, `duplicate key "merge_config.merge_type"`)

	h := newHandler(t, iohandler.Config{})
	rec := batch([]int64{1}, []string{"a"}, []string{"x"})
	defer rec.Release()
	for key, value := range map[string]string{
		iohandler.KeyTableConfiguration: `{"delta.appendOnly": "true", "delta.appendOnly": "false"}`,
		iohandler.KeyCommitProperties:   `{"max_commit_retries": 1, "max_commit_retries": 2}`,
		iohandler.KeyPartitionExpr:      `{"date": "d", "date": "e"}`,
	} {
		_, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "a", Metadata: map[string]string{key: value}}, rec)
		wantErr(t, err, `asset "a"`, key, "duplicate key")
	}
	if _, err := os.Stat(h.AssetTableURI("a", nil)); !os.IsNotExist(err) {
		t.Fatalf("a refused write left %v", err)
	}
}
