package expr

import (
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// The datetime functions of Delta's allowed generation expressions beyond
// the partition ones (datetime.go): from_unixtime, unix_timestamp /
// to_unix_timestamp, to_timestamp and to_date with a format,
// months_between, timestampadd / dateadd / date_add(unit, n, ts),
// timestampdiff / datediff / date_diff(unit, start, end), make_date and
// next_day, each computed as Spark 4 computes it with ANSI mode on (its
// default): a value that does not parse or overflows is an error, never a
// silent NULL. Spark evaluates them in the session time zone
// (spark.sql.session.timeZone) of the writer, and so do these, in the
// Session the expression was bound in (UTC unless given; see the README's
// "Time zone").

// defaultTimestampPattern is the pattern unix_timestamp and from_unixtime
// take when none is given.
const defaultTimestampPattern = "yyyy-MM-dd HH:mm:ss"

// timeUnits are the units of timestampadd and timestampdiff, as Spark's
// grammar names them (datetimeUnit); DAYOFYEAR only adds.
var timeUnits = map[string]bool{"YEAR": true, "QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DAYOFYEAR": true,
	"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true, "MICROSECOND": true}

// unitCall reports whether e is the unit form of timestampadd /
// timestampdiff: its three arguments start with a unit keyword.
func unitCall(e *Call) bool {
	switch e.Name {
	case "timestampadd", "dateadd", "date_add", "timestampdiff", "datediff", "date_diff":
		return len(e.Args) == 3
	}
	return false
}

// bindTimeFunc binds the functions of this file.
func (b *binder) bindTimeFunc(e *Call) (node, error) {
	switch e.Name {
	case "from_unixtime":
		sec, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		if !isIntegral(sec.Type()) && !isVoid(sec.Type()) {
			return nil, errAt(e.Args[0], "from_unixtime takes seconds as an integer, not %s (%s); CAST it AS BIGINT", e.Args[0], typeName(sec.Type()))
		}
		if sec, err = b.coerce(sec, tLong, e.Args[0]); err != nil {
			return nil, err
		}
		f, err := b.optionalPattern(e, 1, formatCheck)
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{sec, f}, t: tString}, e)
	case "unix_timestamp", "to_unix_timestamp":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		t := x.Type()
		if !isString(t) && !isTimestamp(t) && !isType(t, schema.Date) && !isVoid(t) {
			return nil, errAt(e.Args[0], "%s needs a string, timestamp or date, not %s (%s)", e.Name, e.Args[0], typeName(t))
		}
		f, err := b.optionalPattern(e, 1, parseCheck)
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{x, f}, t: tLong}, e)
	case "to_timestamp", "to_date":
		if len(e.Args) == 1 {
			// One argument: a cast (to_date's is bound with date).
			x, err := b.timestampOperand(e, e.Args[0])
			if err != nil {
				return nil, err
			}
			if _, ok := x.(*castN); ok || isTimestamp(x.Type()) {
				return b.fold(&castN{x: x, t: tTimestamp}, e)
			}
			return x, nil
		}
		x, err := b.stringOperand(e.Args[0])
		if err != nil {
			return nil, err
		}
		f, err := b.patternOperand(e, e.Args[1], parseCheck)
		if err != nil {
			return nil, err
		}
		t := tTimestamp
		if e.Name == "to_date" {
			t = tDate
		}
		return b.fold(&callN{fn: e.Name, args: []node{x, f}, t: t}, e)
	case "months_between":
		args := make([]node, len(e.Args))
		var err error
		for i := range 2 {
			if args[i], err = b.timestampOperand(e, e.Args[i]); err != nil {
				return nil, err
			}
			if isType(args[i].Type(), schema.TimestampNTZ) {
				args[i] = &castN{x: args[i], t: tTimestamp, implicit: true}
			}
		}
		if len(e.Args) == 3 {
			if args[2], err = b.bind(e.Args[2]); err != nil {
				return nil, err
			}
			if !isBool(args[2].Type()) {
				return nil, errAt(e.Args[2], "months_between takes its roundOff as a boolean, not %s", typeName(args[2].Type()))
			}
		} else {
			args = append(args, &lit{v: true, t: tBool, src: &Literal{Kind: LitBool, Text: "true"}})
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tDouble}, e)
	case "make_date":
		args := make([]node, 3)
		var err error
		for i, a := range e.Args {
			if args[i], err = b.intOperand(e, a); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tDate}, e)
	case "next_day":
		d, err := b.dateOperand(e, e.Args[0])
		if err != nil {
			return nil, err
		}
		dow, err := b.stringOperand(e.Args[1])
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: []node{d, dow}, t: tDate}, e)
	}
	// timestampadd(unit, n, ts) and timestampdiff(unit, start, end), also
	// as dateadd / date_add and datediff / date_diff.
	col, ok := e.Args[0].(*Column)
	unit := ""
	if ok && len(col.Parts) == 1 {
		unit = strings.ToUpper(col.Parts[0])
	}
	add := e.Name == "timestampadd" || e.Name == "dateadd" || e.Name == "date_add"
	if !timeUnits[unit] || !add && unit == "DAYOFYEAR" {
		return nil, errAt(e.Args[0], "%s takes a unit first (YEAR, QUARTER, MONTH, WEEK, DAY, HOUR, MINUTE, SECOND, MILLISECOND or MICROSECOND), not %s", e.Name, e.Args[0])
	}
	u := &lit{v: unit, t: tString, src: &Literal{Kind: LitString, Text: unit}}
	if add {
		n, err := b.castOperand(e, e.Args[1], tLong)
		if err != nil {
			return nil, err
		}
		ts, err := b.timestampOperand(e, e.Args[2])
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: "timestampadd", args: []node{u, n, ts}, t: ts.Type()}, e)
	}
	args := []node{u, nil, nil}
	for i := 1; i < 3; i++ {
		x, err := b.timestampOperand(e, e.Args[i])
		if err != nil {
			return nil, err
		}
		args[i] = x
	}
	// Two kinds of timestamp compare as timestamps (Spark's coercion).
	if !sameType(args[1].Type(), args[2].Type()) {
		for i := 1; i < 3; i++ {
			if !isType(args[i].Type(), schema.Timestamp) {
				args[i] = &castN{x: args[i], t: tTimestamp, implicit: true}
			}
		}
	}
	return b.fold(&callN{fn: "timestampdiff", args: args, t: tLong}, e)
}

