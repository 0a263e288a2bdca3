// Package lint holds tests that keep the code base's structure true: the layer
// map of docs/architecture.md is checked against every import here.
package lint

import (
	"bufio"
	"go/build"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/deltalite-go/deltalite"

// layerMap reads the layer map, the first fenced block of docs/architecture.md:
// one row per line, top to bottom, each row's packages separated by two or more
// spaces and followed by what the row is for. It returns each package (or
// "prefix/..." pattern) with its row, 0 being the top.
func layerMap(t *testing.T, doc string) map[string]int {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows := map[string]int{}
	sep := regexp.MustCompile(`\s{2,}`)
	in, row := false, 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			if in {
				break
			}
			in = true
			continue
		}
		if !in || strings.TrimSpace(line) == "" {
			continue
		}
		fields := sep.Split(strings.TrimSpace(line), -1)
		if len(fields) < 2 {
			t.Fatalf("%s: layer map row %q: want packages, two spaces, then what the row is for", doc, line)
		}
		for _, p := range fields[:len(fields)-1] {
			if p == "deltalite (root)" {
				p = "."
			}
			if prev, dup := rows[p]; dup {
				t.Fatalf("%s: %s is on rows %d and %d of the layer map", doc, p, prev+1, row+1)
			}
			rows[p] = row
		}
		row++
	}
	if row == 0 {
		t.Fatalf("%s: no layer map (a fenced block of rows) found", doc)
	}
	return rows
}

// rowOf finds a package's row and the map entry naming it: its own entry, else
// the nearest "prefix/..." one.
func rowOf(rows map[string]int, pkg string) (int, string, bool) {
	if r, ok := rows[pkg]; ok {
		return r, pkg, true
	}
	for p := pkg; p != "." && p != "/"; p = path.Dir(p) {
		if r, ok := rows[p+"/..."]; ok {
			return r, p + "/...", true
		}
	}
	return 0, "", false
}

// TestLayerMap holds the code to docs/architecture.md's layer map: every
// package of the module has a row, and its non-test imports of the module's
// packages are all on rows below its own (siblings on one row are independent).
// Test files may import anything: rigs and peers sit on the top row, and
// packages under one "prefix/..." entry may import each other.
func TestLayerMap(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	rows := layerMap(t, filepath.Join(root, "docs", "architecture.md"))
	checked := 0
	err = filepath.WalkDir(root, func(dir string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		name := d.Name()
		if dir != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil && dir != root {
			return filepath.SkipDir // a module of its own (integrations/...)
		}
		bp, err := build.Default.ImportDir(dir, 0)
		if err != nil || len(bp.GoFiles) == 0 {
			return nil // no package here, or tests only
		}
		rel, _ := filepath.Rel(root, dir)
		pkg := filepath.ToSlash(rel)
		mine, entry, ok := rowOf(rows, pkg)
		if !ok {
			t.Errorf("%s has no row in docs/architecture.md's layer map: add it to the row of what it is for", pkg)
			return nil
		}
		checked++
		for _, imp := range bp.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(imp, module), "/")
			if dep == "" {
				dep = "."
			}
			theirs, theirEntry, ok := rowOf(rows, dep)
			switch {
			case !ok:
				// reported when the walk reaches it
			case theirEntry == entry && strings.HasSuffix(entry, "/..."):
				// within one tree of rigs: its own structure
			case theirs <= mine:
				t.Errorf("%s (layer map row %d) imports %s (row %d): a package imports only rows below its own; "+
					"move the shared code down or fix the map", pkg, mine+1, dep, theirs+1)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 40 {
		t.Fatalf("checked only %d packages: is the walk rooted at the module?", checked)
	}
}

// TestLayerMapNamesExistingPackages keeps the map free of packages that are gone.
func TestLayerMapNamesExistingPackages(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	var gone []string
	for p := range layerMap(t, filepath.Join(root, "docs", "architecture.md")) {
		dir := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(p, "/...")))
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			gone = append(gone, p)
		}
	}
	sort.Strings(gone)
	if len(gone) > 0 {
		t.Errorf("docs/architecture.md's layer map names packages that do not exist: %v", gone)
	}
}

// TestLimitsStandsAlone: limits is imported by every layer and by metrics, so
// it imports the standard library only (Prometheus included stays in metrics).
func TestLimitsStandsAlone(t *testing.T) {
	bp, err := build.Default.ImportDir(filepath.Join("..", "..", "limits"), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range bp.Imports {
		if first, _, _ := strings.Cut(imp, "/"); strings.Contains(first, ".") {
			t.Errorf("limits imports %s: it must import the standard library only", imp)
		}
	}
}
