package schema

import (
	"strings"
	"testing"
)

// A schema naming a key twice is refused: which of the two a reader keeps
// is not defined.
func TestParseDuplicateKey(t *testing.T) {
	_, err := Parse(`{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"nullable":false,"metadata":{}}]}`)
	if err == nil || !strings.Contains(err.Error(), `duplicate key "fields[0].nullable"`) {
		t.Fatalf("got %v", err)
	}
}
