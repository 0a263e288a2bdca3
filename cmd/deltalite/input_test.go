package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mustFail runs the CLI, expects an error and returns its text.
func mustFail(t *testing.T, args ...string) string {
	t.Helper()
	out, err := run(t, args...)
	if err == nil {
		t.Fatalf("deltalite %s succeeded:\n%s", strings.Join(args, " "), out)
	}
	return err.Error()
}

func TestCLIUnknownFlagSuggestsHelp(t *testing.T) {
	msg := mustFail(t, "write", t.TempDir(), "--bogus", "x")
	if !strings.Contains(msg, "unknown flag: --bogus") || !strings.Contains(msg, "see deltalite write --help") {
		t.Fatalf("unknown flag: %q", msg)
	}
}

func TestCLIScanOfAFile(t *testing.T) {
	f := writeFile(t, "data.csv", "id\n1\n")
	msg := mustFail(t, "scan", f)
	if !strings.HasPrefix(msg, "table not found") {
		t.Fatalf("scan of a file: %q", msg)
	}
	// nothing was created next to or inside it
	if ents, _ := os.ReadDir(filepath.Dir(f)); len(ents) != 1 {
		t.Fatalf("scan of a file changed its folder: %v", ents)
	}
}

// listTree names every file under dir, to show a failed command changed
// nothing on disk.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// TestCLINDJSONLateKey: a key first seen after the first MiB is a column
// like any other, and refused like any other by an existing table.
func TestCLINDJSONLateKey(t *testing.T) {
	var b strings.Builder
	for i := range 30000 {
		fmt.Fprintf(&b, `{"id":%d,"name":"%s"}`+"\n", i, strings.Repeat("x", 40))
	}
	b.WriteString(`{"id":30000,"late":"S"}` + "\n")
	late := writeFile(t, "late.ndjson", b.String())
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "write", table, "--input", late)
	out := mustRun(t, "scan", table, "--format", "csv")
	if !strings.HasPrefix(out, "id,name,late\n") || !strings.HasSuffix(out, "\n30000,,S\n") {
		t.Fatalf("the late key is lost: %s ... %s", out[:40], out[len(out)-100:])
	}

	// An existing table without the key refuses it wherever it sits.
	early := writeFile(t, "early.ndjson", `{"id":1,"late":"S"}`+"\n"+`{"id":2,"name":"n"}`+"\n")
	for _, in := range []string{late, early} {
		other := filepath.Join(t.TempDir(), "t")
		mustRun(t, "write", other, "--input", writeFile(t, "first.ndjson", `{"id":0,"name":"a"}`+"\n"))
		before := listTree(t, other)
		msg := mustFail(t, "write", other, "--input", in)
		if !strings.Contains(msg, `"late"`) || !strings.Contains(msg, "--schema-mode merge") {
			t.Errorf("%s: %q, want the column and the flag named", filepath.Base(in), msg)
		}
		if after := listTree(t, other); len(after) != len(before) {
			t.Errorf("%s: a refused write changed the table: %v -> %v", filepath.Base(in), before, after)
		}
	}
}

// TestCLINDJSONKeyOrder: a new table's columns follow the file's first-seen
// key order, which Spark's positional inserts depend on.
func TestCLINDJSONKeyOrder(t *testing.T) {
	in := writeFile(t, "order.ndjson", `{"zeta":1,"alpha":2,"mid":3,"beta":4}`+"\n"+`{"alpha":5,"omega":6,"gamma":7,"kappa":8}`+"\n")
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "write", table, "--input", in)
	out := mustRun(t, "scan", table, "--format", "csv")
	if header := strings.SplitN(out, "\n", 2)[0]; header != "zeta,alpha,mid,beta,omega,gamma,kappa" {
		t.Fatalf("column order %q", header)
	}
}

