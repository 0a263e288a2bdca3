package stats

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/schema"
)

// timestampSlackMicros widens a timestamp upper bound: writers truncate
// timestamp statistics to milliseconds, so a max of ...00.123 stands for any
// instant up to ...00.123999.
const timestampSlackMicros = 999

// Column is what the statistics say about one leaf column of one file.
// Min and Max are Unknown when absent; with TightBounds false they are still
// bounds (min ≤ every live value ≤ max), only not necessarily attained.
type Column struct {
	Min, Max Value
	// NullCount is the number of null values, -1 when unknown.
	NullCount int64
}

var unknownColumn = Column{NullCount: -1}

// File is the parsed statistics of one data file.
type File struct {
	// NumRecords is the number of physical rows in the file (deleted rows
	// included), -1 when unknown.
	NumRecords int64
	// TightBounds is false when the bounds may be wider than the live rows
	// (a deletion vector removed rows after the statistics were taken).
	TightBounds bool
	cols        map[string]Column
}

// Column returns the statistics of the leaf column at the given logical
// path ("a", or "s", "x" for field x of struct s). Absent columns, and a nil
// File, give a Column that knows nothing.
func (f *File) Column(path ...string) Column {
	if f == nil {
		return unknownColumn
	}
	c, ok := f.cols[strings.Join(path, pathSep)]
	if !ok {
		return unknownColumn
	}
	return c
}

// pathSep joins logical path elements into map keys; it cannot occur in a
// column name that survives a JSON round trip unnoticed.
const pathSep = "\x00"

type rawStats struct {
	NumRecords  json.RawMessage            `json:"numRecords"`
	MinValues   map[string]json.RawMessage `json:"minValues"`
	MaxValues   map[string]json.RawMessage `json:"maxValues"`
	NullCount   map[string]json.RawMessage `json:"nullCount"`
	TightBounds *bool                      `json:"tightBounds"`
}

// Parse reads an Add.Stats string for a table of schema sc whose statistics
// are keyed by physical names under column mapping mode. It never fails: an
// empty or malformed string, or any value that does not fit the column's
// type, is simply unknown.
func Parse(raw string, sc *schema.Struct, mode schema.Mode) *File {
	f := &File{NumRecords: -1, TightBounds: true}
	if raw == "" || sc == nil {
		return f
	}
	var r rawStats
	if err := json.Unmarshal([]byte(raw), &r); err != nil {
		return f
	}
	if n, ok := parseInt(r.NumRecords); ok && n >= 0 {
		f.NumRecords = n
	}
	if r.TightBounds != nil {
		f.TightBounds = *r.TightBounds
	}
	f.cols = map[string]Column{}
	walk(f.cols, "", sc, mode, r.MinValues, r.MaxValues, r.NullCount)
	return f
}

// walk fills cols for the fields of st, descending into nested structs.
func walk(cols map[string]Column, prefix string, st *schema.Struct, mode schema.Mode, mins, maxs, nulls map[string]json.RawMessage) {
	for _, fld := range st.Fields {
		phys := fld.PhysicalName(mode)
		key := prefix + fld.Name
		if sub, ok := fld.Type.(*schema.Struct); ok {
			walk(cols, key+pathSep, sub, mode, object(mins[phys]), object(maxs[phys]), object(nulls[phys]))
			continue
		}
		c := Column{NullCount: -1}
		if n, ok := parseInt(nulls[phys]); ok && n >= 0 {
			c.NullCount = n
		}
		c.Min = leafValue(fld.Type, mins[phys])
		c.Max = leafValue(fld.Type, maxs[phys])
		if wasFloat(fld) {
			// Files written before the column was widened from float keep
			// float bounds, whose text ("1.1") stands for the float32 value
			// (1.10000002...) those files hold: the bounds cover both
			// readings of the text.
			lo, hi := leafValue(floatType, mins[phys]), leafValue(floatType, maxs[phys])
			if lo.Kind == Float && c.Min.Kind == Float {
				c.Min.Float = math.Min(c.Min.Float, lo.Float)
			}
			if hi.Kind == Float && c.Max.Kind == Float {
				c.Max.Float = math.Max(c.Max.Float, hi.Float)
			}
		}
		if p, ok := fld.Type.(*schema.Primitive); ok && c.Max.Kind == Int &&
			(p.Name == schema.Timestamp || p.Name == schema.TimestampNTZ) {
			if c.Max.Int <= math.MaxInt64-timestampSlackMicros {
				c.Max.Int += timestampSlackMicros
			} else {
				c.Max.Int = math.MaxInt64
			}
		}
		if c.NullCount >= 0 || c.Min.Known() || c.Max.Known() {
			cols[key] = c
		}
	}
}

