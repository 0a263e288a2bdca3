package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// Values are held as the Go types schema.ParsePartitionValue returns:
// int8, int16, int32, int64, float32, float64, bool, string, []byte,
// arrow.Date32, arrow.Timestamp (microseconds) and decimal128.Num; nil is
// null.

// parseNumber gives a number literal its Spark type: an integer is INT when
// it fits, else BIGINT, else DECIMAL; a number with a point is DECIMAL; an
// exponent makes it DOUBLE; suffixes L, S, Y, D, F and BD choose the type.
func parseNumber(text string) (any, schema.Type, error) {
	up := strings.ToUpper(text)
	switch {
	case strings.HasSuffix(up, "BD"):
		return parseDecimalLiteral(text[:len(text)-2])
	case strings.HasSuffix(up, "L"), strings.HasSuffix(up, "S"), strings.HasSuffix(up, "Y"):
		body := text[:len(text)-1]
		bits, t := 64, tLong
		switch up[len(up)-1] {
		case 'S':
			bits, t = 16, tShort
		case 'Y':
			bits, t = 8, tByte
		}
		n, err := strconv.ParseInt(body, 10, bits)
		if err != nil {
			return nil, nil, fmt.Errorf("%s is not a valid %s", text, typeName(t))
		}
		switch bits {
		case 16:
			return int16(n), t, nil
		case 8:
			return int8(n), t, nil
		}
		return n, t, nil
	case strings.HasSuffix(up, "D"), strings.HasSuffix(up, "F"):
		single := strings.HasSuffix(up, "F")
		bits := 64
		if single {
			bits = 32
		}
		f, err := strconv.ParseFloat(text[:len(text)-1], bits)
		if err != nil {
			return nil, nil, fmt.Errorf("%s is out of range", text)
		}
		if single {
			return float32(f), tFloat, nil
		}
		return f, tDouble, nil
	case strings.ContainsAny(text, "eE"):
		f, err := strconv.ParseFloat(text, 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%s is out of range", text)
		}
		return f, tDouble, nil
	case strings.Contains(text, "."):
		return parseDecimalLiteral(text)
	}
	if n, err := strconv.ParseInt(text, 10, 32); err == nil {
		return int32(n), tInt, nil
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, tLong, nil
	}
	return parseDecimalLiteral(text)
}

// parseDecimalLiteral types "123.450" as decimal(6,3), as Spark types a
// BigDecimal literal; an exponent shifts the scale.
func parseDecimalLiteral(text string) (any, schema.Type, error) {
	mant, exp := text, 0
	if i := strings.IndexAny(text, "eE"); i >= 0 {
		e, err := strconv.Atoi(text[i+1:])
		if err != nil || e > 100 || e < -100 {
			return nil, nil, fmt.Errorf("%s is not a valid decimal", text)
		}
		mant, exp = text[:i], e
	}
	neg := strings.HasPrefix(mant, "-")
	mant = strings.TrimPrefix(mant, "-")
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := strings.TrimLeft(intPart+frac, "0")
	scale := len(frac) - exp
	if scale < 0 {
		if digits != "" {
			digits += strings.Repeat("0", -scale)
		}
		scale = 0
	}
	if digits == "" {
		digits = "0"
	}
	prec := max(len(digits), scale, 1)
	if prec > maxPrecision {
		return nil, nil, fmt.Errorf("%s has more than %d digits", text, maxPrecision)
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, nil, fmt.Errorf("%s is not a valid decimal", text)
	}
	if neg {
		n.Neg(n)
	}
	return decimal128.FromBigInt(n), &schema.Decimal{Precision: prec, Scale: scale}, nil
}

// parseDate reads a date as Spark's cast does: yyyy, yyyy-[m]m,
// yyyy-[m]m-[d]d, optionally followed by a space or T and anything.
func parseDate(s string) (arrow.Date32, error) {
	s = strings.TrimSpace(s)
	y, m, d, rest, err := splitDate(s)
	if err != nil {
		return 0, err
	}
	if rest != "" && rest[0] != ' ' && rest[0] != 'T' {
		return 0, fmt.Errorf("%q is not a valid date", s)
	}
	return arrow.Date32(daysFromCivil(y, m, d)), nil
}