// TestCLIInputTypes: inference sees every row, and an existing table's
// schema decides how input values parse.
func TestCLIInputTypes(t *testing.T) {
	dir := t.TempDir()
	// Integers beyond a long are decimal(38,0), not doubles.
	big := filepath.Join(dir, "big")
	mustRun(t, "write", big, "--input", writeFile(t, "big.ndjson", `{"n":1}`+"\n"+`{"n":12345678901234567890123}`+"\n"))
	if out := mustRun(t, "inspect", big); !strings.Contains(out, "n: decimal(38,0)") {
		t.Fatalf("big integers: %s", out)
	}
	if out := mustRun(t, "scan", big, "--format", "csv"); !strings.Contains(out, "\n12345678901234567890123\n") {
		t.Fatalf("big integer value: %s", out)
	}
	for _, c := range []struct{ name, content, want string }{
		{"huge.ndjson", `{"n":1}` + "\n" + `{"n":123456789012345678901234567890123456789}` + "\n", `huge.ndjson line 2, column n: 123456789012345678901234567890123456789 has more than 38 digits`},
		{"mixed.ndjson", `{"a":1}` + "\n\n" + `{"a":"x"}` + "\n", `mixed.ndjson line 3, column a: a string, but line 1 has an integer`},
		{"syntax.ndjson", `{"a":1}` + "\n" + `{"a":1,}` + "\n", `syntax.ndjson line 2, character 8: not valid JSON`},
		{"array.ndjson", `[1,2]` + "\n", `array.ndjson line 1, character 1: a line must hold one JSON object`},
		{"nested.ndjson", `{"s":{"x":1}}` + "\n", `nested.ndjson line 1, column s: an object needs a type`},
		{"twice.ndjson", `{"a":1,"A":2}` + "\n", `twice.ndjson line 1, column A: the key appears twice`},
		{"fields.csv", "a,b\n1,2\n3\n", `fields.csv line 3: 1 fields, but the header has 2`},
	} {
		table := filepath.Join(dir, "t-"+c.name)
		msg := mustFail(t, "write", table, "--input", writeFile(t, c.name, c.content))
		if !strings.Contains(msg, c.want) {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
		if _, err := os.Stat(table); !os.IsNotExist(err) {
			t.Errorf("%s: a refused write left %s behind", c.name, table)
		}
	}

	// The table's types: the string "5" is not a long, and a bad CSV cell
	// names its file, line and column.
	table := filepath.Join(dir, "scores")
	mustRun(t, "write", table, "--input", writeFile(t, "ok.csv", "id,score,label\n1,1.5,a\n"))
	for _, c := range []struct{ name, content, want string }{
		{"s.ndjson", `{"id":2,"score":2.5}` + "\n" + `{"id":"5","score":1}` + "\n", `s.ndjson line 2, column id: the string "5" is not a long`},
		{"n.ndjson", `{"id":2,"label":7}` + "\n", `n.ndjson line 1, column label: 7 is not a string`},
		{"bad.csv", "id,score\n2,2.5\n3,notanumber\n", `bad.csv line 3, column score: "notanumber" is not a double`},
		{"range.csv", "id,score\n99999999999999999999,1\n", `range.csv line 2, column id: 99999999999999999999 is out of range for a long`},
	} {
		before := listTree(t, table)
		msg := mustFail(t, "write", table, "--input", writeFile(t, c.name, c.content))
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "strconv") {
			t.Errorf("%s: %q, want %q", c.name, msg, c.want)
		}
		if after := listTree(t, table); len(after) != len(before) {
			t.Errorf("%s: a refused write changed the table", c.name)
		}
	}
	// A date-like CSV value appends to the table's string column.
	mustRun(t, "write", table, "--input", writeFile(t, "date.csv", "id,label\n2,2026-01-02\n"))
	if out := mustRun(t, "scan", table, "--format", "csv"); !strings.Contains(out, "2,,2026-01-02") {
		t.Fatalf("date-like string: %s", out)
	}
	// Without a table, a CSV column of dates is a date column, and one
	// value that is not a date makes it a string column, wherever it sits.
	var b strings.Builder
	b.WriteString("d\n")
	for range 70000 {
		b.WriteString("2026-01-01\n")
	}
	b.WriteString("soon\n")
	mixed := filepath.Join(dir, "mixed")
	mustRun(t, "write", mixed, "--input", writeFile(t, "mixed.csv", b.String()))
	if out := mustRun(t, "inspect", mixed); !strings.Contains(out, "d: string") {
		t.Fatalf("mixed CSV column: %s", out)
	}
}

