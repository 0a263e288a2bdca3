package expr

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// to_json(struct | array | map) as Spark's StructsToJson writes it with
// its JacksonGenerator and default options: a struct's fields in order, a
// null field left out (spark.sql.jsonGenerator.ignoreNullFields), a null
// element or map value written as null, a map key as the text of its
// value (a date as its day number); a date as yyyy-MM-dd, a timestamp as
// yyyy-MM-dd'T'HH:mm:ss.SSSXXX in the session time zone and a
// TIMESTAMP_NTZ without the offset (milliseconds, truncated; a year past
// 9999 signed, as java.time writes it), binary as Base64, a decimal as
// java.math.BigDecimal's toString (1E-7, 0E-7), a double as
// Double.toString and a float as Float.toString, NaN and the infinities
// quoted. Strings are escaped as Jackson's writer-based generator does
// (characters beyond U+FFFF as they are). The options argument is
// refused, and so is a double or float whose digits depend on the JVM
// version on the row (javaFloatText).

// toJSONNames are the names tojson.go binds.
var toJSONNames = map[string]bool{"to_json": true}

// bindToJSON binds to_json.
func (b *binder) bindToJSON(e *Call) (node, error) {
	x, err := b.bind(e.Args[0])
	if err != nil {
		return nil, err
	}
	if len(e.Args) > 1 {
		return nil, errAt(e.Args[1], "to_json: options are not supported; leave the second argument out for Spark's defaults")
	}
	switch x.Type().(type) {
	case *schema.Struct, *schema.Array, *schema.Map:
	default:
		return nil, errAt(e.Args[0], "to_json needs a struct, an array or a map, not %s (%s)", e.Args[0], typeName(x.Type()))
	}
	if err := toJSONCheck(x.Type()); err != nil {
		return nil, errAt(e.Args[0], "to_json of %s: %v", e.Args[0], err)
	}
	return &callN{fn: "to_json", args: []node{x}, t: tString}, nil
}

// toJSONCheck refuses the types to_json does not write.
func toJSONCheck(t schema.Type) error {
	switch t := t.(type) {
	case *schema.Struct:
		for _, f := range t.Fields {
			if err := toJSONCheck(f.Type); err != nil {
				return err
			}
		}
	case *schema.Array:
		return toJSONCheck(t.Element)
	case *schema.Map:
		switch {
		case isString(t.Key), isIntegral(t.Key), isBool(t.Key), isDecimal(t.Key), isType(t.Key, schema.Date):
		default:
			return fmt.Errorf("a map key of type %s, which Spark writes as the text of its internal value, is not supported", typeName(t.Key))
		}
		return toJSONCheck(t.Value)
	case *schema.Primitive:
		if t.Name == schema.Variant {
			return fmt.Errorf("a VARIANT value is not supported")
		}
	}
	return nil
}

// toJSONFunction evaluates to_json.
func (ev *evaluator) toJSONFunction(n *callN, args []value) (value, error) {
	if args[0].arr == nil { // a constant nested value is always NULL here
		sc, err := makeScalar(nil, tString)
		return value{sc: sc}, err
	}
	w := jsonWriter{loc: ev.loc}
	write := w.writer(n.args[0].Type())
	arr := args[0].arr
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	b.Reserve(ev.n)
	var sb strings.Builder
	for i := 0; i < ev.n; i++ {
		if arr.IsNull(i) {
			b.AppendNull()
			continue
		}
		sb.Reset()
		if err := write(&sb, arr, i); err != nil {
			return value{}, errs.New(errs.InvalidArgument, "", "to_json: %v", err)
		}
		b.Append(sb.String())
	}
	return value{arr: b.NewArray()}, nil
}

// jsonWriter writes values as Spark's JacksonGenerator does.
type jsonWriter struct {
	loc *time.Location // the session time zone
}

// writeFunc writes row i of arr.
type writeFunc func(sb *strings.Builder, arr arrow.Array, i int) error

