package expr

import (
	"context"
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/schema"
)

// FuzzParse checks that no input panics, that errors are InvalidArgument
// with a column inside the input, that canonical text is a fixed point of
// Parse, and that whatever binds against the all-types schema evaluates,
// decides files and renders to text that binds again to the same text.
func FuzzParse(f *testing.F) {
	for _, c := range evalCases {
		f.Add(c.pred)
	}
	for _, s := range []string{`a = 1`, `s.id = t.id AND s.v <=> t.v`, `x IN ()`, `'\u0000'`, "`\x00`",
		`CAST(NULL AS DECIMAL(38,38)) = 0`, `-9223372036854775808 = i64`, `1e309 = f64`, `.e1`,
		`d = DATE '0001-01-01' OR d = DATE '999999-12-31'`, `s LIKE '%%__%\\%'`, `i8 = 1Y + 1S`} {
		f.Add(s)
	}
	for _, c := range valueCases {
		f.Add(c.expr + ` IS NULL`)
	}
	sc, rec := allTypes(f)
	rels := map[string]*schema.Struct{"": sc}
	full := stats.Parse(`{"numRecords":10,"minValues":{"i8":-5,"s":"bar","d":"2026-01-01","dec":"1.50","f64":-1},"maxValues":{"i8":5,"s":"foo","d":"2026-01-31","dec":"9.99","f64":1},"nullCount":{"i8":0,"s":1,"d":0,"dec":2,"f64":0}}`, sc, schema.MappingNone)
	pv := map[string]string{"i32": "7", "s": "", "d": "2026-01-01", "ts": "2026-01-01 00:00:00", "dec": "1.50"}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := Parse(src)
		if err != nil {
			var se *SyntaxError
			if !errors.Is(err, errs.ErrInvalidArgument) || !errors.As(err, &se) {
				t.Fatalf("Parse(%q): unexpected error %v", src, err)
			}
			if se.Column < 1 || se.Column > utf8.RuneCountInString(src)+1 {
				t.Fatalf("Parse(%q): column %d outside the input", src, se.Column)
			}
			return
		}
		text := e.String()
		e2, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse(%q) renders %q, which does not parse: %v", src, text, err)
		}
		if e2.String() != text {
			t.Fatalf("Parse(%q): %q renders as %q", src, text, e2.String())
		}
		b, err := Bind(e, rels)
		if err != nil {
			if !errors.Is(err, errs.ErrInvalidArgument) {
				t.Fatalf("Bind(%q): unexpected error %v", text, err)
			}
			return
		}
		if arr, err := b.Eval(context.Background(), rec); err == nil {
			arr.Release()
		} else if !errors.Is(err, errs.ErrInvalidArgument) {
			t.Fatalf("Eval(%q): unexpected error %v", b, err)
		}
		Decide(b, File{Stats: full, PartitionValues: pv})
		Decide(b, File{PartitionValues: pv})
		bt := b.String()
		b2, err := Compile(bt, rels)
		if err != nil {
			t.Fatalf("%q binds and renders as %q, which does not bind: %v", src, bt, err)
		}
		if b2.String() != bt {
			t.Fatalf("%q: bound text %q renders as %q", src, bt, b2)
		}
	})
}
