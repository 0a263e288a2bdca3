package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// Text and JSON input values are parsed here, one rule per target type,
// so CSV and NDJSON agree on what a long, a date or a timestamp is. The
// errors say what the value is not; the readers add file, line and column.

var (
	typeLong      = arrow.PrimitiveTypes.Int64
	typeDouble    = arrow.PrimitiveTypes.Float64
	typeBool      = arrow.FixedWidthTypes.Boolean
	typeString    = arrow.BinaryTypes.String
	typeDate      = arrow.FixedWidthTypes.Date32
	typeTimestamp = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	// typeBigInt holds integers beyond a long: 38 digits is the most a
	// Delta decimal has; a longer integer is an error naming its line.
	typeBigInt = &arrow.Decimal128Type{Precision: 38, Scale: 0}
)

// typeName is the Delta name of t (long, double, decimal(38,0), ...).
func typeName(t arrow.DataType) string {
	if dt, err := schema.TypeFromArrow(t); err == nil {
		return dt.String()
	}
	return t.String()
}

// isInteger says whether s is an integer literal: optional sign, digits.
func isInteger(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// fitsBigInt says whether the integer literal s fits decimal(38,0).
func fitsBigInt(s string) bool {
	return len(strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")) <= 38
}

// parseBool accepts true and false in any case, as Spark does.
func parseBool(s string) (bool, bool) {
	switch {
	case strings.EqualFold(s, "true"):
		return true, true
	case strings.EqualFold(s, "false"):
		return false, true
	}
	return false, false
}

func parseDate(s string) (arrow.Date32, error) {
	t, err := time.Parse("2006-01-02", s)
	if err != nil {
		return 0, err
	}
	return arrow.Date32FromTime(t), nil
}

// parseTimestamp reads an ISO 8601 timestamp; one without a zone is UTC.
func parseTimestamp(s string, unit arrow.TimeUnit) (arrow.Timestamp, error) {
	ts, _, err := arrow.TimestampFromStringInLocation(s, unit, time.UTC)
	return ts, err
}

// appendText parses the text s (a CSV cell; "" is null) as a value of b's
// type and appends it.
func appendText(b array.Builder, s string) error {
	if s == "" {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("%q is not a %s", s, typeName(b.Type())) }
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(s)
	case *array.LargeStringBuilder:
		b.Append(s)
	case *array.BinaryBuilder:
		b.Append([]byte(s))
	case *array.BooleanBuilder:
		v, ok := parseBool(s)
		if !ok {
			return bad()
		}
		b.Append(v)
	case *array.Float64Builder:
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return bad()
		}
		b.Append(v)
	case *array.Float32Builder:
		v, err := strconv.ParseFloat(s, 32)
		if err != nil {
			return bad()
		}
		b.Append(float32(v))
	case *array.Date32Builder:
		v, err := parseDate(s)
		if err != nil {
			return bad()
		}
		b.Append(v)
	case *array.TimestampBuilder:
		v, err := parseTimestamp(s, b.Type().(*arrow.TimestampType).Unit)
		if err != nil {
			return bad()
		}
		b.Append(v)
	case *array.Decimal128Builder:
		dt := b.Type().(*arrow.Decimal128Type)
		v, err := decimal128.FromString(s, dt.Precision, dt.Scale)
		if err != nil {
			return bad()
		}
		b.Append(v)
	default:
		if isIntBuilder(b) {
			return appendInt(b, s, bad)
		}
		// Nested and rarer types take their JSON text form.
		if err := b.AppendValueFromString(s); err != nil {
			return bad()
		}
	}
	return nil
}

func isIntBuilder(b array.Builder) bool {
	switch b.(type) {
	case *array.Int64Builder, *array.Int32Builder, *array.Int16Builder, *array.Int8Builder:
		return true
	}
	return false
}

// appendInt parses s as an integer of b's width; bad describes a value
// that is not one.
func appendInt(b array.Builder, s string, bad func() error) error {
	bits := b.Type().(arrow.FixedWidthDataType).BitWidth()
	v, err := strconv.ParseInt(s, 10, bits)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("%s is out of range for a %s", s, typeName(b.Type()))
	}
	if err != nil {
		return bad()
	}
	switch b := b.(type) {
	case *array.Int64Builder:
		b.Append(v)
	case *array.Int32Builder:
		b.Append(int32(v))
	case *array.Int16Builder:
		b.Append(int16(v))
	case *array.Int8Builder:
		b.Append(int8(v))
	}
	return nil
}

