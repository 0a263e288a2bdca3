package partitions

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/jsonkeys"
)

// definitionFields are the fields each kind of PD JSON takes.
var definitionFields = map[string][]string{
	KindDaily:      {"kind", "start", "end", "fmt", "timezone"},
	KindHourly:     {"kind", "start", "end", "fmt", "timezone"},
	KindWeekly:     {"kind", "start", "end", "fmt", "timezone"},
	KindMonthly:    {"kind", "start", "end", "fmt", "timezone"},
	KindTimeWindow: {"kind", "cron", "interval_seconds", "start", "end", "fmt", "timezone"},
	KindStatic:     {"kind", "keys"},
	KindDynamic:    {"kind"},
	KindMulti:      {"kind", "dimensions"},
}

// ParseDefinition reads a partitions definition written as JSON, inline or
// in a .json file named by s:
//
//	{"kind": "daily|hourly|weekly|monthly", "start": "2024-01-01", "end": ..., "fmt": ..., "timezone": ...}
//	{"kind": "time_window", "cron": "0 0 * * 1" | "interval_seconds": N, "start": ..., "fmt": ...}
//	{"kind": "static", "keys": ["us", "eu"]}
//	{"kind": "dynamic"}
//	{"kind": "multi", "dimensions": {"region": {...}, "date": {...}}}
//
// start and end are wall clocks in the time zone ("2024-01-01",
// "2024-01-01T05:00:00" or "2024-01-01 05:00:00").
func ParseDefinition(s string) (Definition, error) {
	src, text := "partitions definition", strings.TrimSpace(s)
	if !strings.HasPrefix(text, "{") && !strings.HasPrefix(text, "[") {
		b, err := os.ReadFile(text)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, invalid("partitions definition %q is neither inline JSON (it does not start with '{') nor an existing file", s)
			}
			return nil, invalid("partitions definition file %s: %v", text, err)
		}
		src, text = text, string(b)
	}
	var raw json.RawMessage
	if err := json.Unmarshal([]byte(text), &raw); err != nil {
		return nil, invalid("%s: %s", src, jsonError(text, err))
	}
	if err := jsonkeys.Unique(raw); err != nil {
		return nil, errs.Wrap(errs.InvalidArgument, "", err, "%s", src)
	}
	d, err := decodeDefinition(raw, "")
	if err != nil {
		return nil, invalid("%s: %v", src, err)
	}
	return d, nil
}

// decodeDefinition builds one definition; at names where it sits in a
// multi definition ("dimensions.date"), for messages.
func decodeDefinition(raw json.RawMessage, at string) (Definition, error) {
	where := ""
	if at != "" {
		where = at + ": "
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return nil, fmt.Errorf("%sa partitions definition is a JSON object with a \"kind\", got %s", where, truncate(raw))
	}
	var kind string
	if err := json.Unmarshal(fields["kind"], &kind); err != nil || kind == "" {
		return nil, fmt.Errorf("%s\"kind\" must be one of %s", where, strings.Join(kindNames(), ", "))
	}
	allowed, ok := definitionFields[kind]
	if !ok {
		return nil, fmt.Errorf("%sunknown kind %q: use one of %s", where, kind, strings.Join(kindNames(), ", "))
	}
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		if !slices.Contains(allowed, name) {
			return nil, fmt.Errorf("%sunknown field %q for kind %q: it takes %s", where, name, kind, strings.Join(allowed, ", "))
		}
	}
	str := func(name string) (string, error) {
		v, ok := fields[name]
		if !ok {
			return "", nil
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", fmt.Errorf("%s%q must be a string, got %s", where, name, truncate(v))
		}
		return s, nil
	}
	switch kind {
	case KindStatic:
		var keys []string
		if err := json.Unmarshal(fields["keys"], &keys); err != nil || fields["keys"] == nil {
			return nil, fmt.Errorf("%sa static definition needs \"keys\": a list of strings", where)
		}
		d := Static(keys...)
		return d, prefixed(where, d.(*StaticKeys).err)
	case KindDynamic:
		return Dynamic(), nil
	case KindMulti:
		var dims map[string]json.RawMessage
		if err := json.Unmarshal(fields["dimensions"], &dims); err != nil || dims == nil {
			return nil, fmt.Errorf("%sa multi definition needs \"dimensions\": an object mapping each dimension name to its definition", where)
		}
		defs := map[string]Definition{}
		for _, name := range slices.Sorted(maps.Keys(dims)) {
			d, err := decodeDefinition(dims[name], at+"dimensions."+name)
			if err != nil {
				return nil, err
			}
			defs[name] = d
		}
		d := Multi(defs)
		return d, prefixed(where, d.(*MultiKeys).err)
	}
	var opts []WindowOption
	startText, err := str("start")
	if err != nil {
		return nil, err
	}
	if startText == "" {
		return nil, fmt.Errorf("%sa %s definition needs \"start\", e.g. \"2024-01-01\"", where, kind)
	}
	start, err := parseWallClock(startText)
	if err != nil {
		return nil, fmt.Errorf("%s\"start\": %v", where, err)
	}
	for _, name := range []string{"end", "fmt", "timezone"} {
		v, err := str(name)
		if err != nil {
			return nil, err
		}
		if _, given := fields[name]; !given {
			continue
		}
		switch name {
		case "end":
			end, err := parseWallClock(v)
			if err != nil {
				return nil, fmt.Errorf("%s\"end\": %v", where, err)
			}
			opts = append(opts, WithEnd(end))
		case "fmt":
			opts = append(opts, WithFormat(v))
		case "timezone":
			opts = append(opts, WithTimezone(v))
		}
	}
	var w *TimeWindow
	switch kind {
	case KindDaily:
		w = Daily(start, opts...).(*TimeWindow)
	case KindHourly:
		w = Hourly(start, opts...).(*TimeWindow)
	case KindWeekly:
		w = Weekly(start, opts...).(*TimeWindow)
	case KindMonthly:
		w = Monthly(start, opts...).(*TimeWindow)
	default:
		cron, err := str("cron")
		if err != nil {
			return nil, err
		}
		_, hasCron := fields["cron"]
		secs, hasInterval := fields["interval_seconds"]
		if hasCron == hasInterval {
			return nil, fmt.Errorf("%sa time_window definition needs exactly one of \"cron\" (e.g. \"0 0 * * 1\") and \"interval_seconds\"", where)
		}
		var d Definition
		if hasCron {
			d, _ = Cron(cron, start, opts...)
		} else {
			var n int64
			if err := json.Unmarshal(secs, &n); err != nil || n < 1 {
				return nil, fmt.Errorf("%s\"interval_seconds\" must be a positive whole number, got %s", where, truncate(secs))
			}
			d, _ = Interval(time.Duration(n)*time.Second, start, opts...)
		}
		w = d.(*TimeWindow)
	}
	return w, prefixed(where, w.err)
}

