package checkpoint

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// statsRenderer turns add.stats_parsed rows back into the JSON text Delta
// writes in add.stats, so that the rest of the engine sees one form:
// numbers and decimals as JSON numbers, dates "YYYY-MM-DD", timestamps
// ISO-8601 ("Z" for UTC-adjusted ones, none for timestamp_ntz) at
// millisecond precision unless the value has microseconds, nested structs
// as nested objects. Null values and empty objects are left out.
type statsRenderer struct {
	render valueRenderer
	buf    []byte
}

// valueRenderer appends the JSON of row i to buf; ok is false (and buf
// unchanged) when the value is null or renders to nothing.
type valueRenderer func(buf []byte, i int) (out []byte, ok bool)

func newStatsRenderer(key, col string, a arrow.Array) (*statsRenderer, error) {
	r, err := compileRenderer(key, col, a)
	if err != nil {
		return nil, err
	}
	return &statsRenderer{render: r}, nil
}

func (s *statsRenderer) row(i int) string {
	out, ok := s.render(s.buf[:0], i)
	s.buf = out
	if !ok {
		return ""
	}
	return string(out)
}

func compileRenderer(key, col string, a arrow.Array) (valueRenderer, error) {
	switch c := a.(type) {
	case *array.Struct:
		st := c.DataType().(*arrow.StructType)
		type member struct {
			name []byte // `"name":`
			r    valueRenderer
		}
		members := make([]member, 0, c.NumField())
		for j := 0; j < c.NumField(); j++ {
			f := st.Field(j)
			r, err := compileRenderer(key, col+"."+f.Name, c.Field(j))
			if err != nil {
				return nil, err
			}
			if r == nil {
				continue
			}
			name := appendJSONString(nil, f.Name)
			members = append(members, member{append(name, ':'), r})
		}
		return func(buf []byte, i int) ([]byte, bool) {
			if c.IsNull(i) {
				return buf, false
			}
			start := len(buf)
			buf = append(buf, '{')
			n := 0
			for _, m := range members {
				mark := len(buf)
				if n > 0 {
					buf = append(buf, ',')
				}
				buf = append(buf, m.name...)
				var ok bool
				if buf, ok = m.r(buf, i); ok {
					n++
				} else {
					buf = buf[:mark]
				}
			}
			if n == 0 {
				return buf[:start], false
			}
			return append(buf, '}'), true
		}, nil
	case *array.Int64:
		return intRenderer(c, func(i int) int64 { return c.Value(i) }), nil
	case *array.Int32:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Int16:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Int8:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Uint64:
		return nonNull(c, func(buf []byte, i int) []byte { return strconv.AppendUint(buf, c.Value(i), 10) }), nil
	case *array.Uint32:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Uint16:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Uint8:
		return intRenderer(c, func(i int) int64 { return int64(c.Value(i)) }), nil
	case *array.Float64:
		return floatRenderer(c, 64, func(i int) float64 { return c.Value(i) }), nil
	case *array.Float32:
		return floatRenderer(c, 32, func(i int) float64 { return float64(c.Value(i)) }), nil
	case *array.Boolean:
		return nonNull(c, func(buf []byte, i int) []byte { return strconv.AppendBool(buf, c.Value(i)) }), nil
	case *array.String:
		return nonNull(c, func(buf []byte, i int) []byte { return appendJSONString(buf, c.Value(i)) }), nil
	case *array.LargeString:
		return nonNull(c, func(buf []byte, i int) []byte { return appendJSONString(buf, c.Value(i)) }), nil
	case *array.Binary:
		return nonNull(c, func(buf []byte, i int) []byte { return appendJSONString(buf, string(c.Value(i))) }), nil
	case *array.Date32:
		return dateRenderer(c, func(i int) time.Time { return c.Value(i).ToTime() }), nil
	case *array.Date64:
		return dateRenderer(c, func(i int) time.Time { return c.Value(i).ToTime() }), nil
	case *array.Timestamp:
		tt := c.DataType().(*arrow.TimestampType)
		toMicros := microsConverter(tt.Unit)
		utc := tt.TimeZone != ""
		return nonNull(c, func(buf []byte, i int) []byte {
			return appendStatsTimestamp(buf, toMicros(int64(c.Value(i))), utc)
		}), nil
	case *array.Decimal128:
		scale := c.DataType().(*arrow.Decimal128Type).Scale
		return nonNull(c, func(buf []byte, i int) []byte { return append(buf, c.Value(i).ToString(scale)...) }), nil
	case *array.Decimal256:
		scale := c.DataType().(*arrow.Decimal256Type).Scale
		return nonNull(c, func(buf []byte, i int) []byte { return append(buf, c.Value(i).ToString(scale)...) }), nil
	case *array.Decimal64:
		scale := c.DataType().(*arrow.Decimal64Type).Scale
		return nonNull(c, func(buf []byte, i int) []byte { return append(buf, c.Value(i).ToString(scale)...) }), nil
	case *array.Decimal32:
		scale := c.DataType().(*arrow.Decimal32Type).Scale
		return nonNull(c, func(buf []byte, i int) []byte { return append(buf, c.Value(i).ToString(scale)...) }), nil
	}
	// Nulls, and types Delta keeps no statistics for (lists, maps,
	// binaries of variants...): nothing to render.
	return nil, nil
}

// nonNull is the renderer of a leaf column: nothing for a null, else what
// appendValue appends.
func nonNull(a arrow.Array, appendValue func(buf []byte, i int) []byte) valueRenderer {
	return func(buf []byte, i int) ([]byte, bool) {
		if a.IsNull(i) {
			return buf, false
		}
		return appendValue(buf, i), true
	}
}

