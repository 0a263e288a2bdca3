package partitions

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// layout is a parsed strftime format: literal text and directives.
type layout struct {
	src   string
	parts []layoutPart
}

type layoutPart struct {
	lit  string // literal text when dir is 0
	dir  byte   // Y m d H M S j
	size int    // digits the directive takes
}

var directiveSize = map[byte]int{'Y': 4, 'm': 2, 'd': 2, 'H': 2, 'M': 2, 'S': 2, 'j': 3}

// parseLayout reads the strftime subset keys are written in: %Y %m %d %H
// %M %S %j and %% (all digits zero-padded, as Python and chrono write them).
func parseLayout(f string) (layout, error) {
	if f == "" {
		return layout{}, fmt.Errorf("the key format is empty")
	}
	l := layout{src: f}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			l.parts = append(l.parts, layoutPart{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			lit.WriteByte(f[i])
			continue
		}
		if i+1 == len(f) {
			return layout{}, fmt.Errorf("key format %q ends with a lone %%", f)
		}
		i++
		c := f[i]
		if c == '%' {
			lit.WriteByte('%')
			continue
		}
		n, ok := directiveSize[c]
		if !ok {
			return layout{}, fmt.Errorf("key format %q: %%%c is not supported (use %%Y %%m %%d %%H %%M %%S %%j %%%%)", f, c)
		}
		flush()
		l.parts = append(l.parts, layoutPart{dir: c, size: n})
	}
	flush()
	return l, nil
}

// format writes t's wall clock (in t's location).
func (l layout) format(t time.Time) string {
	var sb strings.Builder
	for _, p := range l.parts {
		var v int
		switch p.dir {
		case 0:
			sb.WriteString(p.lit)
			continue
		case 'Y':
			v = t.Year()
		case 'm':
			v = int(t.Month())
		case 'd':
			v = t.Day()
		case 'H':
			v = t.Hour()
		case 'M':
			v = t.Minute()
		case 'S':
			v = t.Second()
		case 'j':
			v = t.YearDay()
		}
		fmt.Fprintf(&sb, "%0*d", p.size, v)
	}
	return sb.String()
}

// parse reads s written in the layout as a wall clock in loc. Fields the
// layout lacks take their smallest value (January, day 1, midnight).
func (l layout) parse(s string, loc *time.Location) (time.Time, error) {
	fields := map[byte]int{'Y': 1970, 'm': 1, 'd': 1}
	rest := s
	for _, p := range l.parts {
		if p.dir == 0 {
			if !strings.HasPrefix(rest, p.lit) {
				return time.Time{}, fmt.Errorf("expected %q at %q", p.lit, rest)
			}
			rest = rest[len(p.lit):]
			continue
		}
		if len(rest) < p.size {
			return time.Time{}, fmt.Errorf("%%%c needs %d digits at %q", p.dir, p.size, rest)
		}
		v, err := strconv.Atoi(rest[:p.size])
		if err != nil || strings.ContainsAny(rest[:p.size], "+-") {
			return time.Time{}, fmt.Errorf("%%%c needs %d digits at %q", p.dir, p.size, rest)
		}
		fields[p.dir] = v
		rest = rest[p.size:]
	}
	if rest != "" {
		return time.Time{}, fmt.Errorf("unexpected %q after the format", rest)
	}
	y, mo, d := fields['Y'], fields['m'], fields['d']
	h, mi, sec := fields['H'], fields['M'], fields['S']
	if mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, fmt.Errorf("a field is out of range")
	}
	if j, ok := fields['j']; ok {
		if j < 1 || j > 366 {
			return time.Time{}, fmt.Errorf("day of year %d is out of range", j)
		}
		mo, d = 1, j
	}
	t := time.Date(y, time.Month(mo), d, h, mi, sec, 0, loc)
	// A day that does not exist (February 30) normalizes into another one.
	if t.Year() != y || fields['j'] == 0 && (int(t.Month()) != mo || t.Day() != d) {
		return time.Time{}, fmt.Errorf("the date does not exist")
	}
	return t, nil
}
