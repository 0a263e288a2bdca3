package partitions

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// The kinds a Definition reports.
const (
	KindDaily      = "daily"
	KindHourly     = "hourly"
	KindWeekly     = "weekly"
	KindMonthly    = "monthly"
	KindTimeWindow = "time_window"
	KindStatic     = "static"
	KindDynamic    = "dynamic"
	KindMulti      = "multi"
)

// Definition is how an asset is partitioned: *TimeWindow, *StaticKeys,
// *DynamicKeys or *MultiKeys.
type Definition interface {
	// Kind is daily, hourly, weekly, monthly, time_window, static,
	// dynamic or multi.
	Kind() string
	// Validate returns an error naming key when it is not a key of the
	// definition (or the definition itself is invalid).
	Validate(key string) error
	isDefinition()
}

func invalid(format string, args ...any) error {
	return errs.New(errs.InvalidArgument, "", format, args...)
}

// Default key formats, as rivers writes them.
const (
	FormatDaily  = "%Y-%m-%d"
	FormatHourly = "%Y-%m-%dT%H:00"
	FormatWindow = "%Y-%m-%dT%H:%M:%S"
)

// TimeWindow partitions time into consecutive half-open windows
// [start, end) on a schedule, computed on the wall clock of its zone (so
// a daily window in a zone with daylight saving lasts 23 or 25 hours). A
// key is its window's start in the key format.
type TimeWindow struct {
	kind     string
	start    time.Time // the first window starts at the first tick at or after it
	end      time.Time // zero: no end
	loc      *time.Location
	layout   layout
	cron     *cronSpec     // time_window by cron, weekly, monthly, daily, hourly
	interval time.Duration // time_window by interval: ticks at start + k*interval
	err      error         // an invalid option or schedule, returned by every method
}

// WindowOption sets an optional property of a time window definition.
type WindowOption func(*TimeWindow)

// WithEnd ends the partitions: the last window ends at or before end (a
// wall clock in the definition's zone).
func WithEnd(end time.Time) WindowOption { return func(w *TimeWindow) { w.end = end } }

// WithFormat sets the key format (strftime: %Y %m %d %H %M %S %j %%).
func WithFormat(f string) WindowOption {
	return func(w *TimeWindow) {
		l, err := parseLayout(f)
		if err != nil && w.err == nil {
			w.err = invalid("%v", err)
		}
		w.layout = l
	}
}

// WithLocation sets the time zone windows are computed in (UTC by default).
func WithLocation(loc *time.Location) WindowOption {
	return func(w *TimeWindow) {
		if loc == nil && w.err == nil {
			w.err = invalid("time zone is nil")
		}
		w.loc = loc
	}
}

// WithTimezone is WithLocation by IANA name ("America/New_York").
func WithTimezone(name string) WindowOption {
	return func(w *TimeWindow) {
		loc, err := time.LoadLocation(name)
		if err != nil {
			if w.err == nil {
				w.err = invalid("unknown time zone %q: use an IANA name such as \"America/New_York\" or \"UTC\"", name)
			}
			return
		}
		w.loc = loc
	}
}

func newWindow(kind, cron, defFormat string, start time.Time, interval time.Duration, opts []WindowOption) *TimeWindow {
	w := &TimeWindow{kind: kind, loc: time.UTC, interval: interval}
	w.layout, _ = parseLayout(defFormat)
	for _, o := range opts {
		o(w)
	}
	if cron != "" {
		c, err := parseCron(cron)
		if err != nil && w.err == nil {
			w.err = invalid("%v", err)
		}
		w.cron = c
	}
	if cron == "" && interval < time.Second && w.err == nil {
		w.err = invalid("a time window interval must be at least one second, got %s", interval)
	}
	// Start and end are wall clocks in the definition's zone.
	w.start = wall(start, w.loc)
	if !w.end.IsZero() {
		w.end = wall(w.end, w.loc)
		if !w.end.After(w.start) && w.err == nil {
			w.err = invalid("%s partitions end %s before they start %s", kind, w.end.Format(time.DateTime), w.start.Format(time.DateTime))
		}
	}
	return w
}

func wall(t time.Time, loc *time.Location) time.Time {
	return time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), 0, loc)
}

// Daily partitions by calendar day from start (keys "%Y-%m-%d").
func Daily(start time.Time, opts ...WindowOption) Definition {
	return newWindow(KindDaily, "0 0 * * *", FormatDaily, start, 0, opts)
}

