package expr

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// format_string(fmt, args...) and printf as Spark's FormatString computes
// them: java.util.Formatter with Locale.US over the arguments as Spark
// holds them (a DATE is its day number, a TIMESTAMP its microseconds, a
// DECIMAL Spark's Decimal, which only %s, %b and their upper cases print).
// The format is read as Java 17's Formatter reads it; a specifier Java
// refuses is refused with the name of Java's exception, when bound for a
// constant format, on the row for one a column gives. A conversion given
// an argument of a type it does not print fails the row as Java's
// IllegalFormatConversionException does (a NULL prints "null"). Java
// prints a double from the digits of Double.toString, rounded half up;
// they are the shortest that read back but where they depend on the JVM
// version (jvmDependentDigits), where a value is refused on the row. %a is
// Double.toHexString's significand rounded half to even, as Java's
// Formatter.hexDouble rounds it. %t and a binary, array, map, struct or
// interval argument are refused.

// formatNames are the names of this file.
var formatNames = map[string]bool{"format_string": true, "printf": true}

// fmtSpec is one piece of a format: a fixed text (conv 0) or a specifier.
type fmtSpec struct {
	text          string
	conv          byte // lower case: b h s c d o x e f g % n
	upper         bool
	arg           int // the argument's position, -1 for none
	src           string
	width, prec   int // -1 when absent
	minus, alt    bool
	plus, space   bool
	zero, group   bool
	paren         bool
	flagsProvided string
}

// formatError is a Java Formatter exception: its class and message.
type formatError struct{ class, msg string }

func (e *formatError) Error() string {
	if e.msg == "" {
		return "Java's " + e.class
	}
	return fmt.Sprintf("Java's %s: %s", e.class, e.msg)
}

// parseJavaFormat reads format as Java 17's Formatter.parse does and
// resolves each specifier's argument among nargs, as Formatter.format
// does.
func parseJavaFormat(format string, nargs int) ([]fmtSpec, error) {
	var out []fmtSpec
	last, lasto := -1, -1
	for i := 0; i < len(format); {
		n := strings.IndexByte(format[i:], '%')
		if n < 0 {
			out = append(out, fmtSpec{text: format[i:], arg: -1})
			break
		}
		if n > 0 {
			out = append(out, fmtSpec{text: format[i : i+n], arg: -1})
		}
		start := i + n
		sp, end, err := parseSpec(format, start)
		if err != nil {
			return nil, err
		}
		i = end
		sp.arg = -1
		if sp.conv != '%' && sp.conv != 'n' {
			switch {
			case sp.relative:
			case sp.arg0 > 0:
				last = sp.arg0 - 1
			default:
				lasto++
				last = lasto
			}
			if last < 0 || last >= nargs {
				return nil, &formatError{"MissingFormatArgumentException", fmt.Sprintf("Format specifier '%s'", sp.src)}
			}
			sp.arg = last
		}
		out = append(out, sp.fmtSpec)
	}
	return out, nil
}

// parsedSpec is a specifier with its written index.
type parsedSpec struct {
	fmtSpec
	arg0     int
	relative bool
}

const javaFlags = "-#+ 0,(<"

