// Package corpus locates the conformance tables (../shared/conformance:
// real Delta tables from Spark, delta-rs and Databricks) for tests. It is
// a leaf so that any package's tests can use it.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Root finds ../shared/conformance from the module root or any package
// directory below it, or $DELTALITE_CONFORMANCE; "" when absent.
func Root() string {
	if r := os.Getenv("DELTALITE_CONFORMANCE"); r != "" {
		return r
	}
	dir, _ := os.Getwd()
	for range 6 {
		p := filepath.Join(dir, "..", "shared", "conformance")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return filepath.Clean(p)
		}
		dir = filepath.Dir(dir)
	}
	return ""
}

// Path returns the path of a corpus table, skipping the test when the
// corpus is absent.
func Path(t testing.TB, rel string) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Skip("conformance tables not found (../shared/conformance; set DELTALITE_CONFORMANCE)")
	}
	return filepath.Join(root, rel)
}