// writer is the writeFunc of non-null values of type t.
func (w jsonWriter) writer(t schema.Type) writeFunc {
	switch t := t.(type) {
	case *schema.Struct:
		fields := make([]writeFunc, len(t.Fields))
		for k, f := range t.Fields {
			fields[k] = w.writer(f.Type)
		}
		return func(sb *strings.Builder, arr arrow.Array, i int) error {
			s := arr.(*array.Struct)
			sb.WriteByte('{')
			first := true
			for k, f := range t.Fields {
				c := s.Field(k)
				if c.IsNull(i) {
					continue // ignoreNullFields
				}
				if !first {
					sb.WriteByte(',')
				}
				first = false
				jacksonString(sb, f.Name, false)
				sb.WriteByte(':')
				if err := fields[k](sb, c, i); err != nil {
					return err
				}
			}
			sb.WriteByte('}')
			return nil
		}
	case *schema.Array:
		elem := w.writer(t.Element)
		return func(sb *strings.Builder, arr arrow.Array, i int) error {
			l := arr.(array.ListLike)
			start, end := l.ValueOffsets(i)
			vals := l.ListValues()
			sb.WriteByte('[')
			for j := start; j < end; j++ {
				if j > start {
					sb.WriteByte(',')
				}
				if err := writeOrNull(sb, elem, vals, int(j)); err != nil {
					return err
				}
			}
			sb.WriteByte(']')
			return nil
		}
	case *schema.Map:
		val := w.writer(t.Value)
		return func(sb *strings.Builder, arr arrow.Array, i int) error {
			m := arr.(*array.Map)
			start, end := m.ValueOffsets(i)
			keys, items := m.Keys(), m.Items()
			sb.WriteByte('{')
			for j := start; j < end; j++ {
				if j > start {
					sb.WriteByte(',')
				}
				k, err := mapKeyText(goValue(keys, int(j)), t.Key)
				if err != nil {
					return err
				}
				jacksonString(sb, k, false)
				sb.WriteByte(':')
				if err := writeOrNull(sb, val, items, int(j)); err != nil {
					return err
				}
			}
			sb.WriteByte('}')
			return nil
		}
	}
	return func(sb *strings.Builder, arr arrow.Array, i int) error {
		return w.atomic(sb, goValue(arr, i), t)
	}
}

// writeOrNull writes row i of arr, null when it is null.
func writeOrNull(sb *strings.Builder, write writeFunc, arr arrow.Array, i int) error {
	if arr.IsNull(i) {
		sb.WriteString("null")
		return nil
	}
	return write(sb, arr, i)
}

// atomic writes a non-null atomic value v of type t.
func (w jsonWriter) atomic(sb *strings.Builder, v any, t schema.Type) error {
	switch x := v.(type) {
	case nil:
		sb.WriteString("null")
	case bool:
		sb.WriteString(strconv.FormatBool(x))
	case int8, int16, int32, int64:
		fmt.Fprint(sb, x)
	case string:
		jacksonString(sb, x, false)
	case []byte:
		sb.WriteByte('"')
		sb.WriteString(base64.StdEncoding.EncodeToString(x))
		sb.WriteByte('"')
	case float64, float32:
		s, quoted, err := javaFloatText(x)
		if err != nil {
			return err
		}
		if quoted {
			s = `"` + s + `"`
		}
		sb.WriteString(s)
	case decimal128.Num:
		sb.WriteString(javaBigDecimalString(x, t.(*schema.Decimal).Scale))
	case arrow.Date32:
		sb.WriteString(`"` + javaDateText(int64(x)*86400) + `"`)
	case arrow.Timestamp:
		us := int64(x)
		var off int
		if isType(t, schema.Timestamp) {
			off = offsetAt(w.loc, floorDiv(us, 1e6))
		}
		local := us + int64(off)*1e6
		sec := floorDiv(local, 1e6)
		sb.WriteString(`"` + javaDateText(sec) + "T" + time.Unix(sec, 0).UTC().Format("15:04:05") +
			fmt.Sprintf(".%03d", (local-sec*1e6)/1000))
		if isType(t, schema.Timestamp) {
			sb.WriteString(offsetXXX(off))
		}
		sb.WriteByte('"')
	default:
		return fmt.Errorf("a value of type %s is not supported", typeName(t))
	}
	return nil
}