func intRenderer(a arrow.Array, v func(int) int64) valueRenderer {
	return nonNull(a, func(buf []byte, i int) []byte { return strconv.AppendInt(buf, v(i), 10) })
}

func dateRenderer(a arrow.Array, v func(int) time.Time) valueRenderer {
	return nonNull(a, func(buf []byte, i int) []byte {
		buf = append(buf, '"')
		buf = v(i).AppendFormat(buf, "2006-01-02")
		return append(buf, '"')
	})
}

// floatRenderer writes finite values as JSON numbers and the non-finite
// ones as the strings Spark uses ("NaN", "Infinity", "-Infinity").
func floatRenderer(a arrow.Array, bits int, v func(int) float64) valueRenderer {
	return nonNull(a, func(buf []byte, i int) []byte {
		f := v(i)
		if name, ok := schema.NonFiniteName(f); ok {
			return appendJSONString(buf, name)
		}
		return strconv.AppendFloat(buf, f, 'g', -1, bits)
	})
}

func microsConverter(u arrow.TimeUnit) func(int64) int64 {
	switch u {
	case arrow.Second:
		return func(v int64) int64 { return v * 1e6 }
	case arrow.Millisecond:
		return func(v int64) int64 { return v * 1e3 }
	case arrow.Nanosecond:
		return func(v int64) int64 { return floorDiv(v, 1e3) }
	}
	return func(v int64) int64 { return v }
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// appendStatsTimestamp writes a quoted ISO-8601 timestamp at millisecond
// precision, or microsecond precision when the value needs it.
func appendStatsTimestamp(buf []byte, micros int64, utc bool) []byte {
	t := time.UnixMicro(micros).UTC()
	layout := "2006-01-02T15:04:05.000"
	if micros%1000 != 0 {
		layout = "2006-01-02T15:04:05.000000"
	}
	buf = append(buf, '"')
	buf = t.AppendFormat(buf, layout)
	if utc {
		buf = append(buf, 'Z')
	}
	return append(buf, '"')
}

// appendJSONString appends s as a JSON string literal. Invalid UTF-8 is
// replaced by U+FFFD, as encoding/json does.
func appendJSONString(buf []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	buf = append(buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				buf = append(buf, '\\', c)
			case c >= 0x20:
				buf = append(buf, c)
			case c == '\n':
				buf = append(buf, '\\', 'n')
			case c == '\r':
				buf = append(buf, '\\', 'r')
			case c == '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, `\ufffd`...)
		} else {
			buf = append(buf, s[i:i+size]...)
		}
		i += size
	}
	return append(buf, '"')
}

// partitionRenderer turns add.partitionValues_parsed rows into the log's
// string form of partition values (schema.FormatPartitionValue).
type partitionRenderer struct {
	key    string
	s      *array.Struct
	names  []string
	values []func(i int) (string, error)
}

func newPartitionRenderer(key, col string, a arrow.Array) (*partitionRenderer, error) {
	s, err := asStruct(key, col, a)
	if err != nil {
		return nil, err
	}
	st := s.DataType().(*arrow.StructType)
	p := &partitionRenderer{key: key, s: s}
	for j := 0; j < s.NumField(); j++ {
		f := st.Field(j)
		v, err := partitionValueFn(key, col+"."+f.Name, s.Field(j))
		if err != nil {
			return nil, err
		}
		p.names = append(p.names, f.Name)
		p.values = append(p.values, v)
	}
	return p, nil
}

// row returns the partition values of row i; nil when the struct is null.
func (p *partitionRenderer) row(i int) (map[string]string, error) {
	if p.s.IsNull(i) {
		return nil, nil
	}
	out := make(map[string]string, len(p.names))
	for j, name := range p.names {
		v, err := p.values[j](i)
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

func partitionValueFn(key, col string, a arrow.Array) (func(int) (string, error), error) {
	t, err := schema.TypeFromArrow(a.DataType())
	if err != nil {
		return nil, colErr(key, col, a.DataType(), "a partition column type")
	}
	var get func(i int) any
	switch c := a.(type) {
	case *array.String:
		get = func(i int) any { return c.Value(i) }
	case *array.LargeString:
		get = func(i int) any { return c.Value(i) }
	case *array.Binary:
		get = func(i int) any { return c.Value(i) }
	case *array.Int64:
		get = func(i int) any { return c.Value(i) }
	case *array.Int32:
		get = func(i int) any { return c.Value(i) }
	case *array.Int16:
		get = func(i int) any { return c.Value(i) }
	case *array.Int8:
		get = func(i int) any { return c.Value(i) }
	case *array.Float64:
		get = func(i int) any { return c.Value(i) }
	case *array.Float32:
		get = func(i int) any { return c.Value(i) }
	case *array.Boolean:
		get = func(i int) any { return c.Value(i) }
	case *array.Date32:
		get = func(i int) any { return c.Value(i) }
	case *array.Timestamp:
		conv := microsConverter(c.DataType().(*arrow.TimestampType).Unit)
		get = func(i int) any { return arrow.Timestamp(conv(int64(c.Value(i)))) }
	case *array.Decimal128:
		get = func(i int) any { return c.Value(i) }
	case *array.Null:
		return func(int) (string, error) { return "", nil }, nil
	default:
		return nil, colErr(key, col, a.DataType(), "a partition column type")
	}
	return func(i int) (string, error) {
		if a.IsNull(i) {
			return "", nil
		}
		s, err := schema.FormatPartitionValue(t, get(i))
		if err != nil {
			return "", colErr(key, col, a.DataType(), "a partition column type")
		}
		return s, nil
	}, nil
}