// TestCLIZeroRowInput: a header-only CSV (or an empty NDJSON) is an input
// of no rows: create --like takes its header, write and upsert commit
// nothing and say so.
func TestCLIZeroRowInput(t *testing.T) {
	dir := t.TempDir()
	header := writeFile(t, "h.csv", "id,score\n")
	empty := writeFile(t, "e.ndjson", "\n")
	for _, args := range [][]string{
		{"write", filepath.Join(dir, "w"), "--input", header},
		{"write", filepath.Join(dir, "w2"), "--input", empty},
		{"upsert", filepath.Join(dir, "u"), "--input", header, "--pk", "id"},
	} {
		out := mustRun(t, args...)
		if !strings.Contains(out, "has no rows: nothing") {
			t.Errorf("%v: %q", args, out)
		}
		if _, err := os.Stat(args[1]); !os.IsNotExist(err) {
			t.Errorf("%v created %s", args, args[1])
		}
	}
	// the same from standard input
	withStdin(t, header)
	if out := mustRun(t, "write", filepath.Join(dir, "s"), "--input", "-", "--input-format", "csv"); !strings.Contains(out, "standard input has no rows") {
		t.Errorf("stdin: %q", out)
	}
	like := filepath.Join(dir, "like")
	mustRun(t, "create", like, "--like", header)
	if out := mustRun(t, "inspect", like); !strings.Contains(out, "id: string") || !strings.Contains(out, "score: string") {
		t.Fatalf("create --like a header-only CSV: %s", out)
	}
	if msg := mustFail(t, "create", filepath.Join(dir, "none"), "--like", empty); !strings.Contains(msg, "no columns") {
		t.Errorf("create --like an empty NDJSON: %q", msg)
	}
}

