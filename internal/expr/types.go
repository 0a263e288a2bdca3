package expr

import (
	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/schema"
)

var (
	tBool         schema.Type = &schema.Primitive{Name: schema.Boolean}
	tString       schema.Type = &schema.Primitive{Name: schema.String}
	tBinary       schema.Type = &schema.Primitive{Name: schema.Binary}
	tByte         schema.Type = &schema.Primitive{Name: schema.Byte}
	tShort        schema.Type = &schema.Primitive{Name: schema.Short}
	tInt          schema.Type = &schema.Primitive{Name: schema.Integer}
	tLong         schema.Type = &schema.Primitive{Name: schema.Long}
	tFloat        schema.Type = &schema.Primitive{Name: schema.Float}
	tDouble       schema.Type = &schema.Primitive{Name: schema.Double}
	tDate         schema.Type = &schema.Primitive{Name: schema.Date}
	tTimestamp    schema.Type = &schema.Primitive{Name: schema.Timestamp}
	tTimestampNTZ schema.Type = &schema.Primitive{Name: schema.TimestampNTZ}
	tVoid         schema.Type = &schema.Primitive{Name: schema.Void}
)

func primName(t schema.Type) string {
	if p, ok := t.(*schema.Primitive); ok {
		return p.Name
	}
	return ""
}

func isType(t schema.Type, name string) bool { return primName(t) == name }

func integralRank(t schema.Type) int {
	switch primName(t) {
	case schema.Byte:
		return 1
	case schema.Short:
		return 2
	case schema.Integer:
		return 3
	case schema.Long:
		return 4
	}
	return 0
}

func isIntegral(t schema.Type) bool { return integralRank(t) > 0 }
func isFloating(t schema.Type) bool {
	n := primName(t)
	return n == schema.Float || n == schema.Double
}
func isDecimal(t schema.Type) bool { _, ok := t.(*schema.Decimal); return ok }
func isNumeric(t schema.Type) bool { return isIntegral(t) || isFloating(t) || isDecimal(t) }
func isString(t schema.Type) bool  { return isType(t, schema.String) }
func isVoid(t schema.Type) bool    { return isType(t, schema.Void) }
func isBool(t schema.Type) bool    { return isType(t, schema.Boolean) }
func isTimestamp(t schema.Type) bool {
	n := primName(t)
	return n == schema.Timestamp || n == schema.TimestampNTZ
}

// isAtomic reports whether values of t can be compared and cast.
func isAtomic(t schema.Type) bool {
	if isDecimal(t) {
		return true
	}
	n := primName(t)
	return n != "" && n != schema.Variant
}

func sameType(a, b schema.Type) bool { return a.String() == b.String() }

// decimalOf is the decimal type that holds every value of an integral or
// decimal type, as Spark widens integers for decimal arithmetic.
func decimalOf(t schema.Type) *schema.Decimal {
	switch primName(t) {
	case schema.Byte:
		return &schema.Decimal{Precision: 3}
	case schema.Short:
		return &schema.Decimal{Precision: 5}
	case schema.Integer:
		return &schema.Decimal{Precision: 10}
	case schema.Long:
		return &schema.Decimal{Precision: 20}
	}
	if d, ok := t.(*schema.Decimal); ok {
		return d
	}
	return nil
}

const maxPrecision = 38

// widerDecimal holds every value of a and b.
func widerDecimal(a, b *schema.Decimal) *schema.Decimal {
	s := max(a.Scale, b.Scale)
	p := max(a.Precision-a.Scale, b.Precision-b.Scale) + s
	return &schema.Decimal{Precision: min(p, maxPrecision), Scale: min(s, maxPrecision)}
}

// boundedDecimal applies Spark's precision-loss rule: a result wider than
// 38 digits keeps its integer digits and gives up scale, down to 6.
func boundedDecimal(p, s int) *schema.Decimal {
	if p <= maxPrecision {
		return &schema.Decimal{Precision: p, Scale: s}
	}
	intDigits := p - s
	minScale := min(s, 6)
	return &schema.Decimal{Precision: maxPrecision, Scale: max(maxPrecision-intDigits, minScale)}
}

// numericCommon is Spark's wider type of two numeric types.
func numericCommon(a, b schema.Type) schema.Type {
	switch {
	case isType(a, schema.Double) || isType(b, schema.Double):
		return tDouble
	case isType(a, schema.Float) || isType(b, schema.Float):
		if isDecimal(a) || isDecimal(b) {
			return tDouble
		}
		return tFloat
	case isDecimal(a) || isDecimal(b):
		return widerDecimal(decimalOf(a), decimalOf(b))
	case integralRank(a) >= integralRank(b):
		return a
	}
	return b
}

// commonType is the type two non-literal operands are compared in, as
// Spark coerces them; ok is false when they cannot be compared. Nested
// types meet only their own type (or NULL's).
func commonType(a, b schema.Type) (schema.Type, bool) {
	switch {
	case sameType(a, b):
		return a, true
	case isVoid(a):
		return b, true
	case isVoid(b):
		return a, true
	case !isAtomic(a) || !isAtomic(b):
		return nil, false
	case isNumeric(a) && isNumeric(b):
		return numericCommon(a, b), true
	case isString(a) && !isType(b, schema.Binary):
		return b, true
	case isString(b) && !isType(a, schema.Binary):
		return a, true
	case isString(a) || isString(b):
		return tBinary, true
	case isType(a, schema.Date) && isTimestamp(b):
		return b, true
	case isType(b, schema.Date) && isTimestamp(a):
		return a, true
	case isTimestamp(a) && isTimestamp(b):
		return tTimestamp, true
	}
	return nil, false
}

// arrowType is the Arrow type values of t are evaluated in.
func arrowType(t schema.Type) (arrow.DataType, error) {
	return schema.ArrowType(t, schema.ArrowOptions{})
}

// typeName describes a type in messages, as Spark spells it.
func typeName(t schema.Type) string {
	if t == nil {
		return "unknown"
	}
	return typeSQL(t)
}