// splitDate reads the date part of a date or timestamp string: a year of
// four digits (0001 to 9999, the range Spark supports), then optionally
// -month and -day; only a full date may be followed by more text.
func splitDate(s string) (y, m, d int, rest string, err error) {
	bad := fmt.Errorf("%q is not a valid date", s)
	i := 0
	num := func(minW, maxW int) (int, bool) {
		j := i
		for j < len(s) && j-i < maxW && isDigit(s[j]) {
			j++
		}
		if j-i < minW || j < len(s) && isDigit(s[j]) {
			return 0, false
		}
		n, _ := strconv.Atoi(s[i:j])
		i = j
		return n, true
	}
	var ok bool
	if y, ok = num(4, 4); !ok || y < 1 {
		return 0, 0, 0, "", bad
	}
	m, d = 1, 1
	full := false
	if i < len(s) && s[i] == '-' {
		i++
		if m, ok = num(1, 2); !ok {
			return 0, 0, 0, "", bad
		}
		if i < len(s) && s[i] == '-' {
			i++
			if d, ok = num(1, 2); !ok {
				return 0, 0, 0, "", bad
			}
			full = true
		}
	}
	if i < len(s) && !full {
		return 0, 0, 0, "", bad
	}
	if m < 1 || m > 12 || d < 1 || d > daysIn(y, m) {
		return 0, 0, 0, "", bad
	}
	return y, m, d, s[i:], nil
}

