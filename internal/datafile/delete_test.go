package datafile

import (
	"context"
	"errors"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// DeleteAdded removes exactly the files of the adds it is given, even
// under a canceled context, and ignores paths outside the table.
func TestDeleteAdded(t *testing.T) {
	st := storage.NewMemory()
	sc := mustSchema(t, fields("id long", "day string"))
	rec := batch(t, memory.DefaultAllocator, sc, `[{"id":1,"day":"a"},{"id":2,"day":"b"}]`)
	defer rec.Release()
	adds := writeAll(t, st, Options{Schema: sc, PartitionColumns: []string{"day"}}, rec)
	if len(adds) != 2 {
		t.Fatalf("%d adds", len(adds))
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	outside := &protocol.Add{Path: "s3://elsewhere/t/x.parquet"}
	DeleteAdded(ctx, st, []*protocol.Add{adds[0], outside})
	key0, _ := protocol.ObjectKey(st.URL(), adds[0].Path)
	key1, _ := protocol.ObjectKey(st.URL(), adds[1].Path)
	if _, err := st.Head(context.Background(), key0); !errors.Is(err, storage.ErrNotExist) {
		t.Errorf("%s still there: %v", key0, err)
	}
	if _, err := st.Head(context.Background(), key1); err != nil {
		t.Errorf("%s was not given, yet: %v", key1, err)
	}
}
