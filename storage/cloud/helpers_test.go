package cloud

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/storage/storetest"
)

// testMultipart keeps the large-upload test multipart: 40 MiB goes up in
// 5 MiB parts once past 8 MiB.
var testMultipart = map[string]string{
	"MULTIPART_THRESHOLD_BYTES": "8388608",
	"MULTIPART_PART_SIZE_BYTES": "5242880",
}

func uniqueName(prefix string) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// withOptions overrides base with extra, matching keys case-insensitively
// as storage.Open does.
func withOptions(base map[string]string, extra ...map[string]string) map[string]string {
	out := maps.Clone(base)
	for _, e := range extra {
		for k, v := range e {
			for old := range out {
				if strings.EqualFold(old, k) {
					delete(out, old)
				}
			}
			out[k] = v
		}
	}
	return out
}

func openStore(t *testing.T, uri string, opts map[string]string) storage.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := storage.Open(ctx, uri, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", uri, err)
	}
	return s
}

// runConformance runs the store conformance suite on fresh prefixes under
// root ("s3://bucket/"), opened with opts and testMultipart; deleteKeys is
// storetest.Harness.DeleteKeys (0 for its default).
func runConformance(t *testing.T, root string, opts map[string]string, deleteKeys int) {
	opts = withOptions(opts, testMultipart)
	storetest.Run(t, storetest.Harness{
		New: func(t *testing.T) storage.Store {
			return openStore(t, root+uniqueName("table-"), opts)
		},
		Reopen: func(t *testing.T, s storage.Store) (string, map[string]string) {
			return s.URL(), opts
		},
		DeleteKeys: deleteKeys,
	})
}
