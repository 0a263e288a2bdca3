package schema

import (
	"math"
	"testing"
)

// Non-finite floats are spelled as Spark spells them, and read back; the
// partition values of float columns use that spelling.
func TestNonFiniteSpelling(t *testing.T) {
	for _, c := range []struct {
		f    float64
		name string
	}{{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"}} {
		name, ok := NonFiniteName(c.f)
		if !ok || name != c.name {
			t.Errorf("NonFiniteName(%v) = %q, %v; want %q", c.f, name, ok, c.name)
		}
		back, ok := ParseNonFinite(name)
		if !ok || math.IsNaN(back) != math.IsNaN(c.f) || !math.IsNaN(c.f) && back != c.f {
			t.Errorf("ParseNonFinite(%q) = %v, %v; want %v", name, back, ok, c.f)
		}
		for typ, v := range map[string]any{Double: c.f, Float: float32(c.f)} {
			s, err := FormatPartitionValue(&Primitive{Name: typ}, v)
			if err != nil || s != c.name {
				t.Errorf("%s partition value of %v = %q, %v; want %q", typ, c.f, s, err, c.name)
			}
		}
	}
	for _, s := range []string{"1.5", "nan", "inf", "+Infinity", ""} {
		if f, ok := ParseNonFinite(s); ok {
			t.Errorf("ParseNonFinite(%q) = %v; want not a non-finite name", s, f)
		}
	}
	if name, ok := NonFiniteName(1.5); ok {
		t.Errorf("NonFiniteName(1.5) = %q; want none", name)
	}
}