// Hourly partitions by hour from start (keys "%Y-%m-%dT%H:00").
func Hourly(start time.Time, opts ...WindowOption) Definition {
	return newWindow(KindHourly, "0 * * * *", FormatHourly, start, 0, opts)
}

// Weekly partitions by week, Monday to Monday, from start (keys "%Y-%m-%d").
func Weekly(start time.Time, opts ...WindowOption) Definition {
	return newWindow(KindWeekly, "0 0 * * 1", FormatDaily, start, 0, opts)
}

// Monthly partitions by calendar month from start (keys "%Y-%m-%d").
func Monthly(start time.Time, opts ...WindowOption) Definition {
	return newWindow(KindMonthly, "0 0 1 * *", FormatDaily, start, 0, opts)
}

// Cron partitions time into the windows between consecutive ticks of a
// 5-field cron schedule (keys "%Y-%m-%dT%H:%M:%S").
func Cron(schedule string, start time.Time, opts ...WindowOption) (Definition, error) {
	if strings.TrimSpace(schedule) == "" {
		err := invalid("a cron time window needs a schedule such as \"0 0 * * 1\"")
		return &TimeWindow{kind: KindTimeWindow, loc: time.UTC, err: err}, err
	}
	w := newWindow(KindTimeWindow, schedule, FormatWindow, start, 0, opts)
	return w, w.err
}

// Interval partitions time into windows of length d from start (keys
// "%Y-%m-%dT%H:%M:%S"). The windows are fixed durations: they do not
// follow daylight saving changes.
func Interval(d time.Duration, start time.Time, opts ...WindowOption) (Definition, error) {
	w := newWindow(KindTimeWindow, "", FormatWindow, start, d, opts)
	return w, w.err
}

func (w *TimeWindow) Kind() string { return w.kind }
func (*TimeWindow) isDefinition()  {}

// Format is the strftime format keys are written in.
func (w *TimeWindow) Format() string { return w.layout.src }

// Location is the zone windows are computed in.
func (w *TimeWindow) Location() *time.Location { return w.loc }

// Start is the wall clock the partitions start at, in Location.
func (w *TimeWindow) Start() time.Time { return w.start }

// End is the wall clock the partitions end at, or the zero time.
func (w *TimeWindow) End() time.Time { return w.end }

// Err is the definition's error (an invalid format, zone or schedule).
func (w *TimeWindow) Err() error { return w.err }

// isTick reports whether t is a window boundary of the schedule.
func (w *TimeWindow) isTick(t time.Time) bool {
	if w.cron != nil {
		return w.cron.matches(t)
	}
	return t.Sub(w.start)%w.interval == 0
}

// next is the boundary after tick t.
func (w *TimeWindow) next(t time.Time) (time.Time, error) {
	if w.cron != nil {
		return w.cron.next(t)
	}
	return t.Add(w.interval), nil
}

// first is the start of the first window: the first tick at or after start.
func (w *TimeWindow) first() (time.Time, error) {
	if w.isTick(w.start) {
		return w.start, nil
	}
	return w.next(w.start)
}

// Window returns the [start, end) of key's window, in Location.
func (w *TimeWindow) Window(key string) (start, end time.Time, err error) {
	if w.err != nil {
		return start, end, w.err
	}
	t, perr := w.layout.parse(key, w.loc)
	if perr == nil && w.layout.format(t) != key {
		perr = fmt.Errorf("it names the wall clock %s, which %s skips", t.Format(time.DateTime), w.loc)
	}
	if perr != nil {
		return start, end, invalid("cannot parse partition key '%s' with format '%s': %v", key, w.layout.src, perr)
	}
	if !w.isTick(t) {
		return start, end, invalid("partition key %q is not on the %s schedule%s: a window starts %s", key, w.kind, w.scheduleNote(), w.describeTicks())
	}
	first, err := w.first()
	if err != nil {
		return start, end, invalid("%v", err)
	}
	if t.Before(first) {
		return start, end, invalid("partition key %q is before the first partition %q", key, w.layout.format(first))
	}
	end, err = w.next(t)
	if err != nil {
		return start, end, invalid("%v", err)
	}
	if !w.end.IsZero() && end.After(w.end) {
		return start, end, invalid("partition key %q is after the last partition, which ends %s", key, w.end.Format(time.DateTime))
	}
	return t, end, nil
}

func (w *TimeWindow) scheduleNote() string {
	if w.cron != nil && w.kind == KindTimeWindow {
		return fmt.Sprintf(" %q", w.cron.src)
	}
	return ""
}

