package stats

import (
	"fmt"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// Kind says how a Value compares.
type Kind uint8

const (
	// Unknown is the zero Value: an absent or unreadable statistic.
	Unknown Kind = iota
	// Int holds byte, short, integer and long values, dates as days since
	// the epoch and timestamps as microseconds since the epoch.
	Int
	// Float holds float and double values.
	Float
	// Bool holds booleans; false sorts before true.
	Bool
	// Bytes holds string and binary values, compared byte-wise.
	Bytes
	// Decimal holds the unscaled value of a decimal at the column's scale.
	Decimal
)

// Value is one typed scalar: a statistic bound, a partition value or a
// filter operand. Only the field matching Kind is meaningful.
type Value struct {
	Kind    Kind
	Int     int64
	Float   float64
	Bytes   string
	Decimal decimal128.Num
}

// Known reports whether v holds a value.
func (v Value) Known() bool { return v.Kind != Unknown }

func (v Value) String() string {
	switch v.Kind {
	case Int:
		return fmt.Sprint(v.Int)
	case Float:
		return fmt.Sprint(v.Float)
	case Bool:
		return fmt.Sprint(v.Int != 0)
	case Bytes:
		return fmt.Sprintf("%q", v.Bytes)
	case Decimal:
		return v.Decimal.BigInt().String() + "(unscaled)"
	}
	return "unknown"
}

// Compare orders a against b: -1, 0 or +1. ok is false when the two cannot
// be ordered: either is unknown, their kinds differ, or a float is NaN.
func Compare(a, b Value) (c int, ok bool) {
	if a.Kind != b.Kind || a.Kind == Unknown {
		return 0, false
	}
	switch a.Kind {
	case Int, Bool:
		return cmp3(a.Int < b.Int, a.Int > b.Int), true
	case Float:
		if math.IsNaN(a.Float) || math.IsNaN(b.Float) {
			return 0, false
		}
		return cmp3(a.Float < b.Float, a.Float > b.Float), true
	case Bytes:
		return cmp3(a.Bytes < b.Bytes, a.Bytes > b.Bytes), true
	case Decimal:
		return a.Decimal.Cmp(b.Decimal), true
	}
	return 0, false
}

func cmp3(less, greater bool) int {
	switch {
	case less:
		return -1
	case greater:
		return 1
	}
	return 0
}

// ParseValue reads the text form of a value of Delta type t, as partition
// values and filter operands are written ("2021-09-08", "1.50", "true").
// The empty string is the empty string for string and binary columns and
// an error for every other type (in partition values it means null, which
// callers handle before parsing).
func ParseValue(t schema.Type, s string) (Value, error) {
	if s == "" {
		if p, ok := t.(*schema.Primitive); ok && (p.Name == schema.String || p.Name == schema.Binary) {
			return Value{Kind: Bytes}, nil
		}
		return Value{}, fmt.Errorf("empty value is not a valid %s", t)
	}
	v, _, err := schema.ParsePartitionValue(t, s)
	if err != nil {
		return Value{}, err
	}
	return FromGo(v)
}

// FromGo converts a Go value of the kinds schema.ParsePartitionValue returns.
func FromGo(v any) (Value, error) {
	switch x := v.(type) {
	case int64:
		return Value{Kind: Int, Int: x}, nil
	case int32:
		return Value{Kind: Int, Int: int64(x)}, nil
	case int16:
		return Value{Kind: Int, Int: int64(x)}, nil
	case int8:
		return Value{Kind: Int, Int: int64(x)}, nil
	case arrow.Date32:
		return Value{Kind: Int, Int: int64(x)}, nil
	case arrow.Timestamp:
		return Value{Kind: Int, Int: int64(x)}, nil
	case float32:
		return Value{Kind: Float, Float: float64(x)}, nil
	case float64:
		return Value{Kind: Float, Float: x}, nil
	case bool:
		if x {
			return Value{Kind: Bool, Int: 1}, nil
		}
		return Value{Kind: Bool}, nil
	case string:
		return Value{Kind: Bytes, Bytes: x}, nil
	case []byte:
		return Value{Kind: Bytes, Bytes: string(x)}, nil
	case decimal128.Num:
		return Value{Kind: Decimal, Decimal: x}, nil
	}
	return Value{}, fmt.Errorf("no typed value for Go type %T", v)
}