// parseSpec reads the specifier at format[start] ('%'), as the pattern
// %(\d+\$)?([-#+ 0,(\<]*)?(\d+)?(\.\d+)?([tT])?([a-zA-Z%]) matches it.
func parseSpec(format string, start int) (parsedSpec, int, error) {
	sp := parsedSpec{fmtSpec: fmtSpec{width: -1, prec: -1}}
	i := start + 1
	if i >= len(format) {
		return sp, 0, &formatError{"UnknownFormatConversionException", "Conversion = '%'"}
	}
	digits := func(j int) int {
		for j < len(format) && format[j] >= '0' && format[j] <= '9' {
			j++
		}
		return j
	}
	// The index: digits then '$'.
	if j := digits(i); j > i && j < len(format) && format[j] == '$' {
		v, err := strconv.Atoi(format[i:j])
		if err != nil || v > math.MaxInt32 {
			return sp, 0, &formatError{"IllegalFormatArgumentIndexException", "Illegal format argument index = " + format[i:j]}
		}
		if v == 0 {
			return sp, 0, &formatError{"INVALID_PARAMETER_VALUE.ZERO_INDEX", "expects %1$, %2$ and so on, but got %0$"}
		}
		sp.arg0 = v
		i = j + 1
	}
	fs := i
	for i < len(format) && strings.IndexByte(javaFlags, format[i]) >= 0 {
		i++
	}
	flags := format[fs:i]
	if j := digits(i); j > i {
		v, err := strconv.Atoi(format[i:j])
		if err != nil || v > math.MaxInt32 {
			return sp, 0, &formatError{"IllegalFormatWidthException", format[i:j]}
		}
		sp.width = v
		i = j
	}
	if i < len(format) && format[i] == '.' {
		if j := digits(i + 1); j > i+1 {
			v, err := strconv.Atoi(format[i+1 : j])
			if err != nil || v > math.MaxInt32 {
				return sp, 0, &formatError{"IllegalFormatPrecisionException", format[i+1 : j]}
			}
			sp.prec = v
			i = j
		} else {
			return sp, 0, &formatError{"UnknownFormatConversionException", "Conversion = '" + string(format[start+1]) + "'"}
		}
	}
	if i >= len(format) || !isASCIILetter(rune(format[i])) && format[i] != '%' {
		c, _ := utf8.DecodeRuneInString(format[start+1:])
		return sp, 0, &formatError{"UnknownFormatConversionException", "Conversion = '" + string(c) + "'"}
	}
	c := format[i]
	if c == 't' || c == 'T' {
		return sp, 0, &formatError{"", "the date/time conversions (%t) are not supported"}
	}
	i++
	if !strings.ContainsRune("bBhHsScCdoxXeEfgGaA%n", rune(c)) {
		return sp, 0, &formatError{"UnknownFormatConversionException", "Conversion = '" + string(c) + "'"}
	}
	for k := 0; k < len(flags); k++ {
		if strings.IndexByte(flags[:k], flags[k]) >= 0 {
			return sp, 0, &formatError{"DuplicateFormatFlagsException", "Flags = '" + flags[k:k+1] + "'"}
		}
		switch flags[k] {
		case '-':
			sp.minus = true
		case '#':
			sp.alt = true
		case '+':
			sp.plus = true
		case ' ':
			sp.space = true
		case '0':
			sp.zero = true
		case ',':
			sp.group = true
		case '(':
			sp.paren = true
		case '<':
			sp.relative = true
		}
	}
	sp.flagsProvided = strings.ReplaceAll(flags, "<", "")
	if c >= 'A' && c <= 'Z' {
		sp.upper = true
		c += 'a' - 'A'
	}
	sp.conv = c
	sp.src = format[start:i]
	return sp, i, sp.check()
}

// check is Java's check of a specifier's flags, width and precision.
func (sp *parsedSpec) check() error {
	mismatch := func(flag byte) error {
		return &formatError{"FormatFlagsConversionMismatchException", fmt.Sprintf("Conversion = %c, Flags = %c", sp.conv, flag)}
	}
	bad := func(flags string) error {
		for _, f := range []byte(flags) {
			if strings.IndexByte(sp.flagsProvided, f) >= 0 {
				return mismatch(f)
			}
		}
		return nil
	}
	missingWidth := &formatError{"MissingFormatWidthException", sp.src}
	precision := &formatError{"IllegalFormatPrecisionException", strconv.Itoa(sp.prec)}
	switch sp.conv {
	case 'b', 'h', 's':
		if sp.alt {
			// %s takes '#' only for a java.util.Formattable, which no
			// Spark value is.
			return mismatch('#')
		}
		if sp.width == -1 && sp.minus {
			return missingWidth
		}
		return bad("+ 0,(")
	case 'c':
		if sp.prec != -1 {
			return precision
		}
		if err := bad("#+ 0,("); err != nil {
			return err
		}
		if sp.width == -1 && sp.minus {
			return missingWidth
		}
	case 'd', 'o', 'x', 'e', 'f', 'g', 'a':
		if sp.width == -1 && (sp.minus || sp.zero) {
			return missingWidth
		}
		if sp.plus && sp.space || sp.minus && sp.zero {
			return &formatError{"IllegalFormatFlagsException", "Flags = '" + sp.flagsProvided + "'"}
		}
		switch sp.conv {
		case 'd':
			if sp.prec != -1 {
				return precision
			}
			return bad("#")
		case 'o', 'x':
			if sp.prec != -1 {
				return precision
			}
			return bad(",")
		case 'e':
			return bad(",")
		case 'g':
			return bad("#")
		case 'a':
			return bad("(,")
		}
	case '%':
		if sp.prec != -1 {
			return precision
		}
		if sp.flagsProvided != "" && sp.flagsProvided != "-" {
			return &formatError{"IllegalFormatFlagsException", "Flags = '" + sp.flagsProvided + "'"}
		}
		if sp.width == -1 && sp.minus {
			return missingWidth
		}
	case 'n':
		if sp.prec != -1 {
			return precision
		}
		if sp.width != -1 {
			return &formatError{"IllegalFormatWidthException", strconv.Itoa(sp.width)}
		}
		if sp.flagsProvided != "" {
			return &formatError{"IllegalFormatFlagsException", "Flags = '" + sp.flagsProvided + "'"}
		}
	}
	return nil
}

