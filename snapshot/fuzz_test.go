package snapshot

import (
	"context"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// FuzzLogListing feeds arbitrary _delta_log listings (one file name per
// line, "!" before a name marks a _last_checkpoint pointing at it) to the
// segment builder: it must never panic, and any segment it returns must be
// contiguous from its checkpoint to its version.
func FuzzLogListing(f *testing.F) {
	for _, seed := range []string{
		"00000000000000000000.json\n00000000000000000001.json",
		"00000000000000000000.json\n00000000000000000002.json",
		"00000000000000000010.checkpoint.parquet\n00000000000000000011.json\n!10",
		"00000000000000000005.checkpoint.0000000001.0000000002.parquet\n00000000000000000005.checkpoint.0000000002.0000000002.parquet\n00000000000000000006.json",
		"00000000000000000005.checkpoint.0000000001.0000000002.parquet\n00000000000000000006.json",
		"00000000000000000003.checkpoint.80a083e8-7026-4e79-81be-64bd76c43a11.json\n00000000000000000004.json\n!99",
		".00000000000000000000.json.crc\n00000000000000000000.crc\n_last_checkpoint",
		"00000000000000009999.json\n00000000000000000000.json",
		"",
	} {
		f.Add(seed, int64(-1))
	}
	f.Fuzz(func(t *testing.T, listing string, target int64) {
		ctx := context.Background()
		st := storage.NewMemory()
		for _, name := range strings.Split(listing, "\n") {
			if v, ok := strings.CutPrefix(name, "!"); ok {
				_ = st.PutIfAbsent(ctx, protocol.LastCheckpointKey, []byte(`{"version":`+v+`,"size":1}`))
				continue
			}
			if name == "" || strings.ContainsAny(name, "/\x00") {
				continue
			}
			_ = st.PutIfAbsent(ctx, protocol.LogDir+name, []byte("{}"))
		}
		seg, err := buildSegment(ctx, st, target%1000)
		if err != nil {
			return
		}
		next := seg.checkpointVersion + 1
		for _, c := range seg.commits {
			f := protocol.ParseLogFile(c.Key)
			if f.Kind != protocol.CommitFile || f.Version != next {
				t.Fatalf("segment %v: commit %s out of order (want version %d)", seg, c.Key, next)
			}
			next++
		}
		if next-1 != seg.version {
			t.Fatalf("segment %v ends at %d", seg, next-1)
		}
	})
}