var floatType = &schema.Primitive{Name: schema.Float}

// wasFloat reports whether fld, now double, was widened from float (its
// delta.typeChanges record it).
func wasFloat(fld *schema.Field) bool {
	if p, ok := fld.Type.(*schema.Primitive); !ok || p.Name != schema.Double {
		return false
	}
	changes, _ := fld.TypeChanges()
	for _, c := range changes {
		if c.Path == "" && c.From.String() == schema.Float {
			return true
		}
	}
	return false
}

// object decodes a nested statistics object; anything else is empty.
func object(raw json.RawMessage) map[string]json.RawMessage {
	if len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// scalarText returns the text of a JSON scalar and whether it was a string.
// ok is false for null, objects, arrays and malformed input.
func scalarText(raw json.RawMessage) (text string, quoted, ok bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] == '{' || raw[0] == '[' || bytes.Equal(raw, []byte("null")) {
		return "", false, false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false, false
		}
		return s, true, true
	}
	return string(raw), false, true
}

func parseInt(raw json.RawMessage) (int64, bool) {
	s, _, ok := scalarText(raw)
	if !ok {
		return 0, false
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		return n, true
	}
	// Some writers render integral statistics as floats ("5.0").
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// leafValue types one min/max statistic; Unknown when it does not fit.
func leafValue(t schema.Type, raw json.RawMessage) Value {
	s, quoted, ok := scalarText(raw)
	if !ok {
		return Value{}
	}
	switch t := t.(type) {
	case *schema.Decimal:
		n, err := schema.ParseDecimal(s, t.Precision, t.Scale)
		if err != nil {
			return Value{}
		}
		return Value{Kind: Decimal, Decimal: n}
	case *schema.Primitive:
		switch t.Name {
		case schema.Long, schema.Integer, schema.Short, schema.Byte:
			if n, ok := parseInt(raw); ok {
				return Value{Kind: Int, Int: n}
			}
		case schema.Float, schema.Double:
			if f, ok := parseFloat(s, t.Name == schema.Float); ok {
				return Value{Kind: Float, Float: f}
			}
		case schema.Boolean:
			switch s {
			case "true":
				return Value{Kind: Bool, Int: 1}
			case "false":
				return Value{Kind: Bool}
			}
		case schema.String:
			if quoted {
				return Value{Kind: Bytes, Bytes: s}
			}
		case schema.Date:
			if d, err := time.Parse("2006-01-02", s); err == nil && quoted {
				return Value{Kind: Int, Int: d.Unix() / 86400}
			}
		case schema.Timestamp, schema.TimestampNTZ:
			if us, err := schema.ParseTimestamp(s); err == nil && quoted {
				return Value{Kind: Int, Int: us}
			}
		}
	}
	// Binary, variant and nested types carry no usable bounds.
	return Value{}
}

// parseFloat reads a float bound; a float column's bound is rounded to
// float32 first, so "0.1" equals the stored float32 value, not the double.
func parseFloat(s string, single bool) (float64, bool) {
	switch s {
	case "NaN":
		return 0, false // NaN bounds order nothing
	case "Infinity", "+Infinity", "inf":
		return math.Inf(1), true
	case "-Infinity", "-inf":
		return math.Inf(-1), true
	}
	bits := 64
	if single {
		bits = 32
	}
	f, err := strconv.ParseFloat(s, bits)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// Loosened is an Add.Stats string with tightBounds false: the file's rows
// are unchanged but a deletion vector now hides some, so its bounds may be
// wider than its live rows. numRecords stays the physical count, and is
// set to records (the file's physical rows) where raw lacks it, as Spark
// requires of a file with a deletion vector; a malformed string is
// replaced by those two.
func Loosened(raw string, records int64) string {
	var m map[string]json.RawMessage
	if raw == "" || json.Unmarshal([]byte(raw), &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	if _, ok := m["numRecords"]; !ok {
		m["numRecords"] = json.RawMessage(strconv.FormatInt(records, 10))
	}
	m["tightBounds"] = json.RawMessage("false")
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return string(b)
}