// javaKind is the Java class Spark hands java.util.Formatter for a type.
func javaKind(t schema.Type) string {
	switch primName(t) {
	case schema.Byte:
		return "java.lang.Byte"
	case schema.Short:
		return "java.lang.Short"
	case schema.Integer, schema.Date:
		return "java.lang.Integer"
	case schema.Long, schema.Timestamp, schema.TimestampNTZ:
		return "java.lang.Long"
	case schema.Float:
		return "java.lang.Float"
	case schema.Double:
		return "java.lang.Double"
	case schema.String:
		return "org.apache.spark.unsafe.types.UTF8String"
	case schema.Boolean:
		return "java.lang.Boolean"
	case schema.Void:
		return "null"
	}
	if isDecimal(t) {
		return "org.apache.spark.sql.types.Decimal"
	}
	return ""
}

// convAccepts reports whether conversion c prints a value of Java class k.
func convAccepts(c byte, k string) bool {
	switch c {
	case 'b', 's':
		return true
	case 'h':
		return k != "org.apache.spark.sql.types.Decimal"
	case 'c':
		return k == "java.lang.Byte" || k == "java.lang.Short" || k == "java.lang.Integer"
	case 'd', 'o', 'x':
		return k == "java.lang.Byte" || k == "java.lang.Short" || k == "java.lang.Integer" || k == "java.lang.Long"
	case 'e', 'f', 'g', 'a':
		return k == "java.lang.Float" || k == "java.lang.Double"
	}
	return false
}