func formatCheck(s string) error { _, err := parseDatePattern(s); return err }

func parseCheck(s string) error {
	p, err := parseDatePattern(s)
	if err != nil {
		return err
	}
	return p.checkParse()
}

// optionalPattern binds argument i of e, a format string literal, or the
// default pattern when e has no such argument.
func (b *binder) optionalPattern(e *Call, i int, check func(string) error) (node, error) {
	if len(e.Args) > i {
		return b.patternOperand(e, e.Args[i], check)
	}
	return &lit{v: defaultTimestampPattern, t: tString, src: &Literal{Kind: LitString, Text: defaultTimestampPattern}}, nil
}

// timeFunction evaluates the functions bindTimeFunc binds.
func (ev *evaluator) timeFunction(n *callN, args []value) (value, error) {
	switch n.fn {
	case "from_unixtime":
		cache := patternCache{}
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			p, err := cache.get(v[1].(string), n.fn)
			if err != nil {
				return nil, err
			}
			sec := v[0].(int64)
			if sec > math.MaxInt64/1_000_000 || sec < math.MinInt64/1_000_000 {
				return nil, errs.New(errs.InvalidArgument, "", "from_unixtime: %d seconds overflow a timestamp", sec)
			}
			return p.format(microsTime(localMicros(ev.loc, sec*1e6))), nil
		})
	case "unix_timestamp", "to_unix_timestamp":
		from := n.args[0].Type()
		cache := patternCache{}
		return ev.mapRows(args, tLong, true, func(v []any) (any, error) {
			switch {
			case isTimestamp(from):
				return floorDiv(int64(v[0].(arrow.Timestamp)), 1e6), nil
			case isType(from, schema.Date):
				return floorDiv(zonedMicros(ev.loc, int64(v[0].(arrow.Date32))*microsPerDay), 1e6), nil
			}
			us, err := cache.parse(v[0].(string), v[1].(string), n.fn)
			if err != nil {
				return nil, err
			}
			return floorDiv(zonedMicros(ev.loc, us), 1e6), nil
		})
	case "to_timestamp", "to_date":
		cache := patternCache{}
		return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
			us, err := cache.parse(v[0].(string), v[1].(string), n.fn)
			if err != nil {
				return nil, err
			}
			if n.fn == "to_date" {
				return arrow.Date32(floorDiv(us, microsPerDay)), nil // the local date read
			}
			return arrow.Timestamp(zonedMicros(ev.loc, us)), nil
		})
	case "months_between":
		return ev.mapRows(args, tDouble, true, func(v []any) (any, error) {
			return monthsBetween(ev.loc, int64(v[0].(arrow.Timestamp)), int64(v[1].(arrow.Timestamp)), v[2].(bool)), nil
		})
	case "make_date":
		return ev.mapRows(args, tDate, true, func(v []any) (any, error) {
			y, m, d := int(v[0].(int32)), int(v[1].(int32)), int(v[2].(int32))
			tm := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
			if tm.Year() != y || int(tm.Month()) != m || tm.Day() != d || m < 1 || d < 1 {
				return nil, errs.New(errs.InvalidArgument, "", "make_date(%d, %d, %d): not a valid date", y, m, d)
			}
			return arrow.Date32(floorDiv(tm.Unix(), 86400)), nil
		})
	case "next_day":
		return ev.mapRows(args, tDate, true, func(v []any) (any, error) {
			dow, ok := dayOfWeek(v[1].(string))
			if !ok {
				return nil, errs.New(errs.InvalidArgument, "", "next_day: %q is not a day of the week (SU, SUN, SUNDAY, MO, ...)", v[1].(string))
			}
			start := int64(v[0].(arrow.Date32))
			return arrow.Date32(start + 1 + ((dow-1-start)%7+7)%7), nil
		})
	case "timestampadd":
		loc := ev.loc
		if !isType(n.t, schema.Timestamp) {
			loc = time.UTC // a TIMESTAMP_NTZ adds to its local date-time
		}
		return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
			us, err := timestampAddIn(loc, v[0].(string), v[1].(int64), int64(v[2].(arrow.Timestamp)))
			return arrow.Timestamp(us), err
		})
	}
	// timestampdiff
	loc := ev.loc
	if !isType(n.args[1].Type(), schema.Timestamp) {
		loc = time.UTC // both TIMESTAMP_NTZ (else both were cast to TIMESTAMP)
	}
	return ev.mapRows(args, tLong, true, func(v []any) (any, error) {
		// Spark's timestampDiff: ChronoUnit.between the local date-times,
		// every unit on the local time-line.
		return timestampDiff(v[0].(string), localMicros(loc, int64(v[1].(arrow.Timestamp))), localMicros(loc, int64(v[2].(arrow.Timestamp)))), nil
	})
}

