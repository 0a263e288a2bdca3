package merge

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// file is an add action of a table partitioned by day, with statistics of
// id.
func file(path, day string, lo, hi int64) *protocol.Add {
	return &protocol.Add{Path: path, PartitionValues: map[string]string{"day": day},
		Stats: fmt.Sprintf(`{"numRecords":10,"minValues":{"id":%d},"maxValues":{"id":%d},"nullCount":{"id":0}}`, lo, hi)}
}

func TestScope(t *testing.T) {
	target := cols("id long", "v string", "day string")
	source := cols("id long", "v string", "day string")
	files := []*protocol.Add{
		file("a", "2026-01-01", 1, 10), file("b", "2026-01-02", 1, 10), file("c", "2026-01-02", 11, 20),
		file("d", "2026-01-03", 1, 100), file("e", "2026-01-02", 50, 60),
	}
	rows := `[{"id":5,"v":"x","day":"2026-01-02"},{"id":7,"v":"y","day":"2026-01-02"},{"id":55,"v":"z","day":"2026-01-03"},{"id":null,"v":"n","day":"2026-01-01"}]`
	var many []string
	for i := range maxInList + 1 {
		many = append(many, fmt.Sprintf(`{"id":%d,"v":"m","day":"2026-01-02"}`, 50+i))
	}
	for _, tc := range []struct {
		name, pred, rows string
		clauses          []Clause
		filter, read     string
	}{
		// The partition column joins: the source's days prune, no literal
		// needed; ids prune within them by the files' statistics.
		{"equi partition and key", "t.id = s.id AND t.day = s.day", rows, nil,
			"id IN (5L, 7L, 55L) AND day IN ('2026-01-02', '2026-01-03')", "b d e"},
		{"target-only literal", "t.id = s.id AND t.day = '2026-01-02'", rows, nil,
			"day = '2026-01-02' AND id IN (5L, 7L, 55L)", "b e"},
		{"range past the IN list", "t.id = s.id", "[" + strings.Join(many, ",") + "]", nil,
			fmt.Sprintf("id BETWEEN 50L AND %dL", 50+maxInList), "d e"},
		{"only null keys", "t.id = s.id", `[{"id":null,"v":"n","day":"x"}]`, nil, "FALSE", ""},
		{"source-only filter", "t.id = s.id AND s.v = 'none'", rows, nil, "FALSE", ""},
		{"by source, conditional", "t.id = s.id", rows, []Clause{{When: NotMatchedBySource, Action: Delete, Predicate: "t.day = '2026-01-01'"}},
			"id IN (5L, 7L, 55L)", "a b d e"},
		{"by source, unconditional", "t.id = s.id", `[{"id":null,"v":"n","day":"x"}]`, []Clause{{When: NotMatchedBySource, Action: Delete}},
			"FALSE", "a b c d e"},
		{"nested loop", "t.id < s.id", rows, nil, "", "a b c d e"},
	} {
		opt := Options{Predicate: tc.pred, MergeType: TypeUpsert}
		if tc.clauses != nil {
			opt = Options{Predicate: tc.pred, Clauses: append([]Clause{{When: Matched, Action: UpdateAll}}, tc.clauses...)}
		}
		p, err := resolve(opt, target, source)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		sb := batch(t, memory.DefaultAllocator, source, tc.rows)
		j, err := newJoiner(context.Background(), p, sb)
		sb.Release()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		f, err := j.fileFilter()
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		got := ""
		if f != nil {
			got = f.String()
		}
		if got != tc.filter {
			t.Errorf("%s: filter %q, want %q", tc.name, got, tc.filter)
		}
		in, err := j.inScope(schema.MappingNone)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, a := range files {
			if in(a) {
				paths = append(paths, a.Path)
			}
		}
		if strings.Join(paths, " ") != tc.read {
			t.Errorf("%s: reads %v, want %s", tc.name, paths, tc.read)
		}
		j.release()
	}
}

// Source values of every prunable key type render as literals that bind
// against the target and decide files by their statistics.
func TestFileFilterLiterals(t *testing.T) {
	sc := cols("d date", "ts timestamp", "ntz timestamp_ntz", "dec decimal(10,2)", "s string", "b boolean", "i short")
	pred := "t.d = s.d AND t.ts = s.ts AND t.ntz = s.ntz AND t.dec = s.dec AND t.s = s.s AND t.b = s.b AND t.i = s.i"
	p, err := resolve(Options{Predicate: pred, MergeType: TypeUpdateOnly}, sc, sc)
	if err != nil {
		t.Fatal(err)
	}
	sb := batch(t, memory.DefaultAllocator, sc, `[{"d":"2026-01-02","ts":"2026-01-02T03:04:05.123456Z","ntz":"2026-01-02T03:04:05","dec":"12.30","s":"it's a \\ path","b":true,"i":7}]`)
	j, err := newJoiner(context.Background(), p, sb)
	sb.Release()
	if err != nil {
		t.Fatal(err)
	}
	defer j.release()
	f, err := j.fileFilter()
	if err != nil {
		t.Fatal(err)
	}
	want := `d IN (DATE '2026-01-02') AND ts IN (TIMESTAMP '2026-01-02 03:04:05.123456') AND ntz IN (TIMESTAMP_NTZ '2026-01-02 03:04:05') AND ` +
		`dec IN (12.30) AND s IN ('it\'s a \\ path') AND b IN (TRUE) AND i IN (7)`
	if f.String() != want {
		t.Fatalf("filter\n got %s\nwant %s", f, want)
	}
}