// bindFormatString binds format_string and printf.
func (b *binder) bindFormatString(e *Call) (node, error) {
	f, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	args := []node{f}
	for _, a := range e.Args[1:] {
		n, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		args = append(args, n)
	}
	l, constant := f.(*lit)
	if !constant {
		// A format read on each row may format any argument.
		for i, a := range args[1:] {
			if t := a.Type(); javaKind(t) == "" {
				return nil, errAt(e.Args[i+1], "%s formats %s, of type %s, which Spark hands Java as an object whose text this engine does not reproduce; not supported", e.Name, e.Args[i+1], typeName(t))
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
	}
	if l.v == nil {
		return &lit{v: nil, t: tString, src: e}, nil
	}
	format := l.v.(string)
	specs, err := parseJavaFormat(format, len(args)-1)
	if err == nil {
		err = checkFormatArgs(specs, args)
	}
	if err != nil {
		fe := err.(*formatError)
		if fe.class == "" {
			return nil, errAt(e.Args[0], "%s: the format %q: %s", e.Name, format, fe.msg)
		}
		return nil, errAt(e.Args[0], "%s: the format %q is refused, as Java's Formatter refuses it (%s)", e.Name, format, fe)
	}
	return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
}

// checkFormatArgs refuses a specifier whose argument's Java text this
// engine does not reproduce.
func checkFormatArgs(specs []fmtSpec, args []node) error {
	for _, sp := range specs {
		if sp.arg < 0 {
			continue
		}
		t := args[sp.arg+1].Type()
		switch k := javaKind(t); {
		case k == "":
			return &formatError{"", fmt.Sprintf("%s formats argument %d, of type %s, which Spark hands Java as an object whose text this engine does not reproduce; not supported", sp.src, sp.arg+1, typeName(t))}
		case sp.conv == 'h' && k == "org.apache.spark.sql.types.Decimal":
			return &formatError{"", fmt.Sprintf("%s of the DECIMAL argument %d prints the hash code of Spark's Decimal, which this engine does not reproduce; not supported", sp.src, sp.arg+1)}
		}
	}
	return nil
}

// formatStringFunction evaluates format_string and printf.
func (ev *evaluator) formatStringFunction(n *callN, args []value) (value, error) {
	types := make([]schema.Type, len(n.args))
	for i, a := range n.args {
		types[i] = a.Type()
	}
	last, lastSpecs := "", []fmtSpec(nil)
	return ev.mapRows(args, tString, false, func(v []any) (any, error) {
		format, ok := v[0].(string)
		if !ok {
			return nil, nil
		}
		if lastSpecs == nil || format != last {
			specs, err := parseJavaFormat(format, len(n.args)-1)
			if err == nil {
				err = checkFormatArgs(specs, n.args)
			}
			if err != nil {
				return nil, errs.New(errs.InvalidArgument, "", "%s(%q): %v", n.fn, format, err)
			}
			last, lastSpecs = format, specs
		}
		var sb strings.Builder
		for _, sp := range lastSpecs {
			if sp.conv == 0 {
				sb.WriteString(sp.text)
				continue
			}
			var arg any
			var t schema.Type
			if sp.arg >= 0 {
				arg, t = v[sp.arg+1], types[sp.arg+1]
			}
			s, err := sp.print(arg, t)
			if err != nil {
				return nil, errs.New(errs.InvalidArgument, "", "%s(%q): %s formats argument %d (%v): %v", n.fn, format, sp.src, sp.arg+1, arg, err)
			}
			sb.WriteString(s)
		}
		return sb.String(), nil
	})
}

// print is Java's FormatSpecifier.print of arg (nil for null), of type t.
func (sp *fmtSpec) print(arg any, t schema.Type) (string, error) {
	switch sp.conv {
	case '%':
		return sp.justify("%"), nil
	case 'n':
		return "\n", nil
	}
	if sp.conv == 'b' {
		s := "false"
		if arg != nil {
			s = "true"
			if bv, ok := arg.(bool); ok && !bv {
				s = "false"
			}
		}
		return sp.printString(s)
	}
	if arg == nil {
		return sp.printString("null")
	}
	k := javaKind(t)
	if !convAccepts(sp.conv, k) {
		return "", &formatError{"IllegalFormatConversionException", fmt.Sprintf("%c != %s", sp.conv, k)}
	}
	switch sp.conv {
	case 'h':
		return sp.printString(strconv.FormatUint(uint64(javaHashCode(arg)), 16))
	case 's':
		s, err := javaToString(arg, t)
		if err != nil {
			return "", err
		}
		return sp.printString(s)
	case 'c':
		cp := int64(toInt64(arg))
		if cp < 0 || cp > unicode.MaxRune {
			return "", &formatError{"IllegalFormatCodePointException", fmt.Sprintf("Code point = 0x%x", uint32(cp))}
		}
		if cp >= 0xD800 && cp <= 0xDFFF {
			// A lone surrogate: Java's text is not valid UTF-16.
			return sp.printString("?")
		}
		return sp.printString(string(rune(cp)))
	case 'd', 'o', 'x':
		if sp.conv != 'd' && (sp.plus || sp.space || sp.paren) {
			return "", &formatError{"FormatFlagsConversionMismatchException", fmt.Sprintf("Conversion = %c, Flags = %s", sp.conv, sp.flagsProvided)}
		}
		return sp.printInteger(arg), nil
	}
	x, _ := asFloat(arg)
	return sp.printFloat(x)
}

// printString is Java's print(String): cut to the precision (in UTF-16
// units), upper-cased, justified to the width.
func (sp *fmtSpec) printString(s string) (string, error) {
	if sp.prec >= 0 && sp.prec < utf16Len(s) {
		s = cutUTF16(s, sp.prec)
	}
	if sp.upper {
		u, err := javaUpper(s)
		if err != nil {
			return "", err
		}
		s = u
	}
	return sp.justify(s), nil
}

// cutUTF16 is Java's s.substring(0, n) written back as UTF-8: a
// character cut in two becomes '?', as String.getBytes writes it.
func cutUTF16(s string, n int) string {
	units := 0
	for i, r := range s {
		w := 1
		if r > 0xFFFF {
			w = 2
		}
		if units+w > n {
			if units < n {
				return s[:i] + "?"
			}
			return s[:i]
		}
		units += w
	}
	return s
}

// javaUpper is Java's String.toUpperCase(Locale.US) where this engine
// knows it: ß becomes SS; a character whose upper case Java writes as
// several, or whose case Unicode changed after version 13 (Java 17's), is
// refused.
func javaUpper(s string) (string, error) {
	var sb strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			if r >= 'a' && r <= 'z' {
				r -= 'a' - 'A'
			}
			sb.WriteRune(r)
			continue
		case r == 'ß':
			sb.WriteString("SS")
			continue
		case r == 0x149 || r == 0x1F0 || r == 0x390 || r == 0x3B0 || r == 0x587 || r >= 0x1E96 && r <= 0x1E9A ||
			r >= 0x1F50 && r <= 0x1FFF || r >= 0xFB00 && r <= 0xFB17 || r == 0x2C2F || r == 0x2C5F ||
			r >= 0xA7C0 && r <= 0xA7DF || r >= 0x10570 && r <= 0x105BF:
			return "", fmt.Errorf("the upper case of %q is written by Java's String.toUpperCase in a way this engine does not reproduce; not supported", r)
		}
		sb.WriteRune(unicode.ToUpper(r))
	}
	return sb.String(), nil
}

