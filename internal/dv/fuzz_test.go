package dv

import (
	"errors"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// FuzzDecode: Decode never panics, fails only with a corrupt-table error,
// and what it accepts survives Encode unchanged. The seed corpus in
// testdata/fuzz/FuzzDecode holds real DV payloads from Spark, delta-rs and
// Databricks tables plus every container kind.
func FuzzDecode(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Decode(data)
		if err != nil {
			if !errors.Is(err, errs.ErrCorruptTable) {
				t.Fatalf("error of the wrong kind: %v", err)
			}
			return
		}
		back, err := Decode(Encode(b))
		if err != nil {
			t.Fatalf("re-encoded bitmap does not decode: %v", err)
		}
		if !back.Equal(b) {
			t.Fatalf("round trip changed %d rows into %d", b.Cardinality(), back.Cardinality())
		}
	})
}
