package arrowrows

import (
	"strings"
	"testing"
)

// Diff fails t with the rows that differ when got is not want, row by row
// (both in their canonical, usually sorted, order).
func Diff(t testing.TB, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") == strings.Join(want, "\n") {
		return
	}
	t.Errorf("got %d rows, want %d", len(got), len(want))
	for i := 0; i < max(len(got), len(want)); i++ {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("row %d:\n got  %s\n want %s", i, g, w)
		}
	}
}
