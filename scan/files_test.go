package scan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// WithFiles reads exactly the chosen files, in the chosen order, and the
// filters still skip among them.
func TestWithFiles(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	files := src.Files()
	if len(files) < 2 {
		t.Fatalf("%d files", len(files))
	}
	all := readRows(t, src, WithColumns("number"))
	var parts []string
	for _, f := range files {
		got := readRows(t, src, WithFiles(f), WithColumns("number"))
		if len(got) == 0 {
			t.Fatalf("%s: no rows", f.Path)
		}
		parts = append(parts, got...)
	}
	slices.Sort(parts)
	if !slices.Equal(parts, all) {
		t.Errorf("files one by one %v, whole table %v", parts, all)
	}

	rev := []*protocol.Add{files[1], files[0]}
	plan, err := New(src, WithFiles(rev...)).Plan(context.Background())
	if err != nil || len(plan) != 2 || plan[0].Add != files[1] || plan[1].Add != files[0] {
		t.Errorf("plan %v, %v; want the chosen order", plan, err)
	}
	if plan, err := New(src, WithFiles()).Plan(context.Background()); err != nil || len(plan) != 0 {
		t.Errorf("no files chosen: %v, %v", plan, err)
	}
	// Statistics rule a chosen file out as they would any other.
	e, err := New(src, WithFiles(files[0]), WithFilters(mustFilter(t, "number", ">", "100"))).Explain(context.Background())
	if err != nil || len(e.Files) != 0 || len(e.Skipped) != 1 {
		t.Errorf("filter among chosen files: %+v, %v", e, err)
	}
}

// WithWhere binds its SQL when the scan is planned and then filters as a
// bound predicate does.
func TestWithWhere(t *testing.T) {
	src := openTable(t, "dat/basic_append/delta")
	got := readRows(t, src, WithColumns("number"), WithWhere("number > 3 AND letter IS NOT NULL"))
	if want := []string{"number=4", "number=5"}; !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	_, err := New(src, WithWhere("nosuch > 1")).Plan(context.Background())
	if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "nosuch") {
		t.Errorf("unknown column: %v", err)
	}
}