// justify pads s with spaces to the width, on the left unless '-'; the
// width counts UTF-16 units, as Java's.
func (sp *fmtSpec) justify(s string) string {
	pad := sp.width - utf16Len(s)
	if sp.width < 0 || pad <= 0 {
		return s
	}
	if sp.minus {
		return s + strings.Repeat(" ", pad)
	}
	return strings.Repeat(" ", pad) + s
}

// javaHashCode is the hashCode of the Java object Spark hands Formatter.
func javaHashCode(v any) uint32 {
	switch x := v.(type) {
	case int8:
		return uint32(int32(x))
	case int16:
		return uint32(int32(x))
	case int32:
		return uint32(x)
	case arrow.Date32:
		return uint32(int32(x))
	case int64:
		return uint32(uint64(x) ^ uint64(x)>>32)
	case arrow.Timestamp:
		return uint32(uint64(x) ^ uint64(x)>>32)
	case float32:
		if x != x {
			return 0x7fc00000
		}
		return math.Float32bits(x)
	case float64:
		b := math.Float64bits(x)
		if x != x {
			b = 0x7ff8000000000000
		}
		return uint32(b ^ b>>32)
	case bool:
		if x {
			return 1231
		}
		return 1237
	case string:
		return murmur3Value([]byte(x), false, 42)
	}
	return 0
}

// javaToString is the toString of the Java object Spark hands Formatter.
func javaToString(v any, t schema.Type) (string, error) {
	switch x := v.(type) {
	case bool:
		return strconv.FormatBool(x), nil
	case string:
		return x, nil
	case float32:
		if jvmDependentDigits(float64(x), 32) {
			return "", fmt.Errorf("the digits Java 17's Float.toString prints for %v depend on the JVM version (subnormal, or from 2^24 to 2^66); not supported", x)
		}
		return formatDouble(float64(x), 32), nil
	case float64:
		if err := checkJavaDigits(x); err != nil {
			return "", err
		}
		return formatDouble(x, 64), nil
	case decimal128.Num:
		return javaBigDecimalString(x, t.(*schema.Decimal).Scale), nil
	}
	return strconv.FormatInt(toInt64(v), 10), nil
}