// patternCache keeps the last pattern a function parsed.
type patternCache struct {
	text string
	p    datePattern
}

func (c *patternCache) get(s, fn string) (datePattern, error) {
	if c.p != nil && c.text == s {
		return c.p, nil
	}
	p, err := parseDatePattern(s)
	if err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "%s format %q: %v", fn, s, err)
	}
	c.text, c.p = s, p
	return p, nil
}

// parse is text parsed with pattern (parsed once while it repeats).
func (c *patternCache) parse(text, pattern, fn string) (int64, error) {
	p, err := c.get(pattern, fn)
	if err != nil {
		return 0, err
	}
	return p.parse(text)
}

// dayOfWeek is Spark's getDayOfWeekFromString: 0 for Thursday (1970-01-01
// was one), 1 for Friday, ...
func dayOfWeek(s string) (int64, bool) {
	u := strings.ToUpper(s)
	for i, w := range []string{"THURSDAY", "FRIDAY", "SATURDAY", "SUNDAY", "MONDAY", "TUESDAY", "WEDNESDAY"} {
		if u == w || u == w[:2] || u == w[:3] {
			return int64(i), true
		}
	}
	return 0, false
}

// monthsBetween is Spark's DateTimeUtils.monthsBetween in time zone loc:
// whole months between the local dates when their days of month agree or
// both are their month's last, else the difference of the days and of the
// seconds elapsed since each local day began over 31 days added, rounded
// to 8 digits when roundOff.
func monthsBetween(loc *time.Location, us1, us2 int64, roundOff bool) float64 {
	d1, d2 := floorDiv(localMicros(loc, us1), microsPerDay), floorDiv(localMicros(loc, us2), microsPerDay)
	t1, t2 := time.Unix(d1*86400, 0).UTC(), time.Unix(d2*86400, 0).UTC()
	toEnd := func(t time.Time) int {
		return time.Date(t.Year(), t.Month()+1, 0, 0, 0, 0, 0, time.UTC).Day() - t.Day()
	}
	monthDiff := float64((t1.Year()*12 + int(t1.Month())) - (t2.Year()*12 + int(t2.Month())))
	if t1.Day() == t2.Day() || toEnd(t1) == 0 && toEnd(t2) == 0 {
		return monthDiff
	}
	sec1, sec2 := (us1-zonedMicros(loc, d1*microsPerDay))/1e6, (us2-zonedMicros(loc, d2*microsPerDay))/1e6
	secondsDiff := int64(t1.Day()-t2.Day())*86400 + sec1 - sec2
	diff := monthDiff + float64(secondsDiff)/float64(31*86400)
	if roundOff {
		return javaRound(diff*1e8) / 1e8
	}
	return diff
}

