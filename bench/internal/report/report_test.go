package report

import (
	"flag"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

func TestEveryRunTable(t *testing.T) {
	var b strings.Builder
	rt := EveryRun(&b, 2, []Column{Text("case"), Number("rows")}, []Column{Text("content (rows, hash)")})
	m := runproc.Measured{OpS: 1, WallS: 1.5, UserS: 2.125, SysS: 0.25, MaxRSSKiB: 3 << 20, LoadBefore: 0.5, LoadAfter: 1.25}
	rt.Row([]string{"plain", "10"}, 1, 2, m, Content("", (&Checksum{Rows: 10, Hash: "h"}).Fields()...))
	rt.Row([]string{"plain", "10"}, 2, 1, runproc.Measured{}, Content("exit status 1", (*Checksum)(nil).Fields()...))
	rt.Row([]string{"plain", "10"}, 3, 1, runproc.Measured{}, Content(""))
	want := "\n**Every run**\n\n" +
		"| case | rows | rep | order | op (s) | wall (s) | user (s) | sys (s) | peak RSS (MiB) | load before / after | content (rows, hash) |\n" +
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n" +
		"| plain | 10 | 1 | 2 | 1.00 | 1.50 | 2.12 | 0.25 | 3072 | 0.5 / 1.2 | 10, h |\n" +
		"| plain | 10 | 2 | 1 | 0.00 | 0.00 | 0.00 | 0.00 | 0 | 0.0 / 0.0 | FAILED: exit status 1 |\n" +
		"| plain | 10 | 3 | 1 | 0.00 | 0.00 | 0.00 | 0.00 | 0 | 0.0 / 0.0 | — |\n"
	if b.String() != want {
		t.Errorf("every-run table:\n%s\nwant\n%s", b.String(), want)
	}
}

func TestProblemsRatiosAndVerdicts(t *testing.T) {
	var b strings.Builder
	Problems(&b, nil)
	if b.Len() != 0 {
		t.Errorf("no problems rendered as %q", b.String())
	}
	Problems(&b, []string{"a rep 1: boom", "b"})
	if want := "\nProblems:\n\n- a rep 1: boom\n- b\n"; b.String() != want {
		t.Errorf("problems %q, want %q", b.String(), want)
	}
	for _, c := range []struct{ got, want string }{
		{Ratio(1, 4), "0.25"}, {Ratio(0, 4), "n/a"}, {Ratio(1, 0), "n/a"},
		{Judge(1, 2, 0.5), "0.50 — met"}, {Judge(3, 2, 1), "1.50 — **not met**"}, {Judge(0, 2, 1), "not measured"},
		{Verdict(true), "met"}, {Verdict(false), "**not met**"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestFlagsRegister: every harness gets the common flags with its own
// -reps and -work defaults, and -out and -json default into WORK.
func TestFlagsRegister(t *testing.T) {
	var f Flags
	fs := flag.NewFlagSet("h", flag.ContinueOnError)
	f.Register(fs, 3, "bench/out/h", "the tables")
	for name, want := range map[string]string{"reps": "3", "work": "bench/out/h", "python": ".venv/bin/python",
		"checksum": "bench/py/checksum.py", "out": "", "json": "", "report-only": "false"} {
		fl := fs.Lookup(name)
		if fl == nil || fl.DefValue != want {
			t.Errorf("-%s: %+v, want default %q", name, fl, want)
		}
	}
	work := filepath.Join(t.TempDir(), "w")
	if err := fs.Parse([]string{"-reps", "1", "-work", work, "-json", "r.json", "-report-only"}); err != nil {
		t.Fatal(err)
	}
	if err := f.Init(); err != nil {
		t.Fatal(err)
	}
	if f.Reps != 1 || !f.ReportOnly || f.Outputs.JSON != "r.json" || f.Outputs.Markdown != filepath.Join(work, "results.md") {
		t.Errorf("parsed %+v", f)
	}
}

// TestHarnessesShareTheReport keeps the harnesses' common parts here:
// none of them defines the common flags, the ratio and verdict helpers,
// its own log, a checksum of its own or writes the every-run table's
// heading or the problems list itself.
func TestHarnessesShareTheReport(t *testing.T) {
	common := []string{"reps", "work", "python", "checksum", "out", "json", "report-only"}
	ownFuncs := []string{"ratio", "judge", "verdict", "logf", "fail", "provenance"}
	for _, h := range []string{"upsertbench", "maintbench", "writebench"} {
		dir := filepath.Join("..", "..", "cmd", h)
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no Go files (%v)", dir, err)
		}
		fset := token.NewFileSet()
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(file, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl:
					if n.Recv == nil && slices.Contains(ownFuncs, n.Name.Name) {
						t.Errorf("%s: %s defines %s: use bench/internal/report's", fset.Position(n.Pos()), h, n.Name.Name)
					}
				case *ast.TypeSpec:
					if st, ok := n.Type.(*ast.StructType); ok && n.Name.Name == "Checksum" && !embeds(st, "report", "Checksum") {
						t.Errorf("%s: %s's Checksum does not embed report.Checksum", fset.Position(n.Pos()), h)
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || len(n.Args) < 2 {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == "flag" && strings.HasSuffix(sel.Sel.Name, "Var") {
						if lit, ok := n.Args[1].(*ast.BasicLit); ok {
							if s, _ := strconv.Unquote(lit.Value); slices.Contains(common, s) {
								t.Errorf("%s: %s defines -%s: register report.Flags", fset.Position(n.Pos()), h, s)
							}
						}
					}
				case *ast.BasicLit:
					if s, _ := strconv.Unquote(n.Value); strings.Contains(s, "**Every run**") || strings.Contains(s, "Problems:") {
						t.Errorf("%s: %s writes %q itself: use report.EveryRun / report.Problems", fset.Position(n.Pos()), h, s[:min(len(s), 30)])
					}
				}
				return true
			})
		}
	}
}

// embeds says whether st embeds pkg.name.
func embeds(st *ast.StructType, pkg, name string) bool {
	for _, f := range st.Fields.List {
		if sel, ok := f.Type.(*ast.SelectorExpr); ok && len(f.Names) == 0 {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == pkg && sel.Sel.Name == name {
				return true
			}
		}
	}
	return false
}
