package checkpoint

import (
	"context"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
)

func BenchmarkReadSmallCheckpoint(b *testing.B) {
	st, root := table(b, "dat/with_checkpoint/delta")
	parts := checkpointParts(b, root, 2)
	b.ReportAllocs()
	for b.Loop() {
		if err := Read(context.Background(), st, parts, func(protocol.Action) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}
