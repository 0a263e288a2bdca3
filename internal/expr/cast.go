package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/compute"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// cast converts v from type from to type to with Spark's ANSI cast: a
// value that does not convert is an error, never a silent null. A
// TIMESTAMP is read in the session time zone.
func (ev *evaluator) cast(v value, from, to schema.Type) (value, error) {
	if sameType(from, to) {
		if v.arr != nil {
			v.arr.Retain()
			return value{arr: v.arr}, nil
		}
		return value{sc: v.sc}, nil
	}
	dt, err := arrowType(to)
	if err != nil {
		return value{}, err
	}
	if isVoid(from) || v.arr == nil && !v.sc.IsValid() {
		return value{sc: scalar.MakeNullScalar(dt)}, nil
	}
	if v.arr != nil {
		// Same physical values under another type: share the buffers.
		utc := ev.loc == time.UTC
		if isTimestamp(from) && isTimestamp(to) && (utc || sameType(from, to)) ||
			isString(from) && isType(to, schema.Binary) || isType(from, schema.Binary) && isString(to) {
			return value{arr: reinterpret(v.arr, dt)}, nil
		}
		plain := func(t schema.Type) bool { return isIntegral(t) || isFloating(t) }
		// Floats to integers go row by row: NaN and infinities are errors.
		if plain(from) && plain(to) && !(isFloating(from) && isIntegral(to)) || isType(from, schema.Date) && isTimestamp(to) && (utc || isType(to, schema.TimestampNTZ)) {
			opts := compute.SafeCastOptions(dt)
			opts.AllowFloatTruncate = true
			out, err := compute.CastArray(ev.ctx, v.arr, opts)
			if err != nil {
				return value{}, errs.New(errs.InvalidArgument, "", "cannot cast %s to %s: a value is out of range", typeName(from), typeName(to))
			}
			return value{arr: out}, nil
		}
	}
	return ev.mapRows([]value{v}, to, true, func(x []any) (any, error) { return castValue(x[0], from, to, ev.loc) })
}

