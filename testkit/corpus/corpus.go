// Package corpus locates the conformance tables (testdata/conformance:
// real Delta tables from Spark, delta-rs and Databricks, kept in the
// repository so a fresh clone runs every conformance test). It is a leaf so
// that any package's tests, the integration modules' included, can use it.
package corpus

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir is the corpus folder relative to the repository root.
const Dir = "testdata/conformance"

// marker is a file every copy of the corpus has: a folder of that name
// without it is not the corpus.
const marker = "README.md"

// Root finds testdata/conformance from the repository root or any folder
// below it (the integration modules' packages included); "" when absent.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		p := filepath.Join(dir, Dir)
		if _, err := os.Stat(filepath.Join(p, marker)); err == nil {
			return p
		}
		up := filepath.Dir(dir)
		if up == dir {
			return ""
		}
		dir = up
	}
}

// MustRoot returns the corpus folder, failing the test when it is absent:
// the corpus is part of the repository, so a missing one is a broken
// checkout, never a reason to skip.
func MustRoot(t testing.TB) string {
	t.Helper()
	root := Root()
	if root == "" {
		t.Fatalf("conformance tables not found: %s is part of the repository; restore it with git checkout -- %s", Dir, Dir)
	}
	return root
}

// Path returns the path of a corpus table (rel is relative to the corpus
// root), failing the test when the corpus or the table is absent.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(MustRoot(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("conformance table %s: %v", filepath.Join(Dir, rel), err)
	}
	return p
}