// TestCLIStdinIsSpilled: standard input is read twice through a temporary
// file, which is removed afterwards.
func TestCLIStdinIsSpilled(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	in := writeFile(t, "in.ndjson", `{"id":1}`+"\n"+`{"id":2,"late":true}`+"\n")
	withStdin(t, in)
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "write", table, "--input", "-", "--input-format", "ndjson")
	if out := mustRun(t, "scan", table, "--format", "csv"); out != "id,late\n1,\n2,true\n" {
		t.Fatalf("scan: %q", out)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

// withStdin makes the file at path the standard input until the test ends.
func withStdin(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	stdin := os.Stdin
	os.Stdin = f
	t.Cleanup(func() {
		os.Stdin = stdin
		f.Close()
	})
}

func TestJSONLexer(t *testing.T) {
	type kv struct {
		key string
		v   jsonValue
	}
	lex := func(line string) ([]kv, error) {
		var got []kv
		l := jsonLexer{b: []byte(line)}
		err := l.object(func(k []byte, v jsonValue) error {
			got = append(got, kv{string(k), v})
			return nil
		})
		return got, err
	}
	got, err := lex(` { "z\u00e9" : "a\"b\\n\u00e9" , "n":-1.5e+3,"i":0,"t":true,"f":false,"x":null,` +
		`"o":{"s":"}]","l":[1,{"a":"["}]},"e":[]} `)
	if err != nil {
		t.Fatal(err)
	}
	want := []kv{
		{"zé", jsonValue{kind: 's', text: "a\"b\\né"}},
		{"n", jsonValue{kind: '1', text: "-1.5e+3"}},
		{"i", jsonValue{kind: '1', text: "0"}},
		{"t", jsonValue{kind: 'b', b: true}},
		{"f", jsonValue{kind: 'b'}},
		{"x", jsonValue{kind: 'z'}},
		{"o", jsonValue{kind: '{', text: `{"s":"}]","l":[1,{"a":"["}]}`}},
		{"e", jsonValue{kind: '[', text: `[]`}},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lexed\n%v\nwant\n%v", got, want)
	}
	for line, want := range map[string]string{
		`{"a":01}`:       "character 7: not valid JSON",
		`{"a":1.}`:       "character 8: not valid JSON",
		`{"a":tru}`:      "character 6: not valid JSON",
		`{"a":"x`:        "character 8: the JSON object is cut short",
		`{"a":[1,}`:      "character 6: not valid JSON",
		`{"a":1} {}`:     "character 9: more after the JSON object",
		`{"a":"\x"}`:     "character 6: not valid JSON: a bad escape",
		"{\"a\":\"\t\"}": "character 7: not valid JSON: a control character",
		`"a"`:            "character 1: a line must hold one JSON object",
	} {
		if _, err := lex(line); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// TestCLITimestampsWithoutZoneAreUTC: a timestamp without a zone is UTC,
// in an inferred CSV column and in a table's timestamp column alike.
func TestCLITimestampsWithoutZoneAreUTC(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "write", table, "--input", writeFile(t, "ts.csv", "id,ts\n1,2026-01-01 10:00:00\n2,2026-01-01T12:00:00+02:00\n"))
	if out := mustRun(t, "inspect", table); !strings.Contains(out, "ts: timestamp\n") {
		t.Fatalf("inferred type: %s", out)
	}
	mustRun(t, "write", table, "--input", writeFile(t, "ts.ndjson", `{"id":3,"ts":"2026-01-01T10:00:00"}`+"\n"))
	lines := strings.Split(strings.TrimSpace(mustRun(t, "scan", table, "--format", "csv")), "\n")
	if len(lines) != 4 || !strings.Contains(lines[1], "10:00:00") {
		t.Fatalf("scan: %q", lines)
	}
	for _, l := range lines[2:] {
		if l[2:] != lines[1][2:] {
			t.Errorf("%q and %q are not the same instant", lines[1], l)
		}
	}
}

// TestCLINDJSONNestedColumns: nested values parse with the table's types.
func TestCLINDJSONNestedColumns(t *testing.T) {
	schemaFile := writeFile(t, "schema.json", `{"type":"struct","fields":[`+
		`{"name":"id","type":"long","nullable":true,"metadata":{}},`+
		`{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":{}},`+
		`{"name":"y","type":{"type":"array","elementType":"long","containsNull":true},"nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`)
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "create", table, "--schema", schemaFile)
	mustRun(t, "write", table, "--input", writeFile(t, "ok.ndjson", `{"s":{"x":1,"y":[1,2]},"id":1}`+"\n"+`{"id":2,"s":null}`+"\n"))
	out := mustRun(t, "scan", table, "--format", "ndjson")
	if !strings.Contains(out, `"y":[1,2]`) || !strings.Contains(out, `"s":null`) {
		t.Fatalf("scan: %s", out)
	}
	msg := mustFail(t, "write", table, "--input", writeFile(t, "bad.ndjson", `{"id":3,"s":{"x":1}}`+"\n"+`{"id":4,"s":{"x":"q"}}`+"\n"))
	if !strings.Contains(msg, `bad.ndjson line 2, column s: {"x":"q"} is not a struct<x:long,y:array<long>>`) {
		t.Fatalf("bad nested value: %q", msg)
	}
}

// TestCLIUpsertNewColumnSaysWhy: upsert does not evolve the schema, and
// says so rather than naming a flag it lacks.
func TestCLIUpsertNewColumnSaysWhy(t *testing.T) {
	table := filepath.Join(t.TempDir(), "t")
	mustRun(t, "upsert", table, "--input", writeFile(t, "a.csv", "id,name\n1,a\n"), "--pk", "id")
	msg := mustFail(t, "upsert", table, "--input", writeFile(t, "b.csv", "id,name,extra\n1,b,x\n"), "--pk", "id")
	if !strings.Contains(msg, `"extra"`) || !strings.Contains(msg, "upsert keeps the table's schema") {
		t.Fatalf("upsert with a new column: %q", msg)
	}
}

// FuzzJSONLexer: the lexer never panics, and accepts exactly the lines
// that are one JSON object, agreeing with encoding/json on each value.
func FuzzJSONLexer(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,{"c":"]"}],"d":"\u00e9\n"}`, `{}`, `{"a":-0.5e-3}`, `{"a":"\\"}`, `{"a":tru}`, `[1]`, `{"a":1}x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var want map[string]any
		dec := json.NewDecoder(strings.NewReader(line))
		dec.UseNumber()
		valid := dec.Decode(&want) == nil && want != nil && !dec.More() && strings.HasPrefix(strings.TrimSpace(line), "{")
		if valid {
			if _, err := dec.Token(); err != io.EOF {
				valid = false
			}
		}
		got := map[string]any{}
		l := jsonLexer{b: []byte(line)}
		err := l.object(func(k []byte, v jsonValue) error {
			var x any
			switch v.kind {
			case 'z':
			case 'b':
				x = v.b
			case '1':
				x = json.Number(v.text)
			case 's':
				x = v.text
			default:
				d := json.NewDecoder(strings.NewReader(v.text))
				d.UseNumber()
				if err := d.Decode(&x); err != nil {
					t.Fatalf("%q: nested value %q: %v", line, v.text, err)
				}
			}
			got[string(k)] = x
			return nil
		})
		if (err == nil) != valid {
			t.Fatalf("%q: lexer error %v, encoding/json valid %v", line, err, valid)
		}
		if valid && fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: lexed %v, want %v", line, got, want)
		}
	})
}
