package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// isInternal reports whether an import path is one of the module's internal
// packages, which a user cannot import.
func isInternal(path string) bool {
	return strings.HasPrefix(path, module+"/") && slices.Contains(strings.Split(path, "/"), "internal")
}

// publicPackages are the module's packages a user may import: every package
// outside internal/ but the benchmarks (commands are left out by name).
func publicPackages(all []string) []string {
	var out []string
	for _, p := range all {
		rel := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
		if !isInternal(p) && rel != "cmd" && !strings.HasPrefix(rel, "cmd/") && !strings.HasPrefix(rel, "bench") {
			out = append(out, p)
		}
	}
	return out
}

// TestPublicAPINamesNoInternalType: an exported identifier of a public package
// (a function's parameters and results, a type's exported fields and methods,
// a variable's or constant's type) names no type of an internal package that a
// user cannot name, or WithPredicate(*expr.Bound) comes back. A type a public
// package re-exports by an alias (deltalite.Error = errs.Error) is public, and
// its own exported API is checked in turn.
func TestPublicAPINamesNoInternalType(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	// Export data of every package of the module and its dependencies, from
	// the build cache.
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Name,Export,Module", "./...")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v\n%s", err, stderr.String())
	}
	exports := map[string]string{}
	var mine []string
	for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
		var p struct {
			ImportPath, Name, Export string
			Module                   *struct{ Path string }
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == module && p.Name != "main" && p.Export != "" {
			mine = append(mine, p.ImportPath)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if f := exports[path]; f != "" {
			return os.Open(f)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	public := publicPackages(mine)
	if len(public) < 15 {
		t.Fatalf("found only %d public packages (%v): is go list rooted at the module?", len(public), public)
	}
	pkgs := map[string]*types.Package{}
	for _, p := range public {
		pkg, err := imp.Import(p)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[p] = pkg
	}
	// Internal types that a public package re-exports by an exported alias.
	reexported := map[*types.TypeName]bool{}
	for _, pkg := range pkgs {
		for _, name := range pkg.Scope().Names() {
			if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok && tn.Exported() && tn.IsAlias() {
				if n, ok := types.Unalias(tn.Type()).(*types.Named); ok && n.Obj().Pkg() != nil && isInternal(n.Obj().Pkg().Path()) {
					reexported[n.Obj()] = true
				}
			}
		}
	}
	w := &apiWalker{t: t, reexported: reexported, seen: map[types.Type]bool{}}
	for _, p := range public {
		pkg := pkgs[p]
		for _, name := range pkg.Scope().Names() {
			obj := pkg.Scope().Lookup(name)
			if !obj.Exported() {
				continue
			}
			where := pkg.Path() + "." + name
			if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
				w.declared(where, tn.Type())
				continue
			}
			w.walk(where, obj.Type())
		}
	}
	for tn := range reexported {
		w.declared(tn.Pkg().Path()+"."+tn.Name()+" (re-exported)", tn.Type())
	}
}

// apiWalker reports the internal types an exported API names.
type apiWalker struct {
	t          *testing.T
	reexported map[*types.TypeName]bool
	seen       map[types.Type]bool
}

// declared checks a named type's definition: its underlying type's exported
// fields or methods, and its exported methods.
func (w *apiWalker) declared(where string, typ types.Type) {
	n, ok := typ.(*types.Named)
	if !ok {
		return
	}
	w.walk(where, n.Underlying())
	for m := range n.Methods() {
		if m.Exported() {
			w.walk(where+"."+m.Name(), m.Type())
		}
	}
}

// walk checks the types a type expression names.
func (w *apiWalker) walk(where string, typ types.Type) {
	if w.seen[typ] {
		return
	}
	w.seen[typ] = true
	defer delete(w.seen, typ)
	switch t := typ.(type) {
	case *types.Alias:
		if t.Obj().Pkg() != nil && !isInternal(t.Obj().Pkg().Path()) {
			return // a public alias: checked where it is declared
		}
		w.walk(where, types.Unalias(t))
	case *types.Named:
		obj := t.Obj()
		if obj.Pkg() != nil && isInternal(obj.Pkg().Path()) && !w.reexported[t.Origin().Obj()] {
			w.t.Errorf("%s names %s.%s, a type of an internal package users cannot import: "+
				"keep it out of the public API (an option set through an internal hook, an opaque public type) or re-export it by an alias",
				where, obj.Pkg().Path(), obj.Name())
		}
		for a := range t.TypeArgs().Types() {
			w.walk(where, a)
		}
	case *types.Pointer:
		w.walk(where, t.Elem())
	case *types.Slice:
		w.walk(where, t.Elem())
	case *types.Array:
		w.walk(where, t.Elem())
	case *types.Map:
		w.walk(where, t.Key())
		w.walk(where, t.Elem())
	case *types.Chan:
		w.walk(where, t.Elem())
	case *types.Signature:
		for v := range t.Params().Variables() {
			w.walk(where, v.Type())
		}
		for v := range t.Results().Variables() {
			w.walk(where, v.Type())
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() {
				w.walk(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				w.walk(where+"."+m.Name(), m.Type())
			}
		}
		for e := range t.EmbeddedTypes() {
			w.walk(where, e)
		}
	}
}

// TestIntegrationsUsePublicAPI: the integration modules are versioned on their
// own, so their code and their tests import this module's public packages only
// (test rigs are public under testkit/).
func TestIntegrationsUsePublicAPI(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mods, err := filepath.Glob(filepath.Join(root, "integrations", "*", "go.mod"))
	if err != nil || len(mods) == 0 {
		t.Fatalf("no integration modules found: %v", err)
	}
	checked := 0
	for _, mod := range mods {
		err := filepath.WalkDir(filepath.Dir(mod), func(file string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(file, ".go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			checked++
			rel, _ := filepath.Rel(root, file)
			for _, s := range f.Imports {
				// The module's own internal packages are its business.
				if p, _ := strconv.Unquote(s.Path.Value); isInternal(p) && !strings.HasPrefix(p, module+"/integrations/") {
					t.Errorf("%s imports %s: an integration module uses the public API of %s only (errors: deltalite.NewError, WrapError and the ErrXxx kinds; output: cliout)",
						filepath.ToSlash(rel), p, module)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 10 {
		t.Fatalf("checked only %d files", checked)
	}
}
