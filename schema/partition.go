package schema

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// HiveDefaultPartition is the directory name Spark uses for a null value.
const HiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// ParsePartitionValue turns the log's string form of a partition value into
// a Go value of the column's Arrow type: string, int64, int32, int16, int8,
// float32, float64, bool, []byte, arrow.Date32, arrow.Timestamp (micros,
// UTC for timestamp) or decimal128.Num. ok is false for null ("" in the log).
func ParsePartitionValue(t Type, s string) (v any, ok bool, err error) {
	if s == "" {
		return nil, false, nil
	}
	v, err = parseValue(t, s)
	if err != nil {
		return nil, false, fmt.Errorf("partition value %q is not a valid %s: %w", s, t, err)
	}
	return v, true, nil
}

func parseValue(t Type, s string) (any, error) {
	switch t := t.(type) {
	case *Decimal:
		return ParseDecimal(s, t.Precision, t.Scale)
	case *Primitive:
		switch t.Name {
		case String:
			return s, nil
		case Binary:
			return []byte(s), nil
		case Long:
			return strconv.ParseInt(s, 10, 64)
		case Integer:
			n, err := strconv.ParseInt(s, 10, 32)
			return int32(n), err
		case Short:
			n, err := strconv.ParseInt(s, 10, 16)
			return int16(n), err
		case Byte:
			n, err := strconv.ParseInt(s, 10, 8)
			return int8(n), err
		case Float:
			f, err := strconv.ParseFloat(s, 32)
			return float32(f), err
		case Double:
			return strconv.ParseFloat(s, 64)
		case Boolean:
			switch strings.ToLower(s) {
			case "true":
				return true, nil
			case "false":
				return false, nil
			}
			return nil, fmt.Errorf("not true or false")
		case Date:
			d, err := time.Parse("2006-01-02", s)
			if err != nil {
				return nil, err
			}
			return arrow.Date32(d.Unix() / 86400), nil
		case Timestamp, TimestampNTZ:
			ts, err := ParseTimestamp(s)
			if err != nil {
				return nil, err
			}
			return arrow.Timestamp(ts), nil
		}
	}
	return nil, fmt.Errorf("type %s cannot be a partition column", t)
}

// ParseTimestamp reads the timestamp forms Delta writers use in partition
// values and statistics: "2021-09-08 11:11:11[.ffffff]" (taken as UTC, as
// delta-rs does) and ISO-8601 with a zone ("1970-01-01T00:00:00.123456Z").
// It returns microseconds since the epoch.
func ParseTimestamp(s string) (int64, error) {
	us, _, err := ParseTimestampZoned(s)
	return us, err
}

// ParseTimestampZoned is ParseTimestamp, zoned false when s names no zone:
// a local date-time, which the protocol reads in the time zone of the
// writer (Spark: its session's; expr.Session.PartitionValue).
func ParseTimestampZoned(s string) (us int64, zoned bool, err error) {
	layouts := []string{
		"2006-01-02 15:04:05.999999999",
		"2006-01-02T15:04:05.999999999Z07:00",
		"2006-01-02T15:04:05.999999999",
		"2006-01-02 15:04:05.999999999Z07:00",
		"2006-01-02",
	}
	for _, l := range layouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.Unix()*1e6 + int64(t.Nanosecond()/1e3), strings.HasSuffix(l, "Z07:00"), nil
		}
	}
	return 0, false, fmt.Errorf("unrecognised timestamp")
}

// ParseDecimal parses a plain decimal string at the given scale.
func ParseDecimal(s string, precision, scale int) (decimal128.Num, error) {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return decimal128.Num{}, fmt.Errorf("not a decimal number")
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	if !r.IsInt() {
		return decimal128.Num{}, fmt.Errorf("more than %d digits after the point", scale)
	}
	n := r.Num()
	if n.BitLen() > 127 || len(new(big.Int).Abs(n).String()) > precision {
		return decimal128.Num{}, fmt.Errorf("does not fit decimal(%d,%d)", precision, scale)
	}
	return decimal128.FromBigInt(n), nil
}

// FormatPartitionValue renders a value in the log's string form (the inverse
// of ParsePartitionValue); a nil value is null, written as "".
func FormatPartitionValue(t Type, v any) (string, error) {
	if v == nil {
		return "", nil
	}
	switch t := t.(type) {
	case *Decimal:
		n, ok := v.(decimal128.Num)
		if !ok {
			return "", fmt.Errorf("decimal value of Go type %T", v)
		}
		return n.ToString(int32(t.Scale)), nil
	case *Primitive:
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		case bool:
			return strconv.FormatBool(x), nil
		case int64, int32, int16, int8:
			return fmt.Sprint(x), nil
		case float32:
			return formatFloat(float64(x), 32), nil
		case float64:
			return formatFloat(x, 64), nil
		case arrow.Date32:
			return x.ToTime().Format("2006-01-02"), nil
		case arrow.Timestamp:
			tm := time.UnixMicro(int64(x)).UTC()
			if t.Name == TimestampNTZ {
				return tm.Format("2006-01-02 15:04:05.000000"), nil
			}
			return tm.Format("2006-01-02T15:04:05.000000Z"), nil
		}
		return "", fmt.Errorf("value of Go type %T for a %s column", v, t)
	}
	return "", fmt.Errorf("type %s cannot be a partition column", t)
}

// NonFiniteName is how Spark and Delta spell a non-finite float, in
// partition values, statistics and casts to string: "NaN", "Infinity",
// "-Infinity". ok is false for a finite value.
func NonFiniteName(f float64) (name string, ok bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	return "", false
}

// ParseNonFinite reads a name NonFiniteName gives; ok is false for any
// other text.
func ParseNonFinite(s string) (f float64, ok bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "Infinity":
		return math.Inf(1), true
	case "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

func formatFloat(f float64, bits int) string {
	if name, ok := NonFiniteName(f); ok {
		return name
	}
	s := strconv.FormatFloat(f, 'f', -1, bits)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}