// javaRound is Java's Math.round on a double (half up), as a float.
func javaRound(x float64) float64 { return math.Floor(x + 0.5) }

// timestampAddIn is Spark's DateTimeUtils.timestampAdd in time zone loc:
// units up to an hour add their length to the instant; days, weeks and
// months add to the local date-time, which keeps its offset where it is
// still valid (ZonedDateTime.plusDays, plusMonths).
func timestampAddIn(loc *time.Location, unit string, n int64, us int64) (int64, error) {
	if _, small := timeUnitMicros[unit]; small || loc == time.UTC {
		return timestampAdd(unit, n, us)
	}
	w, err := timestampAdd(unit, n, localMicros(loc, us))
	if err != nil {
		return 0, err
	}
	return zonedMicrosKeeping(loc, w, offsetMicros(loc, us)), nil
}

// timeUnitMicros are the units of timestampadd and timestampdiff that
// count on the instant time-line, with their length.
var timeUnitMicros = map[string]int64{"MICROSECOND": 1, "MILLISECOND": 1000, "SECOND": 1e6, "MINUTE": 60e6, "HOUR": 3600e6}

// timestampAdd is Spark's DateTimeUtils.timestampAdd in UTC: units up to
// a day add their length, months (quarters, years) add calendar months
// keeping the time and clamping the day to the month's end; a result
// beyond the range of timestamps is an error.
func timestampAdd(unit string, n int64, us int64) (int64, error) {
	overflow := func() (int64, error) {
		return 0, errs.New(errs.InvalidArgument, "", "timestampadd(%s, %d, %s) overflows a timestamp", unit, n, formatMicros(us))
	}
	per := map[string]int64{"MICROSECOND": 1, "MILLISECOND": 1000, "SECOND": 1e6, "MINUTE": 60e6, "HOUR": 3600e6,
		"DAY": microsPerDay, "DAYOFYEAR": microsPerDay, "WEEK": 7 * microsPerDay}
	if p, ok := per[unit]; ok {
		d, ok := mulExact(n, p)
		out := us + d
		if !ok || (d > 0 && out < us) || (d < 0 && out > us) {
			return overflow()
		}
		return out, nil
	}
	months, ok := mulExact(n, map[string]int64{"MONTH": 1, "QUARTER": 3, "YEAR": 12}[unit])
	if !ok || months > math.MaxInt32 || months < math.MinInt32 {
		return overflow() // Spark's Math.multiplyExact on ints
	}
	days := floorDiv(us, microsPerDay)
	tod := us - days*microsPerDay
	nd := addMonthsLong(days, months)
	if nd > math.MaxInt64/86_400_000_000-1 || nd < math.MinInt64/86_400_000_000+1 {
		return overflow()
	}
	return nd*microsPerDay + tod, nil
}

// mulExact is a*b, ok false when it overflows (Java's Math.multiplyExact).
func mulExact(a, b int64) (int64, bool) {
	if a == 0 || b == 0 {
		return 0, true
	}
	c := a * b
	return c, c/b == a && !(a == -1 && b == math.MinInt64) && !(b == -1 && a == math.MinInt64)
}