// checkJavaDigits refuses a double whose Double.toString digits Java 17
// does not choose as the shortest (jvmDependentDigits).
func checkJavaDigits(x float64) error {
	if jvmDependentDigits(x, 64) {
		return fmt.Errorf("the digits Java 17's Double.toString prints for %v depend on the JVM version (subnormal, or from 2^52 to 2^85); not supported", x)
	}
	return nil
}

// printInteger is Java's print of a Byte, Short, Integer or Long with
// %d, %o or %x (a negative in two's complement of its own width).
func (sp *fmtSpec) printInteger(arg any) string {
	v := toInt64(arg)
	var sb strings.Builder
	if sp.conv == 'd' {
		neg := v < 0
		mag := strconv.FormatUint(uint64(v), 10)
		if neg {
			mag = strconv.FormatUint(uint64(-v), 10)
		}
		sp.leadingSign(&sb, neg)
		sp.magnitude(&sb, mag, sp.adjustWidth(neg))
		sp.trailingSign(&sb, neg)
		return sp.justify(sb.String())
	}
	u := uint64(v)
	if v < 0 {
		switch arg.(type) {
		case int8:
			u = uint64(v + 1<<8)
		case int16:
			u = uint64(v + 1<<16)
		case int32, arrow.Date32:
			u = uint64(v + 1<<32)
		}
	}
	base, prefix := 8, "0"
	if sp.conv == 'x' {
		base, prefix = 16, "0x"
		if sp.upper {
			prefix = "0X"
		}
	}
	s := strconv.FormatUint(u, base)
	if sp.upper {
		s = strings.ToUpper(s)
	}
	n := len(s)
	if sp.alt {
		sb.WriteString(prefix)
		n += len(prefix)
	}
	if sp.zero && sp.width > n {
		sb.WriteString(strings.Repeat("0", sp.width-n))
	}
	sb.WriteString(s)
	return sp.justify(sb.String())
}

func (sp *fmtSpec) leadingSign(sb *strings.Builder, neg bool) {
	switch {
	case neg && sp.paren:
		sb.WriteByte('(')
	case neg:
		sb.WriteByte('-')
	case sp.plus:
		sb.WriteByte('+')
	case sp.space:
		sb.WriteByte(' ')
	}
}

func (sp *fmtSpec) trailingSign(sb *strings.Builder, neg bool) {
	if neg && sp.paren {
		sb.WriteByte(')')
	}
}

// adjustWidth is the width less the closing parenthesis of a negative.
func (sp *fmtSpec) adjustWidth(neg bool) int {
	if sp.width == -1 {
		return -1
	}
	return sp.adjustWidthOf(sp.width, neg)
}

// magnitude is Java's localizedMagnitude: the digits of mag (and its
// decimal point) with ',' between groups of three of the integer part
// for the ',' flag, then zeros inserted after the sign up to width with
// '0'.
func (sp *fmtSpec) magnitude(sb *strings.Builder, mag string, width int) {
	begin := sb.Len()
	dot := strings.IndexByte(mag, '.')
	if dot < 0 {
		dot = len(mag)
	}
	var out strings.Builder
	for j := 0; j < len(mag); j++ {
		if j == dot {
			out.WriteString(mag[j:])
			break
		}
		out.WriteByte(mag[j])
		if sp.group && j != dot-1 && (dot-j)%3 == 1 {
			out.WriteByte(',')
		}
	}
	body := out.String()
	if width != -1 && sp.zero {
		if pad := width - begin - len(body); pad > 0 {
			body = strings.Repeat("0", pad) + body
		}
	}
	sb.WriteString(body)
}

