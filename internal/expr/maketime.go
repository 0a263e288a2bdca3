package expr

import (
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// make_timestamp(year, month, day, hour, min, sec[, tz]),
// make_timestamp_ltz (the same) and make_timestamp_ntz (no zone), as
// Spark 4's MakeTimestamp computes them under ANSI mode: sec is a
// DECIMAL(16,6) (seconds and microseconds), 60 allowed only with no
// fraction (the next minute, as PostgreSQL allows); the fields are read
// as java.time's LocalDateTime.of reads them, an invalid one failing the
// row; a TIMESTAMP reads the local date-time in the session time zone, or
// in the zone named by tz, as ZonedDateTime.of resolves it (a time in a
// daylight-saving gap moved forward by the gap, one in an overlap taking
// the earlier offset).

// makeTimestampNames are the names of this file.
var makeTimestampNames = map[string]bool{"make_timestamp": true, "make_timestamp_ltz": true, "make_timestamp_ntz": true}

// tMakeSecond is the type Spark casts the seconds argument to.
var tMakeSecond = &schema.Decimal{Precision: 16, Scale: 6}

// bindMakeTimestamp binds the functions of this file.
func (b *binder) bindMakeTimestamp(e *Call) (node, error) {
	if e.Name == "make_timestamp_ntz" && len(e.Args) == 7 {
		return nil, errAt(e, "make_timestamp_ntz takes 6 arguments (year, month, day, hour, min, sec), not a time zone")
	}
	args := make([]node, len(e.Args))
	var err error
	for i := range 5 {
		if args[i], err = b.intOperand(e, e.Args[i]); err != nil {
			return nil, err
		}
	}
	sec, err := b.bind(e.Args[5])
	if err != nil {
		return nil, err
	}
	switch t := sec.Type(); {
	case isVoid(t):
		if sec, err = b.coerce(sec, tMakeSecond, e.Args[5]); err != nil {
			return nil, err
		}
	case isNumeric(t) || isString(t): // text is cast as ANSI mode casts it
		if !sameType(t, tMakeSecond) {
			sec = &castN{x: sec, t: tMakeSecond, implicit: true}
		}
	default:
		return nil, errAt(e.Args[5], "%s takes its seconds as a number or text, not %s (%s)", e.Name, e.Args[5], typeName(t))
	}
	args[5] = sec
	if len(e.Args) == 7 {
		if args[6], err = b.stringOperand(e.Args[6]); err != nil {
			return nil, err
		}
		if l, ok := args[6].(*lit); ok {
			if s, ok := l.v.(string); ok {
				if _, err := zoneNamed(s); err != nil {
					return nil, errAt(e.Args[6], "%s: %v", e.Name, err)
				}
			}
		}
	}
	t := tTimestamp
	if e.Name == "make_timestamp_ntz" {
		t = tTimestampNTZ
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// makeTimestampFunction evaluates them.
func (ev *evaluator) makeTimestampFunction(n *callN, args []value) (value, error) {
	zones := map[string]*time.Location{}
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		f := [5]int64{}
		for i := range f {
			f[i] = int64(v[i].(int32))
		}
		sec := v[5].(decimal128.Num)
		w, err := makeLocalMicros(n.fn, f, sec)
		if err != nil {
			return nil, err
		}
		if isType(n.t, schema.TimestampNTZ) {
			return arrow.Timestamp(w), nil
		}
		loc := ev.loc
		if len(v) == 7 {
			name := v[6].(string)
			var ok bool
			if loc, ok = zones[name]; !ok {
				if loc, err = zoneNamed(name); err != nil {
					return nil, errs.New(errs.InvalidArgument, "", "%s: %v", n.fn, err)
				}
				zones[name] = loc
			}
		}
		return arrow.Timestamp(zonedMicros(loc, w)), nil
	})
}

var monthNames = [...]string{"JANUARY", "FEBRUARY", "MARCH", "APRIL", "MAY", "JUNE", "JULY", "AUGUST", "SEPTEMBER",
	"OCTOBER", "NOVEMBER", "DECEMBER"}

// makeLocalMicros is the local date-time of the fields (microseconds read
// as UTC), checked as LocalDateTime.of checks them.
func makeLocalMicros(fn string, f [5]int64, sec decimal128.Num) (int64, error) {
	// Spark reads the unscaled seconds as a Java int (wrapping, as its
	// toInt does), then splits seconds and microseconds.
	total := int64(int32(uint32(sec.LowBits())))
	s, us := floorDiv(total, 1e6), total-floorDiv(total, 1e6)*1e6
	y, mo, d, h, mi := f[0], f[1], f[2], f[3], f[4]
	bad := func(format string, a ...any) error {
		secText := strings.TrimRight(strings.TrimRight(fmt.Sprintf("%d.%06d", s, us), "0"), ".")
		return errs.New(errs.InvalidArgument, "", "%s(%d, %d, %d, %d, %d, %s): %s", fn, y, mo, d, h, mi, secText, fmt.Sprintf(format, a...))
	}
	plusMinute := false
	if s == 60 {
		if us != 0 {
			return 0, bad("valid range for seconds is [0, 60] (inclusive), and 60 only without a fraction")
		}
		s, plusMinute = 0, true
	}
	field := func(name string, x, lo, hi int64) error {
		if x < lo || x > hi {
			return bad("invalid value for %s (valid values %d - %d): %d", name, lo, hi, x)
		}
		return nil
	}
	for _, c := range []struct {
		name      string
		x, lo, hi int64
	}{{"Year", y, -999999999, 999999999}, {"MonthOfYear", mo, 1, 12}, {"DayOfMonth", d, 1, 31}} {
		if err := field(c.name, c.x, c.lo, c.hi); err != nil {
			return 0, err
		}
	}
	date := time.Date(int(y), time.Month(mo), int(d), 0, 0, 0, 0, time.UTC)
	if date.Day() != int(d) {
		return 0, bad("invalid date '%s %d'", monthNames[mo-1], d)
	}
	for _, c := range []struct {
		name      string
		x, lo, hi int64
	}{{"HourOfDay", h, 0, 23}, {"MinuteOfHour", mi, 0, 59}, {"SecondOfMinute", s, 0, 59}} {
		if err := field(c.name, c.x, c.lo, c.hi); err != nil {
			return 0, err
		}
	}
	days := floorDiv(date.Unix(), 86400)
	const maxDays = 106751990 // a day of microseconds past it overflows a long
	if days > maxDays || days < -maxDays {
		return 0, bad("the date-time is out of the range of a timestamp (microseconds since 1970 overflow a long)")
	}
	w := days*microsPerDay + ((h*60+mi)*60+s)*1e6 + us
	if plusMinute {
		w += 60e6
	}
	return w, nil
}
