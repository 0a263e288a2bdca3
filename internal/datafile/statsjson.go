package datafile

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// JSON renders the statistics of the file as the add action's stats string:
// numRecords, then minValues, maxValues and nullCount mirroring the schema
// with physical names. tightBounds is omitted (true).
func (fs *fileStats) JSON() string {
	var b bytes.Buffer
	b.WriteString(`{"numRecords":`)
	b.WriteString(strconv.FormatInt(fs.rows, 10))
	if len(fs.plan.leaves) > 0 {
		for _, part := range []struct {
			key  string
			leaf func(*statLeaf, *leafStats) (string, bool)
		}{
			{"minValues", fs.minValue},
			{"maxValues", fs.maxValue},
			{"nullCount", func(_ *statLeaf, s *leafStats) (string, bool) { return strconv.FormatInt(s.nulls, 10), true }},
		} {
			b.WriteString(`,"` + part.key + `":`)
			fs.object(&b, fs.plan.root, part.leaf)
		}
	}
	b.WriteByte('}')
	return b.String()
}

// object writes the nodes as a JSON object; a struct whose leaves have no
// value is left out.
func (fs *fileStats) object(b *bytes.Buffer, nodes []*statNode, leaf func(*statLeaf, *leafStats) (string, bool)) bool {
	b.WriteByte('{')
	n := 0
	for _, nd := range nodes {
		mark := b.Len()
		if n > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(nd.name))
		b.WriteByte(':')
		if nd.leaf < 0 {
			if !fs.object(b, nd.children, leaf) {
				b.Truncate(mark)
				continue
			}
		} else {
			v, ok := leaf(&fs.plan.leaves[nd.leaf], &fs.leaves[nd.leaf])
			if !ok {
				b.Truncate(mark)
				continue
			}
			b.WriteString(v)
		}
		n++
	}
	b.WriteByte('}')
	return n > 0
}

func (fs *fileStats) minValue(l *statLeaf, s *leafStats) (string, bool) {
	return bound(l, s, false)
}

func (fs *fileStats) maxValue(l *statLeaf, s *leafStats) (string, bool) {
	return bound(l, s, true)
}

// bound renders the lower or upper bound of a leaf, or false when there is
// none that can be written truthfully.
func bound(l *statLeaf, s *leafStats, upper bool) (string, bool) {
	switch l.kind {
	case kindBool:
		switch {
		case !s.sawTrue && !s.sawFalse:
			return "", false
		case upper:
			return strconv.FormatBool(s.sawTrue), true
		default:
			return strconv.FormatBool(!s.sawFalse), true
		}
	case kindNullsOnly:
		return "", false
	}
	if !s.seen {
		return "", false
	}
	switch l.kind {
	case kindInt:
		return strconv.FormatInt(pick(upper, s.imax, s.imin), 10), true
	case kindDate:
		return dateText(pick(upper, s.imax, s.imin))
	case kindTimestamp, kindTimestampNTZ:
		return timestampText(pick(upper, s.imax, s.imin), upper, l.kind == kindTimestamp)
	case kindFloat, kindDouble:
		if upper && s.nan {
			return "", false
		}
		bits := 64
		if l.kind == kindFloat {
			bits = 32
		}
		return floatText(pick(upper, s.fmax, s.fmin), upper, bits)
	case kindDecimal:
		return pick(upper, s.dmax, s.dmin).ToString(l.scale), true
	case kindString:
		v := s.smin
		if upper {
			v = s.smax
			if s.smaxLonger {
				var ok bool
				if v, ok = bumpString(v); !ok {
					return "", false
				}
			}
		}
		if !utf8.ValidString(v) {
			return "", false // JSON would replace the bad bytes and move the bound
		}
		return jsonString(v), true
	}
	return "", false
}

func pick[T any](upper bool, hi, lo T) T {
	if upper {
		return hi
	}
	return lo
}

const (
	minYearSeconds = -62135596800 // 0001-01-01T00:00:00Z
	maxYearSeconds = 253402300799 // 9999-12-31T23:59:59Z
)

func dateText(days int64) (string, bool) {
	if days < minYearSeconds/86400 || days > maxYearSeconds/86400 {
		return "", false
	}
	return `"` + time.Unix(days*86400, 0).UTC().Format("2006-01-02") + `"`, true
}

// timestampText renders microseconds at millisecond precision: a minimum
// is cut down and a maximum raised to the next millisecond so both stay
// bounds. Years outside 1..9999 have no ISO-8601 form readers agree on.
func timestampText(us int64, upper, utc bool) (string, bool) {
	ms := us / 1000
	if us%1000 != 0 && us < 0 {
		ms-- // floor
	}
	if upper && ms*1000 != us {
		ms++
	}
	if ms < minYearSeconds*1000 || ms > maxYearSeconds*1000+999 {
		return "", false
	}
	layout := "2006-01-02T15:04:05.000"
	if utc {
		layout += "Z"
	}
	return `"` + time.UnixMilli(ms).UTC().Format(layout) + `"`, true
}

// floatText renders a float bound. Infinite bounds are left out (JSON has
// no infinity, and an infinite bound excludes nothing), and a zero bound is
// widened to -0.0 for a minimum and 0.0 for a maximum, since the two zeros
// compare equal but may be ordered by a reader.
func floatText(f float64, upper bool, bits int) (string, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return "", false
	}
	if f == 0 {
		if upper {
			return "0.0", true
		}
		return "-0.0", true
	}
	return strconv.FormatFloat(f, 'g', -1, bits), true
}

func jsonString(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return string(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}