// printFloat is Java's print of a double with %e, %f or %g.
func (sp *fmtSpec) printFloat(x float64) (string, error) {
	var sb strings.Builder
	if math.IsNaN(x) {
		if sp.upper {
			return sp.justify("NAN"), nil
		}
		return sp.justify("NaN"), nil
	}
	neg := x < 0 || x == 0 && math.Signbit(x)
	a := math.Abs(x)
	sp.leadingSign(&sb, neg)
	if math.IsInf(a, 0) {
		if sp.upper {
			sb.WriteString("INFINITY")
		} else {
			sb.WriteString("Infinity")
		}
		sp.trailingSign(&sb, neg)
		return sp.justify(sb.String()), nil
	}
	if sp.conv == 'a' {
		sp.printHex(&sb, a, neg)
		return sp.justify(sb.String()), nil
	}
	if err := checkJavaDigits(a); err != nil {
		return "", err
	}
	// Java's digits: 0.d1d2... times 10^decExp.
	digits, decExp := "0", 1
	if a != 0 {
		e := strconv.FormatFloat(a, 'e', -1, 64)
		mant, exp, _ := strings.Cut(e, "e")
		digits = strings.Replace(mant, ".", "", 1)
		ex, _ := strconv.Atoi(exp)
		decExp = ex + 1
	}
	switch sp.conv {
	case 'f':
		prec := sp.prec
		if prec == -1 {
			prec = 6
		}
		d, ex := roundDigitsHalfUp(digits, decExp, decExp+prec)
		mant := plainDigits(d, ex, prec)
		if sp.alt && prec == 0 {
			mant += "."
		}
		sp.magnitude(&sb, mant, sp.adjustWidth(neg))
	case 'e':
		prec := sp.prec
		if prec == -1 {
			prec = 6
		}
		d, ex := roundDigitsHalfUp(digits, decExp, prec+1)
		mant, exp := sciDigits(d, ex, prec, a == 0)
		if sp.alt && prec == 0 {
			mant += "."
		}
		w := sp.width
		if w != -1 {
			w = sp.adjustWidthOf(w-len(exp)-1, neg)
		}
		sp.magnitude(&sb, mant, w)
		sb.WriteString(sp.expLetter() + exp)
	case 'g':
		prec := sp.prec
		switch prec {
		case -1:
			prec = 6
		case 0:
			prec = 1
		}
		if a == 0 {
			sp.magnitude(&sb, plainDigits("0", 1, prec-1), sp.adjustWidth(neg))
			break
		}
		d, ex := roundDigitsHalfUp(digits, decExp, prec)
		if r := ex - 1; r >= -4 && r < prec {
			sp.magnitude(&sb, plainDigits(d, ex, prec-ex), sp.adjustWidth(neg))
			break
		}
		mant, exp := sciDigits(d, ex, prec-1, false)
		w := sp.width
		if w != -1 {
			w = sp.adjustWidthOf(w-len(exp)-1, neg)
		}
		sp.magnitude(&sb, mant, w)
		sb.WriteString(sp.expLetter() + exp)
	}
	sp.trailingSign(&sb, neg)
	return sp.justify(sb.String()), nil
}

// expLetter is the letter before the exponent.
func (sp *fmtSpec) expLetter() string {
	if sp.upper {
		return "E"
	}
	return "e"
}

// adjustWidthOf is width w less the closing parenthesis of a negative.
func (sp *fmtSpec) adjustWidthOf(w int, neg bool) int {
	if neg && sp.paren {
		return w - 1
	}
	return w
}

// roundDigitsHalfUp is FormattedFloatingDecimal.applyPrecision: digits
// (0.d1d2... times 10^decExp) rounded half up to keep digits, and the
// exponent, which grows by one when the rounding carries out.
func roundDigitsHalfUp(digits string, decExp, keep int) (string, int) {
	if keep >= len(digits) || keep < 0 {
		return digits, decExp
	}
	if keep == 0 {
		if digits[0] >= '5' {
			return "1", decExp + 1
		}
		return "0", decExp
	}
	if digits[keep] < '5' {
		return digits[:keep], decExp
	}
	b := []byte(digits[:keep])
	i := keep - 1
	for i >= 0 && b[i] == '9' {
		i--
	}
	if i < 0 {
		return "1", decExp + 1
	}
	b[i]++
	return string(b[:i+1]), decExp
}