// javaDateText is the date of the UTC day of sec as java.time's uuuu-MM-dd
// writes it: four digits, a year past 9999 with a +, one before 0 with a -.
func javaDateText(sec int64) string {
	tm := time.Unix(sec, 0).UTC()
	y := tm.Year()
	var ys string
	switch {
	case y > 9999:
		ys = "+" + strconv.Itoa(y)
	case y < 0:
		ys = fmt.Sprintf("-%04d", -y)
	default:
		ys = fmt.Sprintf("%04d", y)
	}
	return ys + tm.Format("-01-02")
}

// offsetXXX is an offset as DateTimeFormatter's XXX writes it: Z for zero,
// else +HH:MM (seconds left out).
func offsetXXX(off int) string {
	if off == 0 {
		return "Z"
	}
	sign := "+"
	if off < 0 {
		sign, off = "-", -off
	}
	return fmt.Sprintf("%s%02d:%02d", sign, off/3600, off/60%60)
}

// mapKeyText is the text Spark writes for a map key: the toString of its
// internal value.
func mapKeyText(v any, t schema.Type) (string, error) {
	switch x := v.(type) {
	case decimal128.Num:
		return javaBigDecimalString(x, t.(*schema.Decimal).Scale), nil
	case arrow.Date32:
		return strconv.Itoa(int(x)), nil
	case string:
		return x, nil
	}
	return fmt.Sprint(v), nil
}

// javaFloatText is Double.toString or Float.toString of a float64 or
// float32, and whether Jackson quotes it (NaN and the infinities). A
// double javaDoubleString refuses, and a float of more than 6 digits,
// subnormal or in [2^24, 2^66) (where Java 17's FloatingDecimal writes
// more digits than the shortest: 7.79185E10 as 7.7918503E10; checked on
// 10,000 floats against Java 17), are refused: Java 19 and later write
// the shortest.
func javaFloatText(v any) (string, bool, error) {
	f, bits := 0.0, 64
	switch x := v.(type) {
	case float32:
		f, bits = float64(x), 32
	case float64:
		f = x
	}
	if name, ok := schema.NonFiniteName(f); ok {
		return name, true, nil
	}
	if bits == 64 {
		s, ok := javaDoubleString(f)
		if !ok {
			return "", false, fmt.Errorf("the double %s, %s", strconv.FormatFloat(f, 'g', -1, 64), javaDigitsRefusal)
		}
		return s, false, nil
	}
	mant, _, _ := strings.Cut(strconv.FormatFloat(math.Abs(f), 'e', -1, 32), "e")
	if jvmDependentDigits(f, 32) || len(strings.Replace(mant, ".", "", 1)) > 6 {
		return "", false, fmt.Errorf("the float %s, whose digits Java writes differently by JVM version (more than 6 digits, subnormal, or between 2^24 and 2^66), is not supported", strconv.FormatFloat(f, 'g', -1, 32))
	}
	return formatDouble(f, 32), false, nil
}

// javaBigDecimalString is java.math.BigDecimal's toString of the unscaled
// value u with scale: plain when the scale is not negative and the
// adjusted exponent is -6 or more, else scientific (1E-7, 1.5E-8).
func javaBigDecimalString(u decimal128.Num, scale int) string {
	digits := u.BigInt().String()
	neg := strings.HasPrefix(digits, "-")
	digits = strings.TrimPrefix(digits, "-")
	sign := ""
	if neg {
		sign = "-"
	}
	adjusted := -scale + len(digits) - 1
	if scale >= 0 && adjusted >= -6 {
		if scale == 0 {
			return sign + digits
		}
		if len(digits) > scale {
			return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
		}
		return sign + "0." + strings.Repeat("0", scale-len(digits)) + digits
	}
	s := digits[:1]
	if len(digits) > 1 {
		s += "." + digits[1:]
	}
	exp := "E"
	if adjusted >= 0 {
		exp += "+"
	}
	return sign + s + exp + big.NewInt(int64(adjusted)).String()
}