// addMonthsLong is addMonths for a count of months beyond int32 days.
func addMonthsLong(days, n int64) int64 {
	tm := time.Unix(days*86400, 0).UTC()
	y, m, d := tm.Date()
	first := time.Date(y, m+time.Month(n), 1, 0, 0, 0, 0, time.UTC)
	last := first.AddDate(0, 1, -1).Day()
	out := time.Date(first.Year(), first.Month(), min(d, last), 0, 0, 0, 0, time.UTC)
	return floorDiv(out.Unix(), 86400)
}

// timestampDiff is Spark's DateTimeUtils.timestampDiff on two local
// date-times (microseconds read as UTC): Java's
// ChronoUnit.between on the two local date-times, whole units truncated
// toward zero (a month counts when the day and time of month are reached).
func timestampDiff(unit string, start, end int64) int64 {
	if p, ok := timeUnitMicros[unit]; ok {
		return (end - start) / p
	}
	sd, ed := floorDiv(start, microsPerDay), floorDiv(end, microsPerDay)
	st, et := start-sd*microsPerDay, end-ed*microsPerDay
	// LocalDateTime.until: the end date moves a day towards the start when
	// its time of day has not reached the start's.
	switch {
	case ed > sd && et < st:
		ed--
	case ed < sd && et > st:
		ed++
	}
	switch unit {
	case "DAY":
		return ed - sd
	case "WEEK":
		return (ed - sd) / 7
	}
	months := monthsUntil(sd, ed)
	switch unit {
	case "QUARTER":
		return months / 3
	case "YEAR":
		return months / 12
	}
	return months
}

// monthsUntil is java.time.LocalDate.monthsUntil.
func monthsUntil(from, to int64) int64 {
	packed := func(days int64) int64 {
		t := time.Unix(days*86400, 0).UTC()
		return (int64(t.Year())*12+int64(t.Month())-1)*32 + int64(t.Day())
	}
	return (packed(to) - packed(from)) / 32
}

func formatMicros(us int64) string { return microsTime(us).Format("2006-01-02 15:04:05.999999") }

// checkParse refuses pattern letters that only format: E, as Spark
// refuses it in a parsing pattern, and L, which this engine does not
// parse.
func (p datePattern) checkParse() error {
	for _, part := range p {
		switch part.letter {
		case 'E':
			return fmt.Errorf("pattern letter 'E' only formats, Spark does not parse it")
		case 'L':
			return fmt.Errorf("pattern letter 'L' is beyond the ones this engine parses (y M d D H h k K m s S a and quoted text)")
		}
	}
	return nil
}

