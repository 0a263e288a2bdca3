package expr

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
)

// The datetime functions Spark allows in generated columns besides year,
// month and day (GeneratedColumn's partition expressions): hour, minute,
// second, date_format, date_trunc and trunc. A TIMESTAMP is read in the
// session time zone (Session), as Spark reads it in
// spark.sql.session.timeZone.

// bindDatetime binds hour, minute, second, date_format, date_trunc and
// trunc.
func (b *binder) bindDatetime(e *Call) (node, error) {
	switch e.Name {
	case "hour", "minute", "second":
		x, err := b.timestampOperand(e, e.Args[0])
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: tInt}, e)
	case "date_format":
		x, err := b.timestampOperand(e, e.Args[0])
		if err != nil {
			return nil, err
		}
		f, err := b.patternOperand(e, e.Args[1], func(s string) error { _, err := parseDatePattern(s); return err })
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{x, f}, t: tString}, e)
	case "date_trunc":
		f, err := b.patternOperand(e, e.Args[0], nil)
		if err != nil {
			return nil, err
		}
		x, err := b.timestampOperand(e, e.Args[1])
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{f, x}, t: tTimestamp}, e)
	}
	// trunc(date, fmt)
	x, err := b.dateOperand(e, e.Args[0])
	if err != nil {
		return nil, err
	}
	f, err := b.patternOperand(e, e.Args[1], nil)
	if err != nil {
		return nil, err
	}
	return b.fold(&callN{fn: e.Name, args: []node{x, f}, t: tDate}, e)
}

// timestampOperand binds an argument a timestamp function takes: a
// timestamp, or a date or string cast to one.
func (b *binder) timestampOperand(fn *Call, e Expr) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	t := n.Type()
	switch {
	case isTimestamp(t):
		return n, nil
	case isVoid(t):
		return b.coerce(n, tTimestamp, e)
	case isString(t) || isType(t, schema.Date):
		if l, ok := n.(*lit); ok {
			return b.coerce(l, tTimestamp, e)
		}
		return &castN{x: n, t: tTimestamp, implicit: true}, nil
	}
	return nil, errAt(e, "%s needs a timestamp, date or string, not %s (%s)", fn.Name, e, typeName(t))
}

// patternOperand binds the format argument of fn, which must be a string
// literal (the only form a generated column or partition filter uses);
// check, when set, refuses a pattern this engine cannot apply.
func (b *binder) patternOperand(fn *Call, e Expr, check func(string) error) (node, error) {
	n, err := b.stringOperand(e)
	if err != nil {
		return nil, err
	}
	l, ok := n.(*lit)
	if !ok {
		return nil, errAt(e, "%s takes its format as a string literal, not %s", fn.Name, e)
	}
	if s, ok := l.v.(string); ok && check != nil {
		if err := check(s); err != nil {
			return nil, errAt(e, "%s format %q: %v", fn.Name, s, err)
		}
	}
	return l, nil
}

// datetimeFunction evaluates the functions bindDatetime binds.
func (ev *evaluator) datetimeFunction(n *callN, args []value) (value, error) {
	switch n.fn {
	case "hour", "minute", "second":
		return ev.mapRows(args, tInt, true, func(v []any) (any, error) {
			tm := ev.localTime(v[0], n.args[0].Type())
			switch n.fn {
			case "hour":
				return int32(tm.Hour()), nil
			case "minute":
				return int32(tm.Minute()), nil
			}
			return int32(tm.Second()), nil
		})
	case "date_format":
		var p datePattern
		var perr error
		parsed := ""
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			if s := v[1].(string); p == nil || s != parsed {
				p, perr, parsed = nil, nil, s
				if p, perr = parseDatePattern(s); perr != nil {
					return nil, fmt.Errorf("date_format format %q: %w", s, perr)
				}
			}
			return p.format(ev.localTime(v[0], n.args[0].Type())), nil
		})
	case "date_trunc":
		return ev.mapRows(args, tTimestamp, true, func(v []any) (any, error) {
			us := int64(v[1].(arrow.Timestamp))
			if isType(n.args[1].Type(), schema.TimestampNTZ) {
				us = zonedMicros(ev.loc, us) // Spark casts it to a TIMESTAMP
			}
			us, ok := truncTimestampIn(ev.loc, v[0].(string), us)
			if !ok {
				return nil, nil // Spark: an unknown unit gives NULL
			}
			return arrow.Timestamp(us), nil
		})
	}
	return ev.mapRows(args, tDate, true, func(v []any) (any, error) {
		d, ok := truncDate(int32(v[0].(arrow.Date32)), v[1].(string))
		if !ok {
			return nil, nil
		}
		return arrow.Date32(d), nil
	})
}