func (w *TimeWindow) describeTicks() string {
	switch {
	case w.cron == nil:
		return fmt.Sprintf("every %s from %s", w.interval, w.layout.format(w.start))
	case w.kind == KindDaily:
		return "at midnight"
	case w.kind == KindHourly:
		return "on the hour"
	case w.kind == KindWeekly:
		return "on Monday at midnight"
	case w.kind == KindMonthly:
		return "on the first of the month at midnight"
	}
	return "on a tick of the schedule"
}

// Validate returns an error naming key when it is not the start of one of
// the definition's windows.
func (w *TimeWindow) Validate(key string) error {
	_, _, err := w.Window(key)
	return err
}

// Key is the key of the window starting at tick t.
func (w *TimeWindow) Key(t time.Time) string { return w.layout.format(t.In(w.loc)) }

// maxKeys bounds one enumeration (a century of hourly windows is 876,600).
const maxKeys = 1_000_000

// KeysBetween returns, in order, the keys of the windows that start at or
// after from and before to (wall clocks in Location), within the
// definition's start and end: the keys a backfill of [from, to) runs.
func (w *TimeWindow) KeysBetween(from, to time.Time) ([]string, error) {
	if w.err != nil {
		return nil, w.err
	}
	from, to = wall(from, w.loc), wall(to, w.loc)
	if !w.end.IsZero() && to.After(w.end) {
		to = w.end
	}
	t, err := w.first()
	if err != nil {
		return nil, invalid("%v", err)
	}
	var keys []string
	for t.Before(to) {
		end, err := w.next(t)
		if err != nil {
			return nil, invalid("%v", err)
		}
		if !w.end.IsZero() && end.After(w.end) {
			break
		}
		if !t.Before(from) {
			if len(keys) == maxKeys {
				return nil, invalid("%s to %s holds more than %d %s partitions; backfill a shorter range", from.Format(time.DateTime), to.Format(time.DateTime), maxKeys, w.kind)
			}
			keys = append(keys, w.layout.format(t))
		}
		t = end
	}
	return keys, nil
}

// KeysInRange returns the keys from first to last, both included.
func (w *TimeWindow) KeysInRange(first, last string) ([]string, error) {
	a, _, err := w.Window(first)
	if err != nil {
		return nil, err
	}
	b, bEnd, err := w.Window(last)
	if err != nil {
		return nil, err
	}
	if b.Before(a) {
		return nil, invalid("partition key range %q to %q runs backwards", first, last)
	}
	return w.KeysBetween(a, bEnd)
}

// StaticKeys is a fixed list of keys.
type StaticKeys struct {
	keys []string
	err  error
}

// Static partitions by a fixed list of keys.
func Static(keys ...string) Definition {
	s := &StaticKeys{keys: slices.Clone(keys)}
	seen := map[string]bool{}
	for _, k := range keys {
		switch {
		case k == "":
			s.err = invalid("a static partition key is empty")
		case seen[k]:
			s.err = invalid("static partition key %q is listed twice", k)
		}
		if s.err != nil {
			break
		}
		seen[k] = true
	}
	if len(keys) == 0 {
		s.err = invalid("a static partitions definition needs at least one key")
	}
	return s
}

func (*StaticKeys) Kind() string  { return KindStatic }
func (*StaticKeys) isDefinition() {}

// Keys are the definition's keys, in their order.
func (s *StaticKeys) Keys() []string { return slices.Clone(s.keys) }

// Err is the definition's error (no key, an empty or repeated key).
func (s *StaticKeys) Err() error { return s.err }

// Validate returns an error naming key when it is not one of the keys.
func (s *StaticKeys) Validate(key string) error {
	if s.err != nil {
		return s.err
	}
	if !slices.Contains(s.keys, key) {
		return invalid("partition key %q is not one of the static keys %s", key, quoteList(s.keys, 20))
	}
	return nil
}

// DynamicKeys is an open set of keys added at run time.
type DynamicKeys struct{}

// Dynamic partitions by keys known only at run time: any non-empty key.
func Dynamic() Definition { return &DynamicKeys{} }

func (*DynamicKeys) Kind() string  { return KindDynamic }
func (*DynamicKeys) isDefinition() {}

// Validate accepts any non-empty key.
func (*DynamicKeys) Validate(key string) error {
	if key == "" {
		return invalid("a dynamic partition key is empty")
	}
	return nil
}

// MultiKeys is the product of named dimensions; a key names a key of
// every dimension: "date=2024-01-02,region=us".
type MultiKeys struct {
	names []string // sorted
	dims  map[string]Definition
	err   error
}