func daysIn(y, m int) int {
	return time.Date(y, time.Month(m)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

func daysFromCivil(y, m, d int) int64 {
	return time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

const microsPerDay = 86400 * 1e6

// parseTimestamp reads a timestamp as Spark does: a date, then optionally
// [ T]hh:mm[:ss[.ffffff]] and a zone (Z, UTC, GMT, +hh[:mm]). Without a
// zone the time is local to loc, the session time zone. ntz rejects a
// zone (and ignores loc). The result is microseconds since the epoch.
func parseTimestamp(s string, ntz bool, loc *time.Location) (arrow.Timestamp, error) {
	s = strings.TrimSpace(s)
	bad := fmt.Errorf("%q is not a valid timestamp", s)
	y, mo, d, rest, err := splitDate(s)
	if err != nil {
		return 0, bad
	}
	us := daysFromCivil(y, mo, d) * microsPerDay
	local := func(us int64) (arrow.Timestamp, error) {
		if ntz {
			return arrow.Timestamp(us), nil
		}
		return arrow.Timestamp(zonedMicros(loc, us)), nil
	}
	if rest == "" {
		return local(us)
	}
	if rest[0] != ' ' && rest[0] != 'T' {
		return 0, bad
	}
	rest = rest[1:]
	var hms [3]int
	for k := 0; k < 3; k++ {
		j := 0
		for j < len(rest) && j < 2 && isDigit(rest[j]) {
			j++
		}
		if j == 0 {
			if k == 0 && rest == "" {
				break // "2026-01-01 " is midnight
			}
			return 0, bad
		}
		hms[k], _ = strconv.Atoi(rest[:j])
		rest = rest[j:]
		if k < 2 && strings.HasPrefix(rest, ":") {
			rest = rest[1:]
			continue
		}
		if k == 0 {
			return 0, bad // an hour needs minutes
		}
		break
	}
	if hms[0] > 23 || hms[1] > 59 || hms[2] > 59 {
		return 0, bad
	}
	us += int64(hms[0]*3600+hms[1]*60+hms[2]) * 1e6
	if strings.HasPrefix(rest, ".") {
		rest = rest[1:]
		j := 0
		for j < len(rest) && isDigit(rest[j]) {
			j++
		}
		if j == 0 || j > 9 {
			return 0, bad
		}
		frac := (rest[:j] + "000000")[:6]
		f, _ := strconv.Atoi(frac)
		us += int64(f)
		rest = rest[j:]
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return local(us)
	}
	if ntz {
		return 0, fmt.Errorf("%q has a time zone, which a TIMESTAMP_NTZ cannot hold", s)
	}
	off, ok := parseZone(rest)
	if !ok {
		return 0, fmt.Errorf("%q: unsupported time zone %q (use Z, UTC or an offset such as +01:00)", s, rest)
	}
	us -= off * 1e6
	if us < minTimestamp || us > maxTimestamp {
		return 0, fmt.Errorf("%q is outside 0001-01-01 to 9999-12-31 in UTC", s)
	}
	return arrow.Timestamp(us), nil
}

// The instants of 0001-01-01 00:00:00 and 9999-12-31 23:59:59.999999 UTC.
var (
	minTimestamp = daysFromCivil(1, 1, 1) * microsPerDay
	maxTimestamp = daysFromCivil(9999, 12, 31)*microsPerDay + microsPerDay - 1
)

// parseZone reads Z, UTC, GMT, UT and [+-]hh[[:]mm] (also after UTC/GMT),
// returning the offset east of UTC in seconds.
func parseZone(z string) (int64, bool) {
	up := strings.ToUpper(z)
	for _, p := range []string{"UTC", "GMT", "UT", "Z"} {
		if strings.HasPrefix(up, p) {
			up = up[len(p):]
			if up == "" {
				return 0, true
			}
			break
		}
	}
	if up == "" || up[0] != '+' && up[0] != '-' {
		return 0, false
	}
	sign := int64(1)
	if up[0] == '-' {
		sign = -1
	}
	body := strings.ReplaceAll(up[1:], ":", "")
	if len(body) != 2 && len(body) != 4 && len(body) != 1 {
		return 0, false
	}
	for i := 0; i < len(body); i++ {
		if !isDigit(body[i]) {
			return 0, false
		}
	}
	var h, m int
	if len(body) <= 2 {
		h, _ = strconv.Atoi(body)
	} else {
		h, _ = strconv.Atoi(body[:2])
		m, _ = strconv.Atoi(body[2:])
	}
	if h > 18 || m > 59 {
		return 0, false
	}
	return sign * int64(h*3600+m*60), true
}

// formatDate renders days since the epoch as yyyy-mm-dd, as Spark casts
// a date to a string (javaDateText: +10000-01-01, -0005-01-01).
func formatDate(d arrow.Date32) string {
	return javaDateText(int64(d) * 86400)
}

// formatTimestamp renders microseconds as "yyyy-mm-dd hh:mm:ss[.ffffff]"
// in UTC, fraction trimmed, as Spark casts a timestamp to a string.
func formatTimestamp(us arrow.Timestamp) string {
	sec, frac := int64(us)/1e6, int64(us)%1e6
	if frac < 0 {
		sec--
		frac += 1e6
	}
	s := javaDateText(sec) + time.Unix(sec, 0).UTC().Format(" 15:04:05")
	if frac != 0 {
		s += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return s
}

// jvmDependentDigits reports whether Java's Double.toString (bits 64) or
// Float.toString (32) of f differs by JVM version: Java 17's
// FloatingDecimal writes more digits than the shortest for subnormals and
// for doubles in [2^52, 2^85) and floats in [2^24, 2^66) (1.0E23 as
// 9.999999999999999E22, 5e-324 as 4.9E-324, 7.79185E10f as 7.7918503E10;
// checked on 40,000 doubles and 10,000 floats against Java 17), where Java
// 19 and later write the shortest, as formatDouble does.
func jvmDependentDigits(f float64, bits int) bool {
	a := math.Abs(f)
	if a == 0 || math.IsInf(a, 0) || math.IsNaN(a) {
		return false
	}
	if bits == 32 {
		return a < 0x1p-126 || a >= 0x1p24 && a < 0x1p66
	}
	return a < 0x1p-1022 || a >= 0x1p52 && a < 0x1p85
}

// formatDouble renders a float the way Java's Double.toString does, as
// Spark casts a double to a string: 1.0, 1.5E10, 1.0E-5, NaN, Infinity.
// Where that depends on the JVM (jvmDependentDigits) it writes the
// shortest digits, Java 19's.
func formatDouble(f float64, bits int) string {
	if name, ok := schema.NonFiniteName(f); ok {
		return name
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	a := math.Abs(f)
	if a >= 1e-3 && a < 1e7 {
		s := strconv.FormatFloat(f, 'f', -1, bits)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	s := strconv.FormatFloat(f, 'E', -1, bits)
	mant, exp, _ := strings.Cut(s, "E")
	if !strings.Contains(mant, ".") {
		mant += ".0"
	}
	exp = strings.TrimPrefix(exp, "+")
	neg := strings.HasPrefix(exp, "-")
	exp = strings.TrimLeft(strings.TrimPrefix(exp, "-"), "0")
	if neg {
		exp = "-" + exp
	}
	return mant + "E" + exp
}

// toRat is the exact value of a numeric Go value; ok is false for NaN,
// infinities and non-numbers.
func toRat(v any, t schema.Type) (*big.Rat, bool) {
	switch x := v.(type) {
	case int8:
		return new(big.Rat).SetInt64(int64(x)), true
	case int16:
		return new(big.Rat).SetInt64(int64(x)), true
	case int32:
		return new(big.Rat).SetInt64(int64(x)), true
	case int64:
		return new(big.Rat).SetInt64(x), true
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(float64(x)), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, false
		}
		return new(big.Rat).SetFloat64(x), true
	case decimal128.Num:
		d, ok := t.(*schema.Decimal)
		if !ok {
			return nil, false
		}
		r := new(big.Rat).SetInt(x.BigInt())
		return r.Quo(r, new(big.Rat).SetInt(pow10(d.Scale))), true
	}
	return nil, false
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// exactNumber converts a numeric value to numeric type t when it is
// represented exactly; ok is false otherwise.
func exactNumber(v any, from, t schema.Type) (any, bool) {
	r, ok := toRat(v, from)
	if !ok {
		// NaN and infinities convert between the floating types only.
		if f, isF := asFloat(v); isF && isFloating(t) {
			if isType(t, schema.Float) {
				return float32(f), true
			}
			return f, true
		}
		return nil, false
	}
	switch tt := t.(type) {
	case *schema.Decimal:
		s := new(big.Rat).Mul(r, new(big.Rat).SetInt(pow10(tt.Scale)))
		if !s.IsInt() || len(new(big.Int).Abs(s.Num()).String()) > tt.Precision {
			return nil, false
		}
		return decimal128.FromBigInt(s.Num()), true
	}
	switch primName(t) {
	case schema.Byte, schema.Short, schema.Integer, schema.Long:
		if !r.IsInt() || !r.Num().IsInt64() {
			return nil, false
		}
		n := r.Num().Int64()
		switch primName(t) {
		case schema.Byte:
			return int8(n), n >= math.MinInt8 && n <= math.MaxInt8
		case schema.Short:
			return int16(n), n >= math.MinInt16 && n <= math.MaxInt16
		case schema.Integer:
			return int32(n), n >= math.MinInt32 && n <= math.MaxInt32
		}
		return n, true
	case schema.Float:
		f, exact := r.Float32()
		return f, exact
	case schema.Double:
		f, exact := r.Float64()
		return f, exact
	}
	return nil, false
}

func asFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// stringValue parses the text of a string literal as a value of type t,
// as Spark casts a string; numbers are parsed by the literal rules and may
// then need widening, which the caller decides.
func stringValue(s string, t schema.Type, loc *time.Location) (any, schema.Type, error) {
	trimmed := strings.TrimSpace(s)
	switch {
	case isNumeric(t):
		text := trimmed
		neg := strings.HasPrefix(text, "-")
		text = strings.TrimPrefix(strings.TrimPrefix(text, "-"), "+")
		if text == "" || !isNumberText(text) {
			if f, ok := specialFloat(trimmed); ok {
				return f, tDouble, nil
			}
			return nil, nil, fmt.Errorf("%s is not a valid number", quoteString(s))
		}
		v, vt, err := parseNumber(text)
		if err != nil {
			return nil, nil, err
		}
		if neg {
			v, err = negateValue(v, vt)
			if err != nil {
				return nil, nil, err
			}
		}
		return v, vt, nil
	}
	switch primName(t) {
	case schema.String:
		return s, tString, nil
	case schema.Binary:
		return []byte(s), tBinary, nil
	case schema.Boolean:
		b, ok := parseBool(trimmed)
		if !ok {
			return nil, nil, fmt.Errorf("%s is not a valid boolean", quoteString(s))
		}
		return b, tBool, nil
	case schema.Date:
		d, err := parseDate(s)
		return d, tDate, err
	case schema.Timestamp, schema.TimestampNTZ:
		ts, err := parseTimestamp(s, isType(t, schema.TimestampNTZ), loc)
		return ts, t, err
	case schema.Void:
		return s, tString, nil
	}
	return nil, nil, fmt.Errorf("a string cannot be used as %s", typeName(t))
}

// isNumberText accepts digits with an optional point and exponent, and no
// type suffix.
func isNumberText(s string) bool {
	seenDigit, seenPoint, seenExp := false, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			seenDigit = true
		case c == '.' && !seenPoint && !seenExp:
			seenPoint = true
		case (c == 'e' || c == 'E') && seenDigit && !seenExp:
			seenExp = true
			if i+1 < len(s) && (s[i+1] == '+' || s[i+1] == '-') {
				i++
			}
			if i+1 >= len(s) {
				return false
			}
		default:
			return false
		}
	}
	return seenDigit
}

func specialFloat(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case "nan":
		return math.NaN(), true
	case "infinity", "+infinity", "inf", "+inf":
		return math.Inf(1), true
	case "-infinity", "-inf":
		return math.Inf(-1), true
	}
	return 0, false
}

// parseBool accepts what Spark's cast from string accepts.
func parseBool(s string) (bool, bool) {
	switch strings.ToLower(s) {
	case "t", "true", "y", "yes", "1":
		return true, true
	case "f", "false", "n", "no", "0":
		return false, true
	}
	return false, false
}

// negateValue negates a numeric literal, failing on overflow.
func negateValue(v any, t schema.Type) (any, error) {
	overflow := fmt.Errorf("-%v overflows %s", v, typeName(t))
	switch x := v.(type) {
	case int8:
		if x == math.MinInt8 {
			return nil, overflow
		}
		return -x, nil
	case int16:
		if x == math.MinInt16 {
			return nil, overflow
		}
		return -x, nil
	case int32:
		if x == math.MinInt32 {
			return nil, overflow
		}
		return -x, nil
	case int64:
		if x == math.MinInt64 {
			return nil, overflow
		}
		return -x, nil
	case float32:
		return -x, nil
	case float64:
		return -x, nil
	case decimal128.Num:
		return x.Negate(), nil
	}
	return nil, fmt.Errorf("cannot negate a %s", typeName(t))
}