// datePart is Spark's year, month, day, dayofyear, quarter, dayofweek
// (1 = Sunday), weekday (0 = Monday), weekofyear (ISO 8601) or last_day
// of a date (days since the epoch).
func datePart(fn string, days int32) any {
	tm := time.Unix(int64(days)*86400, 0).UTC()
	switch fn {
	case "year":
		return int32(tm.Year())
	case "month":
		return int32(tm.Month())
	case "dayofyear":
		return int32(tm.YearDay())
	case "quarter":
		return int32((tm.Month()-1)/3 + 1)
	case "dayofweek":
		return int32(tm.Weekday()) + 1
	case "weekday":
		return int32((tm.Weekday() + 6) % 7)
	case "weekofyear":
		_, w := tm.ISOWeek()
		return int32(w)
	case "last_day":
		y, m, _ := tm.Date()
		return arrow.Date32(floorDiv(time.Date(y, m+1, 0, 0, 0, 0, 0, time.UTC).Unix(), 86400))
	}
	return int32(tm.Day())
}

// addMonths is Spark's add_months: the same day n months later, or that
// month's last day when it is shorter.
func addMonths(days, n int32) int32 {
	tm := time.Unix(int64(days)*86400, 0).UTC()
	y, m, d := tm.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	out := time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	return int32(floorDiv(out.Unix(), 86400))
}

func microsTime(us int64) time.Time { return time.UnixMicro(us).UTC() }

// localTime is the local date-time of a value of type t, a TIMESTAMP
// read in the session time zone (a TIMESTAMP_NTZ is one already), as a
// time.Time in UTC.
func (ev *evaluator) localTime(v any, t schema.Type) time.Time {
	us := int64(v.(arrow.Timestamp))
	if isType(t, schema.Timestamp) {
		us = localMicros(ev.loc, us)
	}
	return microsTime(us)
}

// truncTimestampIn is Spark's DateTimeUtils.truncTimestamp in time zone
// loc: units up to a second on the instant; MINUTE, HOUR and DAY truncate
// the local date-time and keep its offset where it is still valid
// (ZonedDateTime.truncatedTo); WEEK and up start the local day the
// truncated date begins (LocalDate.atStartOfDay).
func truncTimestampIn(loc *time.Location, unit string, us int64) (int64, bool) {
	switch strings.ToUpper(unit) {
	case "MICROSECOND", "MILLISECOND", "SECOND":
		return truncTimestamp(unit, us)
	}
	w, ok := truncTimestamp(unit, localMicros(loc, us))
	if !ok {
		return 0, false
	}
	switch strings.ToUpper(unit) {
	case "MINUTE", "HOUR", "DAY", "DD":
		return zonedMicrosKeeping(loc, w, offsetMicros(loc, us)), true
	}
	return zonedMicros(loc, w), true
}

// truncTimestamp is Spark's date_trunc(unit, ts) on microseconds since the
// epoch (UTC); false for a unit Spark does not know.
func truncTimestamp(unit string, us int64) (int64, bool) {
	tm := microsTime(us)
	y, mo, d := tm.Date()
	day := time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)
	var out time.Time
	switch strings.ToUpper(unit) {
	case "YEAR", "YYYY", "YY":
		out = time.Date(y, 1, 1, 0, 0, 0, 0, time.UTC)
	case "QUARTER":
		out = time.Date(y, (mo-1)/3*3+1, 1, 0, 0, 0, 0, time.UTC)
	case "MONTH", "MM", "MON":
		out = time.Date(y, mo, 1, 0, 0, 0, 0, time.UTC)
	case "WEEK":
		out = day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7)) // back to Monday
	case "DAY", "DD":
		out = day
	case "HOUR":
		out = tm.Truncate(time.Hour)
	case "MINUTE":
		out = tm.Truncate(time.Minute)
	case "SECOND":
		out = tm.Truncate(time.Second)
	case "MILLISECOND":
		return floorDiv(us, 1000) * 1000, true
	case "MICROSECOND":
		return us, true
	default:
		return 0, false
	}
	return out.UnixMicro(), true
}