// appendJSON appends the JSON value v to b. Unlike a CSV cell, a JSON
// value has a type of its own that must fit: the string "5" is not a
// long, and the number 5 is not a string.
func appendJSON(b array.Builder, v jsonValue) error {
	if v.kind == 'z' {
		b.AppendNull()
		return nil
	}
	bad := func() error { return fmt.Errorf("%.80s is not a %s", v.describe(), typeName(b.Type())) }
	switch b.Type().ID() {
	case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.FIXED_SIZE_LIST:
		if v.kind != '{' && v.kind != '[' {
			return bad()
		}
		if err := b.AppendValueFromString(v.text); err != nil {
			return fmt.Errorf("%.80s is not a %s", v.text, typeName(b.Type()))
		}
		return nil
	}
	switch v.kind {
	case 'b':
		bb, ok := b.(*array.BooleanBuilder)
		if !ok {
			return bad()
		}
		bb.Append(v.b)
		return nil
	case '1':
		switch b := b.(type) {
		case *array.Float64Builder, *array.Float32Builder, *array.Decimal128Builder:
			return appendText(b, v.text)
		}
		if isIntBuilder(b) {
			return appendInt(b, v.text, bad)
		}
	case 's':
		switch b := b.(type) {
		case *array.StringBuilder:
			b.Append(v.text) // "" is a value here, not a null
			return nil
		case *array.BinaryBuilder: // base64, as Spark writes binary to JSON
			if err := b.AppendValueFromString(v.text); err != nil {
				return bad()
			}
			return nil
		case *array.LargeStringBuilder, *array.Date32Builder, *array.TimestampBuilder, *array.Decimal128Builder:
			if v.text == "" || appendText(b, v.text) != nil {
				return bad()
			}
			return nil
		}
	}
	return bad()
}

// jsonKind is the inferred kind of one JSON value.
type jsonKind int

const (
	kindNull jsonKind = iota
	kindBool
	kindLong
	kindBigInt
	kindDouble
	kindString
	numKinds
)

var kindNames = [numKinds]string{"null", "a boolean", "an integer", "an integer beyond a long", "a fractional number", "a string"}

func kindOf(v jsonValue) (jsonKind, error) {
	switch v.kind {
	case 'z':
		return kindNull, nil
	case 'b':
		return kindBool, nil
	case 's':
		return kindString, nil
	case '1':
		s := v.text
		if !isInteger(s) {
			if _, err := strconv.ParseFloat(s, 64); err != nil {
				return 0, fmt.Errorf("%s is out of range for a double", s)
			}
			return kindDouble, nil
		}
		if _, err := strconv.ParseInt(s, 10, 64); err == nil {
			return kindLong, nil
		}
		if !fitsBigInt(s) {
			return 0, fmt.Errorf("%s has more than 38 digits, more than any Delta number holds exactly: write it as a string, or create the table first with a double column", s)
		}
		return kindBigInt, nil
	}
	return 0, fmt.Errorf("%s needs a type to be read as: create the table first (deltalite create --schema) so its schema is used", v.describe())
}

// widenKind joins two kinds seen for one key; ok is false when no column
// type holds both exactly.
func widenKind(a, b jsonKind) (jsonKind, bool) {
	switch {
	case a == b || b == kindNull:
		return a, true
	case a == kindNull:
		return b, true
	case a > b:
		a, b = b, a
	}
	switch {
	case a == kindLong && (b == kindBigInt || b == kindDouble):
		return b, true
	}
	return 0, false
}

func (k jsonKind) arrowType() arrow.DataType {
	switch k {
	case kindBool:
		return typeBool
	case kindLong:
		return typeLong
	case kindBigInt:
		return typeBigInt
	case kindDouble:
		return typeDouble
	}
	return typeString
}

// textTypes are the types a CSV column can be inferred as, most specific
// first; a column none fits is a string column.
var textTypes = []arrow.DataType{typeLong, typeBigInt, typeDouble, typeBool, typeDate, typeTimestamp}

// textFits says whether the non-empty cell s parses as textTypes[i].
func textFits(i int, s string) bool {
	switch textTypes[i] {
	case typeLong:
		_, err := strconv.ParseInt(s, 10, 64)
		return err == nil
	case typeBigInt:
		return isInteger(s) && fitsBigInt(s)
	case typeDouble:
		_, err := strconv.ParseFloat(s, 64)
		return err == nil
	case typeBool:
		_, ok := parseBool(s)
		return ok
	case typeDate:
		_, err := parseDate(s)
		return err == nil
	case typeTimestamp:
		_, err := parseTimestamp(s, arrow.Microsecond)
		return err == nil
	}
	return false
}
