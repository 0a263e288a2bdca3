package optimize

import "testing"

// The deprecated option names still work for a release: Where and
// TargetSize, the current names winning.
func TestDeprecatedOptionNames(t *testing.T) {
	n := Options{Where: "p = 'a'", TargetSize: 10}.Normalized()
	if n.Predicate != "p = 'a'" || n.TargetFileSize != 10 || n.Where != "" || n.TargetSize != 0 {
		t.Errorf("Normalized: %+v", n)
	}
	n = Options{Predicate: "p = 'b'", Where: "p = 'a'", TargetFileSize: 20, TargetSize: 10}.Normalized()
	if n.Predicate != "p = 'b'" || n.TargetFileSize != 20 {
		t.Errorf("the current names must win: %+v", n)
	}
}