// parse reads s as Spark's parsers (to_timestamp, unix_timestamp,
// to_date) read it with the pattern, strictly: every field within its
// range, the whole text consumed; fields the pattern lacks take their
// least value (1970-01-01 00:00:00). The result is microseconds since the
// epoch in UTC. A text that does not parse is an error, as in Spark's
// ANSI mode.
func (p datePattern) parse(s string) (int64, error) {
	fail := func(why string) (int64, error) {
		return 0, errs.New(errs.InvalidArgument, "", "cannot parse %s with the pattern %q: %s", quoteString(s), p.String(), why)
	}
	year, month, day, doy := 1970, 1, 1, 0
	hour, hour12, minute, sec, nanos := 0, -1, 0, 0, 0
	pm := -1
	pos := 0
	for i, part := range p {
		if part.letter == 0 {
			if !strings.HasPrefix(s[pos:], part.text) {
				return fail(fmt.Sprintf("expected %q at position %d", part.text, pos))
			}
			pos += len(part.text)
			continue
		}
		n := part.count
		// A numeric field followed by another numeric field takes its
		// width exactly (java.time's adjacent value parsing); a single
		// letter takes 1 up to the field's width, a year of four letters
		// or more at least that many digits.
		adjacent := i+1 < len(p) && p[i+1].letter != 0 && numericLetter(p[i+1].letter, p[i+1].count)
		readNum := func(minW, maxW int) (int, bool) {
			j := pos
			for j < len(s) && j-pos < maxW && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			if j-pos < minW {
				return 0, false
			}
			v := 0
			for _, c := range s[pos:j] {
				v = v*10 + int(c-'0')
			}
			pos = j
			return v, true
		}
		width := func(max int) (int, int) {
			switch {
			case adjacent || n > 1 && n < max:
				return n, n
			case n == 1:
				return 1, max
			}
			return n, max
		}
		num := func(max int) (int, bool) {
			lo, hi := width(max)
			return readNum(lo, hi)
		}
		var v int
		ok := true
		switch part.letter {
		case 'y':
			switch {
			case n == 2:
				v, ok = readNum(2, 2)
				v += 2000
			default:
				lo, hi := width(10)
				if n >= 4 && !adjacent {
					lo, hi = n, 10
				}
				v, ok = readNum(lo, hi)
			}
			year = v
		case 'M':
			if n >= 3 {
				m, used := matchName(s[pos:], n == 3, func(i int) string { return time.Month(i + 1).String() }, 12)
				if m < 0 {
					return fail(fmt.Sprintf("no month name at position %d", pos))
				}
				month, pos = m+1, pos+used
				continue
			}
			month, ok = num(2)
		case 'd':
			day, ok = num(2)
		case 'D':
			doy, ok = num(3)
		case 'H', 'k':
			hour, ok = num(2)
			if part.letter == 'k' && hour == 24 {
				hour = 0
			}
		case 'h', 'K':
			hour12, ok = num(2)
			if part.letter == 'h' && hour12 == 12 {
				hour12 = 0
			}
		case 'm':
			minute, ok = num(2)
		case 's':
			sec, ok = num(2)
		case 'S':
			start := pos
			v, ok = readNum(1, n)
			if ok {
				for k := pos - start; k < 9; k++ {
					v *= 10
				}
				nanos = v
			}
		case 'a':
			switch {
			case strings.HasPrefix(strings.ToUpper(s[pos:]), "AM"):
				pm = 0
			case strings.HasPrefix(strings.ToUpper(s[pos:]), "PM"):
				pm = 1
			default:
				return fail(fmt.Sprintf("no AM or PM at position %d", pos))
			}
			pos += 2
		}
		if !ok {
			return fail(fmt.Sprintf("no %s at position %d", strings.Repeat(string(part.letter), n), pos))
		}
	}
	if pos != len(s) {
		return fail(fmt.Sprintf("unparsed text %q", s[pos:]))
	}
	if hour12 >= 0 {
		if hour12 > 11 {
			return fail("hour of am-pm out of range")
		}
		hour = hour12
		if pm == 1 {
			hour += 12
		}
	}
	var date time.Time
	if doy > 0 {
		date = time.Date(year, 1, doy, 0, 0, 0, 0, time.UTC)
		if date.Year() != year {
			return fail(fmt.Sprintf("day of year %d out of range", doy))
		}
	} else {
		date = time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC)
		if month < 1 || month > 12 || day < 1 || date.Day() != day {
			return fail(fmt.Sprintf("%04d-%02d-%02d is not a date", year, month, day))
		}
	}
	if hour > 23 || minute > 59 || sec > 59 {
		return fail("a time field out of range")
	}
	return date.Unix()*1e6 + int64(hour)*3600e6 + int64(minute)*60e6 + int64(sec)*1e6 + int64(nanos/1000), nil
}

// numericLetter reports whether a pattern letter repeated n times reads
// digits.
func numericLetter(r rune, n int) bool {
	switch r {
	case 'M', 'L':
		return n < 3
	case 'a', 'E':
		return false
	}
	return true
}

// matchName matches the start of s against count names (short: their
// first three letters), ignoring case; the index and length matched, -1
// when none.
func matchName(s string, short bool, name func(int) string, count int) (int, int) {
	for i := range count {
		nm := name(i)
		if short {
			nm = nm[:3]
		}
		if len(s) >= len(nm) && strings.EqualFold(s[:len(nm)], nm) {
			return i, len(nm)
		}
	}
	return -1, 0
}

// String is the pattern as written.
func (p datePattern) String() string {
	var sb strings.Builder
	for _, part := range p {
		if part.letter == 0 {
			if strings.ContainsAny(part.text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'") {
				sb.WriteString("'" + strings.ReplaceAll(part.text, "'", "''") + "'")
			} else {
				sb.WriteString(part.text)
			}
			continue
		}
		sb.WriteString(strings.Repeat(string(part.letter), part.count))
	}
	return sb.String()
}