// truncDate is Spark's trunc(date, unit) on days since the epoch; false
// for a unit Spark does not know (trunc takes no unit below a week).
func truncDate(days int32, unit string) (int32, bool) {
	switch strings.ToUpper(unit) {
	case "YEAR", "YYYY", "YY", "QUARTER", "MONTH", "MM", "MON", "WEEK":
	default:
		return 0, false
	}
	us, _ := truncTimestamp(unit, int64(days)*86400_000_000)
	return int32(floorDiv(us, 86400_000_000)), true
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// datePattern is a parsed Spark datetime pattern (the letters of
// DateTimeFormatter Spark's date_format uses that this engine applies).
type datePattern []patternPart

type patternPart struct {
	letter rune // 0: literal text
	count  int
	text   string
}

// parseDatePattern reads a Spark datetime pattern: letters y, M, L, d, D,
// H, h, k, K, m, s, S, a and E, with quoted literal text ('...', ”
// for a quote) and any other non-letter as itself.
func parseDatePattern(s string) (datePattern, error) {
	var out datePattern
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case r == '\'':
			j := i + 1
			var sb strings.Builder
			for ; j < len(rs); j++ {
				if rs[j] == '\'' {
					if j+1 < len(rs) && rs[j+1] == '\'' {
						sb.WriteRune('\'')
						j++
						continue
					}
					break
				}
				sb.WriteRune(rs[j])
			}
			if j >= len(rs) {
				return nil, fmt.Errorf("unterminated quote")
			}
			if j == i+1 {
				sb.WriteRune('\'') // '' is a quote
			}
			out = append(out, patternPart{text: sb.String()})
			i = j + 1
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			j := i
			for j < len(rs) && rs[j] == r {
				j++
			}
			n := j - i
			if err := checkPatternLetter(r, n); err != nil {
				return nil, err
			}
			out = append(out, patternPart{letter: r, count: n})
			i = j
		default:
			out = append(out, patternPart{text: string(r)})
			i++
		}
	}
	return out, nil
}

func checkPatternLetter(r rune, n int) error {
	limit := map[rune]int{'y': 4, 'M': 4, 'L': 4, 'd': 2, 'D': 3, 'H': 2, 'h': 2, 'k': 2, 'K': 2, 'm': 2, 's': 2, 'S': 9, 'a': 1, 'E': 4}
	max, ok := limit[r]
	if !ok {
		return fmt.Errorf("pattern letter %q is beyond the ones this engine formats (y M L d D H h k K m s S a E and quoted text)", r)
	}
	if n > max {
		return fmt.Errorf("too many pattern letters: %s", strings.Repeat(string(r), n))
	}
	return nil
}

// format renders tm as Spark's date_format does with the pattern.
func (p datePattern) format(tm time.Time) string {
	var sb strings.Builder
	pad := func(v, n int) {
		s := fmt.Sprint(v)
		if v >= 0 && len(s) < n {
			s = strings.Repeat("0", n-len(s)) + s
		}
		sb.WriteString(s)
	}
	for _, part := range p {
		n := part.count
		switch part.letter {
		case 0:
			sb.WriteString(part.text)
		case 'y':
			y := tm.Year()
			if n == 2 {
				pad((y%100+100)%100, 2)
			} else {
				pad(y, n)
			}
		case 'M', 'L':
			switch {
			case n == 3:
				sb.WriteString(tm.Month().String()[:3])
			case n == 4:
				sb.WriteString(tm.Month().String())
			default:
				pad(int(tm.Month()), n)
			}
		case 'd':
			pad(tm.Day(), n)
		case 'D':
			pad(tm.YearDay(), n)
		case 'H':
			pad(tm.Hour(), n)
		case 'k':
			h := tm.Hour()
			if h == 0 {
				h = 24
			}
			pad(h, n)
		case 'K':
			pad(tm.Hour()%12, n)
		case 'h':
			h := tm.Hour() % 12
			if h == 0 {
				h = 12
			}
			pad(h, n)
		case 'm':
			pad(tm.Minute(), n)
		case 's':
			pad(tm.Second(), n)
		case 'S':
			frac := fmt.Sprintf("%09d", tm.Nanosecond())
			sb.WriteString(frac[:n])
		case 'a':
			if tm.Hour() < 12 {
				sb.WriteString("AM")
			} else {
				sb.WriteString("PM")
			}
		case 'E':
			if n == 4 {
				sb.WriteString(tm.Weekday().String())
			} else {
				sb.WriteString(tm.Weekday().String()[:3])
			}
		}
	}
	return sb.String()
}
