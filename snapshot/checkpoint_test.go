package snapshot

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// A sidecar that the checkpoint names but that is missing makes the
// checkpoint corrupt, named in the error.
func TestReadCheckpointMissingSidecar(t *testing.T) {
	st := copyTable(t, "kernel-rs/v2-classic-checkpoint-parquet", nil)
	ctx := context.Background()
	sidecars, err := storage.Collect(ctx, st, "_delta_log/_sidecars/", "")
	if err != nil || len(sidecars) == 0 {
		t.Fatalf("sidecars %v, %v", sidecars, err)
	}
	for _, o := range sidecars {
		if err := st.Delete(ctx, o.Key); err != nil {
			t.Fatal(err)
		}
	}
	parts := []storage.ObjectInfo{{Key: protocol.CheckpointKey(1)}}
	err = readCheckpoint(ctx, st, parts, func(protocol.Action) error { return nil })
	if !errors.Is(err, errs.ErrCorruptTable) || !strings.Contains(err.Error(), "00000000000000000001.checkpoint.parquet") {
		t.Fatalf("want a corrupt-table error naming the checkpoint, got %v", err)
	}
}

func TestReadCheckpointMissingPart(t *testing.T) {
	st := storage.NewMemory()
	err := readCheckpoint(context.Background(), st, []storage.ObjectInfo{{Key: protocol.CheckpointKey(3)}}, func(protocol.Action) error { return nil })
	if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "00000000000000000003.checkpoint.parquet") {
		t.Fatalf("got %v", err)
	}
}

// Sidecar actions are read through: the v2 table's file actions all come
// from its sidecars, none from the checkpoint file itself.
func TestReadCheckpointSidecars(t *testing.T) {
	st := copyTable(t, "kernel-rs/v2-classic-checkpoint-parquet", nil)
	adds := 0
	err := readCheckpoint(context.Background(), st, []storage.ObjectInfo{{Key: protocol.CheckpointKey(1)}}, func(a protocol.Action) error {
		if a.Sidecar != nil {
			t.Errorf("sidecar action passed on: %+v", a.Sidecar)
		}
		if a.Add != nil {
			adds++
		}
		return nil
	})
	if err != nil || adds == 0 {
		t.Fatalf("adds %d, %v", adds, err)
	}
}