// plainDigits writes 0.digits times 10^decExp with prec decimals (cut,
// zeros added), no decimal point for none.
func plainDigits(digits string, decExp, prec int) string {
	var intPart, frac string
	switch {
	case decExp <= 0:
		intPart = "0"
		frac = strings.Repeat("0", -decExp) + digits
	case decExp >= len(digits):
		intPart = digits + strings.Repeat("0", decExp-len(digits))
	default:
		intPart, frac = digits[:decExp], digits[decExp:]
	}
	if len(frac) > prec {
		frac = frac[:prec]
	}
	frac += strings.Repeat("0", prec-len(frac))
	if prec == 0 {
		return intPart
	}
	return intPart + "." + frac
}

// sciDigits is the mantissa d.ddd (prec decimals) and the signed exponent
// of at least two digits of 0.digits times 10^decExp.
func sciDigits(digits string, decExp, prec int, zero bool) (string, string) {
	mant := digits[:1]
	if prec > 0 {
		frac := digits[1:]
		if len(frac) > prec {
			frac = frac[:prec]
		}
		mant += "." + frac + strings.Repeat("0", prec-len(frac))
	}
	e := decExp - 1
	if zero {
		e = 0
	}
	sign := "+"
	if e < 0 {
		sign, e = "-", -e
	}
	es := strconv.Itoa(e)
	if len(es) < 2 {
		es = "0" + es
	}
	return mant, sign + es
}

// printHex is Java's %a of a (not negative, finite) after its sign:
// Double.toHexString's significand, rounded half to even to the
// precision's hexadecimal digits (a subnormal normalized first).
func (sp *fmtSpec) printHex(sb *strings.Builder, a float64, neg bool) {
	prec := sp.prec
	switch prec {
	case -1:
		prec = 0
	case 0:
		prec = 1
	}
	s := hexDouble(a, prec)
	if sp.upper {
		sb.WriteString("0X")
	} else {
		sb.WriteString("0x")
	}
	if sp.zero {
		lead := 2
		if sp.space || sp.plus || neg {
			lead = 3
		}
		if n := sp.width - len(s) - lead; n > 0 {
			sb.WriteString(strings.Repeat("0", n))
		}
	}
	mant, exp, _ := strings.Cut(s, "p")
	if sp.upper {
		mant = strings.ToUpper(mant)
	}
	if prec != 0 {
		_, frac, _ := strings.Cut(mant, ".")
		if len(frac) < prec {
			mant += strings.Repeat("0", prec-len(frac))
		}
	}
	sb.WriteString(mant)
	if sp.upper {
		sb.WriteByte('P')
	} else {
		sb.WriteByte('p')
	}
	sb.WriteString(exp)
}

// hexDouble is Java's Formatter.hexDouble: Double.toHexString without
// its 0x, the significand rounded half to even to prec hexadecimal digits
// when prec is 1 to 12.
func hexDouble(d float64, prec int) string {
	if d == 0 || prec == 0 || prec >= 13 {
		return javaHexString(d)
	}
	subnormal := math.Float64bits(d)>>52 == 0
	if subnormal {
		d *= 0x1p54
	}
	shift := 52 - prec*4
	bits := math.Float64bits(d)
	signif := bits >> shift
	rest := bits & (1<<shift - 1)
	half := uint64(1) << (shift - 1)
	if rest > half || rest == half && signif&1 == 1 {
		signif++
	}
	r := math.Float64frombits(signif << shift)
	if math.IsInf(r, 0) {
		return "1.0p1024"
	}
	s := javaHexString(r)
	if !subnormal {
		return s
	}
	mant, exp, _ := strings.Cut(s, "p")
	e, _ := strconv.Atoi(exp)
	return mant + "p" + strconv.Itoa(e-54)
}

// javaHexString is Double.toHexString of d (not negative, finite)
// without its 0x: 1.hhhp±e, 0.hhhp-1022 for a subnormal, trailing zeros of
// the significand cut to one.
func javaHexString(d float64) string {
	if d == 0 {
		return "0.0p0"
	}
	bits := math.Float64bits(d)
	frac := strings.TrimRight(fmt.Sprintf("%013x", bits&(1<<52-1)), "0")
	if frac == "" {
		frac = "0"
	}
	if bits>>52 == 0 {
		return "0." + frac + "p-1022"
	}
	return "1." + frac + "p" + strconv.Itoa(int(bits>>52)-1023)
}