func prefixed(where string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%s%s", where, unwrapMsg(err))
}

func kindNames() []string {
	return []string{KindDaily, KindHourly, KindWeekly, KindMonthly, KindTimeWindow, KindStatic, KindDynamic, KindMulti}
}

// parseWallClock reads a date or a date and time without a zone.
func parseWallClock(s string) (time.Time, error) {
	for _, l := range []string{time.DateOnly, "2006-01-02T15:04:05", time.DateTime, "2006-01-02T15:04", "2006-01-02 15:04"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2024-01-01) or a date and time (2024-01-01T05:00:00) without a zone", s)
}

// jsonError says where in text a decoding error is, as line:column.
func jsonError(text string, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s: %v", lineCol(text, int(se.Offset)-1), err)
	}
	return err.Error()
}

func lineCol(text string, off int) string {
	off = min(off, len(text))
	line := 1 + bytes.Count([]byte(text[:off]), []byte("\n"))
	col := off - strings.LastIndexByte(text[:off], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

func truncate(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// Expr is an asset's delta/partition_expr: the column of a single
// dimension definition, or the column of each dimension of a multi one.
type Expr struct {
	Column  string
	Columns map[string]string
	// Order is the dimensions of Columns in the order the JSON object
	// writes them: the order of a new table's partition columns, as
	// rivers makes them. Nil means sorted by dimension name.
	Order []string
}

// IsZero reports whether no partition expression was given.
func (e Expr) IsZero() bool { return e.Column == "" && e.Columns == nil }

// String writes e back in its metadata form.
func (e Expr) String() string {
	if e.Columns == nil {
		return e.Column
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, dim := range e.dimensionOrder() {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(dim) // a string always marshals
		v, _ := json.Marshal(e.Columns[dim])
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.String()
}

// dimensionOrder is Order when it names exactly the dimensions of
// Columns, else those sorted.
func (e Expr) dimensionOrder() []string {
	if len(e.Order) == len(e.Columns) && !slices.ContainsFunc(e.Order, func(d string) bool { _, ok := e.Columns[d]; return !ok }) {
		return e.Order
	}
	return slices.Sorted(maps.Keys(e.Columns))
}

// ParseExpr reads delta/partition_expr: a JSON object mapping each
// dimension to its column, or else a column name. The empty string is the
// zero Expr (no partitioning).
func ParseExpr(s string) (Expr, error) {
	if strings.TrimSpace(s) == "" {
		return Expr{}, nil
	}
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return Expr{Column: s}, nil
	}
	var raw map[string]any
	if err := json.Unmarshal([]byte(s), &raw); err != nil {
		return Expr{}, invalid("delta/partition_expr %s is not a JSON object mapping dimension to column: %s", s, jsonError(s, err))
	}
	if err := jsonkeys.Unique([]byte(s)); err != nil {
		return Expr{}, errs.Wrap(errs.InvalidArgument, "", err, "delta/partition_expr %s", s)
	}
	if len(raw) == 0 {
		return Expr{}, invalid("delta/partition_expr {} maps no dimension to a column")
	}
	cols := map[string]string{}
	for _, dim := range slices.Sorted(maps.Keys(raw)) {
		col, ok := raw[dim].(string)
		if !ok || col == "" {
			return Expr{}, invalid("delta/partition_expr %s: dimension %q must map to a column name (a non-empty string)", s, dim)
		}
		cols[dim] = col
	}
	return Expr{Columns: cols, Order: objectKeys(s)}, nil
}

// objectKeys are the keys of the JSON object s in the order written (s
// is known to decode as an object); a key written twice counts once, at
// its first place.
func objectKeys(s string) []string {
	dec := json.NewDecoder(strings.NewReader(s))
	if _, err := dec.Token(); err != nil { // {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		if k, ok := tok.(string); ok && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return keys
}