// Multi partitions by several named dimensions, each a time window,
// static or dynamic definition.
func Multi(dims map[string]Definition) Definition {
	m := &MultiKeys{dims: map[string]Definition{}}
	for name, d := range dims {
		m.names = append(m.names, name)
		m.dims[name] = d
	}
	slices.Sort(m.names)
	m.err = m.check()
	return m
}

func (m *MultiKeys) check() error {
	if len(m.names) < 2 {
		return invalid("a multi partitions definition needs at least two dimensions, got %d", len(m.names))
	}
	for _, name := range m.names {
		if name == "" || strings.ContainsAny(name, ",=") {
			return invalid("multi partition dimension name %q must be non-empty and hold no ',' or '='", name)
		}
		switch d := m.dims[name].(type) {
		case nil:
			return invalid("multi partition dimension %q has no definition", name)
		case *MultiKeys:
			return invalid("multi partition dimension %q is itself multi; list its dimensions at the top level", name)
		case *TimeWindow:
			if d.err != nil {
				return invalid("multi partition dimension %q: %v", name, d.err)
			}
		case *StaticKeys:
			if d.err != nil {
				return invalid("multi partition dimension %q: %v", name, d.err)
			}
			for _, k := range d.keys {
				if strings.Contains(k, ",") {
					return invalid("static key %q of multi partition dimension %q holds a ',', which a multi key cannot carry", k, name)
				}
			}
		}
	}
	return nil
}

func (*MultiKeys) Kind() string  { return KindMulti }
func (*MultiKeys) isDefinition() {}

// Dimensions are the dimension names, sorted.
func (m *MultiKeys) Dimensions() []string { return slices.Clone(m.names) }

// Dimension is the named dimension's definition, or nil.
func (m *MultiKeys) Dimension(name string) Definition { return m.dims[name] }

// Err is the definition's error (fewer than two dimensions, a bad one).
func (m *MultiKeys) Err() error { return m.err }

// Split parses "date=2024-01-02,region=us" into each dimension's key,
// validated against that dimension.
func (m *MultiKeys) Split(key string) (map[string]string, error) {
	if m.err != nil {
		return nil, m.err
	}
	parts := map[string]string{}
	for _, item := range strings.Split(key, ",") {
		name, v, ok := strings.Cut(item, "=")
		switch {
		case !ok:
			return nil, invalid("multi partition key %q: %q is not dimension=key (write it as %s)", key, item, m.example())
		case m.dims[name] == nil:
			return nil, invalid("multi partition key %q names unknown dimension %q; the dimensions are %s", key, name, quoteList(m.names, 0))
		case hasKey(parts, name):
			return nil, invalid("multi partition key %q names dimension %q twice", key, name)
		}
		parts[name] = v
	}
	for _, name := range m.names {
		v, ok := parts[name]
		if !ok {
			return nil, invalid("multi partition key %q has no key for dimension %q (write it as %s)", key, name, m.example())
		}
		if err := m.dims[name].Validate(v); err != nil {
			return nil, invalid("multi partition key %q, dimension %q: %v", key, name, unwrapMsg(err))
		}
	}
	return parts, nil
}

// Join writes a multi key from each dimension's key, dimensions sorted.
func (m *MultiKeys) Join(parts map[string]string) string {
	items := make([]string, 0, len(m.names))
	for _, name := range m.names {
		items = append(items, name+"="+parts[name])
	}
	return strings.Join(items, ",")
}

func (m *MultiKeys) example() string {
	items := make([]string, len(m.names))
	for i, n := range m.names {
		items[i] = n + "=..."
	}
	return strings.Join(items, ",")
}

// Validate returns an error naming key when it does not name a valid key
// of every dimension.
func (m *MultiKeys) Validate(key string) error {
	_, err := m.Split(key)
	return err
}

func hasKey(m map[string]string, k string) bool { _, ok := m[k]; return ok }

// unwrapMsg is a *deltalite.Error's own message, so that a wrapping message
// does not repeat "invalid argument".
func unwrapMsg(err error) string {
	if e, ok := err.(*errs.Error); ok && e.Err == nil {
		return e.Msg
	}
	return err.Error()
}

// quoteList writes at most max (0: all) items quoted: "a", "b", ... (12 more).
func quoteList(items []string, max int) string {
	var sb strings.Builder
	for i, it := range items {
		if max > 0 && i == max {
			fmt.Fprintf(&sb, ", ... (%d more)", len(items)-max)
			break
		}
		if i > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%q", it)
	}
	return sb.String()
}