func reinterpret(a arrow.Array, dt arrow.DataType) arrow.Array {
	d := a.Data()
	nd := array.NewData(dt, d.Len(), d.Buffers(), d.Children(), d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

func castErr(v any, from, to schema.Type) error {
	return errs.New(errs.InvalidArgument, "", "cannot cast %s %s to %s", typeName(from), formatValue(v, from), typeName(to))
}

// castValue converts one non-null value (nil stays nil), a TIMESTAMP
// read in time zone loc: its local date and time are what a cast to a
// DATE, a TIMESTAMP_NTZ or a string takes, and a DATE, TIMESTAMP_NTZ or
// text without a zone is read as a local date-time there.
func castValue(v any, from, to schema.Type, loc *time.Location) (any, error) {
	if v == nil || sameType(from, to) {
		return v, nil
	}
	if isString(to) {
		if f, ok := v.(float64); ok && jvmDependentDigits(f, 64) || isType(from, schema.Float) && jvmDependentDigits(float64(v.(float32)), 32) {
			return nil, errs.New(errs.InvalidArgument, "", "cannot cast %s %s to STRING here: Java writes its digits differently by JVM version (Java 17 more than the shortest); not supported", typeName(from), formatValue(v, from))
		}
		if isType(from, schema.Timestamp) {
			return formatTimestamp(arrow.Timestamp(localMicros(loc, int64(v.(arrow.Timestamp))))), nil
		}
		return formatValue(v, from), nil
	}
	if isString(from) {
		return castString(v.(string), to, loc)
	}
	switch {
	case isType(from, schema.Binary) || isType(to, schema.Binary):
		return nil, castErr(v, from, to)
	case isBool(from) && isNumeric(to):
		n := int64(0)
		if v.(bool) {
			n = 1
		}
		return castValue(n, tLong, to, loc)
	case isNumeric(from) && isBool(to):
		r, ok := toRat(v, from)
		if !ok {
			f, _ := asFloat(v)
			return !math.IsNaN(f), nil // ±Inf is true
		}
		return r.Sign() != 0, nil
	case isNumeric(from) && isNumeric(to):
		return castNumber(v, from, to)
	case isType(from, schema.Date) && isType(to, schema.TimestampNTZ):
		return arrow.Timestamp(int64(v.(arrow.Date32)) * microsPerDay), nil
	case isType(from, schema.Date) && isTimestamp(to):
		return arrow.Timestamp(zonedMicros(loc, int64(v.(arrow.Date32))*microsPerDay)), nil
	case isTimestamp(from) && isType(to, schema.Date):
		us := int64(v.(arrow.Timestamp))
		if isType(from, schema.Timestamp) {
			us = localMicros(loc, us)
		}
		return arrow.Date32(floorDiv(us, microsPerDay)), nil
	case isType(from, schema.Timestamp) && isType(to, schema.TimestampNTZ):
		return arrow.Timestamp(localMicros(loc, int64(v.(arrow.Timestamp)))), nil
	case isType(from, schema.TimestampNTZ) && isType(to, schema.Timestamp):
		return arrow.Timestamp(zonedMicros(loc, int64(v.(arrow.Timestamp)))), nil
	}
	return nil, castErr(v, from, to)
}

// castNumber converts between numeric types: to integers by truncation
// toward zero, to decimals by rounding half up, failing when out of range.
func castNumber(v any, from, to schema.Type) (any, error) {
	if isFloating(to) {
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		case decimal128.Num:
			f = x.ToFloat64(int32(from.(*schema.Decimal).Scale))
		default:
			r, _ := toRat(v, from)
			f, _ = r.Float64()
		}
		if isType(to, schema.Float) {
			return float32(f), nil
		}
		return f, nil
	}
	r, ok := toRat(v, from)
	if !ok {
		return nil, castErr(v, from, to)
	}
	if d, isDec := to.(*schema.Decimal); isDec {
		num := divRound(new(big.Int).Mul(r.Num(), pow10(d.Scale)), r.Denom())
		if len(new(big.Int).Abs(num).String()) > d.Precision {
			return nil, castErr(v, from, to)
		}
		return decimal128.FromBigInt(num), nil
	}
	q := new(big.Int).Quo(r.Num(), r.Denom()) // truncates toward zero
	if !q.IsInt64() {
		return nil, castErr(v, from, to)
	}
	out, err := narrowInt(q.Int64(), to)
	if err != nil {
		return nil, castErr(v, from, to)
	}
	return out, nil
}

// castString parses a string as Spark's cast does, surrounding spaces
// ignored, a timestamp without a zone read in loc.
func castString(s string, to schema.Type, loc *time.Location) (any, error) {
	fail := func() error {
		return errs.New(errs.InvalidArgument, "", "cannot cast %s to %s", quoteString(s), typeName(to))
	}
	t := strings.TrimSpace(s)
	switch {
	case isFloating(to):
		if f, ok := specialFloat(t); ok {
			if isType(to, schema.Float) {
				return float32(f), nil
			}
			return f, nil
		}
		bits := 64
		if isType(to, schema.Float) {
			bits = 32
		}
		body := strings.TrimSuffix(strings.TrimSuffix(t, "d"), "D")
		if bits == 32 {
			body = strings.TrimSuffix(strings.TrimSuffix(t, "f"), "F")
		}
		f, err := strconv.ParseFloat(body, bits)
		if err != nil || strings.ContainsAny(body, "xXpP_") {
			return nil, fail()
		}
		if bits == 32 {
			return float32(f), nil
		}
		return f, nil
	case isNumeric(to):
		v, vt, err := stringValue(t, to, loc)
		if err != nil {
			return nil, fail()
		}
		if isIntegral(to) && !isIntegral(vt) {
			return nil, fail() // '1.5' is not an integer
		}
		out, err := castNumber(v, vt, to)
		if err != nil {
			return nil, fail()
		}
		return out, nil
	}
	v, _, err := stringValue(s, to, loc)
	if err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "cannot cast %s to %s: %v", quoteString(s), typeName(to), err)
	}
	return v, nil
}

// formatValue renders a value as Spark's cast to string does.
func formatValue(v any, t schema.Type) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case bool:
		return strconv.FormatBool(x)
	case int8, int16, int32, int64:
		return fmt.Sprint(x)
	case float32:
		return formatDouble(float64(x), 32)
	case float64:
		return formatDouble(x, 64)
	case decimal128.Num:
		scale := 0
		if d, ok := t.(*schema.Decimal); ok {
			scale = d.Scale
		}
		return x.ToString(int32(scale))
	case string:
		return x
	case []byte:
		return string(x)
	case arrow.Date32:
		return formatDate(x)
	case arrow.Timestamp:
		return formatTimestamp(x)
	}
	return fmt.Sprint(v)
}
