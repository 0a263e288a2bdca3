package expr

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// get_json_object(json, path) as Spark's GetJsonObject computes it for a
// constant path of Spark's JsonPath grammar: $, .name, ['name'], [n],
// [*] and the child wildcards .* and ['*'] (which match nothing). The
// first value of the text is read as Jackson reads it (jackson.go), the
// whole of it: a text Jackson cannot read gives NULL. The path is
// followed as GetJsonObjectEvaluator follows Jackson's tokens: an
// object's fields in order, a repeated name again when the first gave
// nothing, a null field as no match; a [*] gives its matches as an
// array, or the match itself when there is one, and [*][*] flattens the
// arrays under it into one, which is Hive's rule. A string result is its
// text, any other is written as Jackson writes it (compact, integers
// normalized, a double as Java's Double.toString). A double of more than
// 15 digits or beyond the double range is refused on the row: Java's
// digits for those depend on the JVM version.

// pathInst is one instruction of a parsed path: Spark's Subscript,
// Wildcard, Key, Index(n) and Named(name).
type pathInst struct {
	op    byte // S subscript, W wildcard, K key, I index, N named
	index int64
	name  string
}

// parseJSONPath reads a path as Spark's JsonPathParser (Scala's
// RegexParsers) does: its one-character tokens ($ . [ ] *) skip no white
// space, its other tokens (.* ['*'] [' '] and the regular expressions
// of names and indexes) skip the white space before them, and white
// space may end the path. ok is false when the parser would not read
// it; overflow is set when an index is beyond a long, on which Spark's
// parser fails.
func parseJSONPath(p string) (insts []pathInst, ok, overflow bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false, false
	}
	i := 1
	ws := func(j int) int {
		for j < len(p) && isJavaSpace(p[j]) {
			j++
		}
		return j
	}
	for {
		if j := ws(i); strings.HasPrefix(p[j:], ".*") || strings.HasPrefix(p[j:], "['*']") {
			insts = append(insts, pathInst{op: 'W'})
			i = j + 2
			if p[j] == '[' {
				i = j + 5
			}
			continue
		}
		if i < len(p) && p[i] == '.' {
			j := ws(i + 1)
			end := j
			for end < len(p) && p[end] != '.' && p[end] != '[' {
				end++
			}
			if end > j {
				insts = append(insts, pathInst{op: 'K'}, pathInst{op: 'N', name: p[j:end]})
				i = end
				continue
			}
		}
		if j := ws(i); strings.HasPrefix(p[j:], "['") {
			k := ws(j + 2)
			end := k
			for end < len(p) && p[end] != '\'' {
				end++
			}
			if end > k {
				if e := ws(end); strings.HasPrefix(p[e:], "']") {
					insts = append(insts, pathInst{op: 'K'}, pathInst{op: 'N', name: p[k:end]})
					i = e + 2
					continue
				}
			}
		}
		if i < len(p) && p[i] == '[' {
			if i+2 < len(p) && p[i+1] == '*' && p[i+2] == ']' {
				insts = append(insts, pathInst{op: 'S'}, pathInst{op: 'W'})
				i += 3
				continue
			}
			j := ws(i + 1)
			end := j
			for end < len(p) && p[end] >= '0' && p[end] <= '9' {
				end++
			}
			if end > j && end < len(p) && p[end] == ']' {
				n, err := strconv.ParseInt(p[j:end], 10, 64)
				if err != nil {
					overflow = true
				}
				insts = append(insts, pathInst{op: 'S'}, pathInst{op: 'I', index: n})
				i = end + 1
				continue
			}
		}
		break
	}
	if ws(i) != len(p) {
		return nil, false, false
	}
	return insts, true, overflow
}

// isJavaSpace is Java's regular expression class \s.
func isJavaSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\x0B' || c == '\f' || c == '\r'
}

// bindGetJSONObject binds get_json_object.
func (b *binder) bindGetJSONObject(e *Call) (node, error) {
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	p, err := b.constString(e, e.Args[1], "path")
	if err != nil {
		return nil, err
	}
	if p == nil {
		return &lit{v: nil, t: tString, src: e}, nil
	}
	if _, ok, _ := parseJSONPath(*p); !ok {
		return &lit{v: nil, t: tString, src: e}, nil // Spark's NULL for a path it cannot read
	}
	return b.fold(&callN{fn: e.Name, args: []node{s, &lit{v: *p, t: tString, src: e.Args[1]}}, t: tString}, e)
}

// jsonValue is a parsed JSON value, fields in their order.
type jsonValue struct {
	kind   byte // o object, a array, s string, n number, b boolean, z null
	text   string
	fields []jsonField
	elems  []*jsonValue
}

type jsonField struct {
	name string
	v    *jsonValue
}

// getJSONObjectFunction evaluates get_json_object.
func (ev *evaluator) getJSONObjectFunction(_ *callN, args []value) (value, error) {
	return ev.mapRows(args, tString, true, func(v []any) (any, error) { return getJSONObject(v[0].(string), v[1].(string)) })
}

// getJSONObject is get_json_object of one text.
func getJSONObject(text, path string) (any, error) {
	insts, _, overflow := parseJSONPath(path)
	if overflow {
		return nil, errs.New(errs.InvalidArgument, "", "get_json_object(%q, %q): an index of the path is beyond a long, on which Spark fails (NumberFormatException)", text, path)
	}
	root, lone, err := readJackson(text)
	if err != nil {
		return nil, nil
	}
	g := &jacksonGen{escapeSupplementary: true}
	matched, err := evalJSONPath(root, g, styleRaw, insts)
	switch {
	case err != nil:
		return nil, errs.New(errs.InvalidArgument, "", "get_json_object(%q, %q): %v", text, path, err)
	case !matched:
		return nil, nil
	case lone:
		return nil, errs.New(errs.InvalidArgument, "", "get_json_object(%q, %q): an escaped surrogate that is no pair, which Java keeps as it is; not supported", text, path)
	}
	return g.sb.String(), nil
}

// The write styles of GetJsonObjectEvaluator: a string as its text, every
// value as JSON, and arrays flattened into their parent.
const (
	styleRaw byte = iota
	styleQuoted
	styleFlatten
)

// evalJSONPath is GetJsonObjectEvaluator.evaluatePath on the value v:
// whether it wrote a match to g.
func evalJSONPath(v *jsonValue, g *jacksonGen, style byte, path []pathInst) (bool, error) {
	at := func(k int, op byte) bool { return len(path) > k && path[k].op == op }
	switch {
	case len(path) == 0 && v.kind == 's' && style == styleRaw:
		g.sb.WriteString(v.text) // writeRaw
		return true, nil
	case len(path) == 0 && v.kind == 'a' && style == styleFlatten:
		return evalJSONPaths(v.elems, g, style, nil)
	case len(path) == 0:
		return true, g.copy(v)
	case v.kind == 'o' && at(0, 'K'):
		// Key :: Named(name): each field name, then (when it is no
		// match) its value, is tried with Named(name) :: rest, which
		// only a field name can match.
		for _, f := range v.fields {
			if f.name != path[1].name || path[1].op != 'N' || f.v.kind == 'z' {
				continue
			}
			d, err := evalJSONPath(f.v, g, style, path[2:])
			if err != nil || d {
				return d, err
			}
		}
		return false, nil
	case v.kind == 'a' && at(0, 'S') && at(1, 'W') && at(2, 'S') && at(3, 'W'):
		g.startArray()
		dirty, err := evalJSONPaths(v.elems, g, styleFlatten, path[4:])
		g.endArray()
		return dirty, err
	case v.kind == 'a' && at(0, 'S') && at(1, 'W') && style != styleQuoted:
		next := styleQuoted
		if style == styleFlatten {
			next = styleFlatten
		}
		// the matches go to a buffer (Jackson's writer-based generator,
		// which writes characters beyond U+FFFF as they are), written as
		// an array when there are several, as the match when one
		buf := &jacksonGen{}
		buf.startArray()
		dirty := 0
		for _, c := range v.elems {
			d, err := evalJSONPath(c, buf, next, path[2:])
			if err != nil {
				return false, err
			}
			if d {
				dirty++
			}
		}
		buf.endArray()
		s := buf.sb.String()
		switch {
		case dirty > 1:
			g.rawValue(s)
		case dirty == 1:
			g.rawValue(s[1 : len(s)-1])
		}
		return dirty > 0, nil
	case v.kind == 'a' && at(0, 'S') && at(1, 'W'):
		g.startArray()
		dirty, err := evalJSONPaths(v.elems, g, styleQuoted, path[2:])
		g.endArray()
		return dirty, err
	case v.kind == 'a' && at(0, 'S') && at(1, 'I'):
		if path[1].index >= int64(len(v.elems)) {
			return false, nil
		}
		if at(2, 'S') && at(3, 'W') {
			style = styleQuoted // one or more results
		}
		return evalJSONPath(v.elems[path[1].index], g, style, path[2:])
	}
	return false, nil
}

// evalJSONPaths is evalJSONPath of each of elems: whether any matched.
func evalJSONPaths(elems []*jsonValue, g *jacksonGen, style byte, path []pathInst) (bool, error) {
	dirty := false
	for _, c := range elems {
		d, err := evalJSONPath(c, g, style, path)
		if err != nil {
			return false, err
		}
		dirty = dirty || d
	}
	return dirty, nil
}

// jacksonGen writes JSON values as Jackson's generator does, a comma
// between the values of an array or object.
type jacksonGen struct {
	sb strings.Builder
	// escapeSupplementary: a character beyond U+FFFF is written as its
	// escaped UTF-16 pair (Jackson's UTF-8 generator), not as it is (its
	// writer-based one).
	escapeSupplementary bool
	open                []int // values written in each open array
	roots               int
}

// next writes the separator before a value.
func (g *jacksonGen) next() {
	if n := len(g.open); n > 0 {
		if g.open[n-1] > 0 {
			g.sb.WriteByte(',')
		}
		g.open[n-1]++
		return
	}
	if g.roots > 0 {
		g.sb.WriteByte(' ')
	}
	g.roots++
}

func (g *jacksonGen) startArray() {
	g.next()
	g.sb.WriteByte('[')
	g.open = append(g.open, 0)
}

func (g *jacksonGen) endArray() {
	g.open = g.open[:len(g.open)-1]
	g.sb.WriteByte(']')
}

// rawValue is writeRawValue: s as a value, as it is.
func (g *jacksonGen) rawValue(s string) {
	g.next()
	g.sb.WriteString(s)
}

// copy is copyCurrentStructure: v as a value.
func (g *jacksonGen) copy(v *jsonValue) error {
	g.next()
	return writeJackson(&g.sb, v, g.escapeSupplementary)
}

// writeJackson writes v compact, as Jackson's generator copies it.
func writeJackson(sb *strings.Builder, v *jsonValue, escapeSupplementary bool) error {
	switch v.kind {
	case 'o':
		sb.WriteByte('{')
		for i, f := range v.fields {
			if i > 0 {
				sb.WriteByte(',')
			}
			jacksonString(sb, f.name, escapeSupplementary)
			sb.WriteByte(':')
			if err := writeJackson(sb, f.v, escapeSupplementary); err != nil {
				return err
			}
		}
		sb.WriteByte('}')
	case 'a':
		sb.WriteByte('[')
		for i, c := range v.elems {
			if i > 0 {
				sb.WriteByte(',')
			}
			if err := writeJackson(sb, c, escapeSupplementary); err != nil {
				return err
			}
		}
		sb.WriteByte(']')
	case 's':
		jacksonString(sb, v.text, escapeSupplementary)
	case 'b':
		sb.WriteString(v.text)
	case 'z':
		sb.WriteString("null")
	case 'n':
		if f, ok := nonNumericValue(v.text); ok { // JSONOptions' NaN and infinities, quoted
			name, _ := schema.NonFiniteName(f)
			sb.WriteString(`"` + name + `"`)
			return nil
		}
		if !strings.ContainsAny(v.text, ".eE") {
			n, _ := new(big.Int).SetString(v.text, 10)
			sb.WriteString(n.String())
			return nil
		}
		f, err := strconv.ParseFloat(v.text, 64)
		if err != nil || math.IsInf(f, 0) {
			return fmt.Errorf("the number %s is beyond a double; not supported", v.text)
		}
		s, ok := javaDoubleString(f)
		if !ok {
			return fmt.Errorf("the number %s is a double %s", v.text, javaDigitsRefusal)
		}
		sb.WriteString(s)
	}
	return nil
}

// jacksonString writes s quoted with Jackson's escapes (a character
// beyond U+FFFF as its escaped UTF-16 pair when escapeSupplementary).
func jacksonString(sb *strings.Builder, s string, escapeSupplementary bool) {
	sb.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			sb.WriteString(`\"`)
		case '\\':
			sb.WriteString(`\\`)
		case '\b':
			sb.WriteString(`\b`)
		case '\t':
			sb.WriteString(`\t`)
		case '\n':
			sb.WriteString(`\n`)
		case '\f':
			sb.WriteString(`\f`)
		case '\r':
			sb.WriteString(`\r`)
		default:
			switch {
			case r < 0x20:
				fmt.Fprintf(sb, `\u%04X`, r)
			case r > 0xFFFF && escapeSupplementary: // as its UTF-16 pair, escaped
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(sb, `\u%04X\u%04X`, hi, lo)
			default:
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}

// javaDigitsRefusal says why javaDoubleString refuses a double.
const javaDigitsRefusal = "whose digits Java writes differently by JVM version (more than 15 digits, subnormal, or between 2^52 and 2^85); not supported"

// javaDoubleString is Java's Double.toString of f, when every JVM version
// prints it alike: its shortest digits 15 or fewer, and not
// jvmDependentDigits.
func javaDoubleString(f float64) (string, bool) {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0", true
		}
		return "0.0", true
	}
	if jvmDependentDigits(f, 64) {
		return "", false
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	if len(digits) > 15 {
		return "", false
	}
	ex, _ := strconv.Atoi(exp)
	if f >= 1e-3 && f < 1e7 {
		var ip, fp string
		if ex >= 0 {
			digits += strings.Repeat("0", max(0, ex+1-len(digits)))
			ip, fp = digits[:ex+1], digits[ex+1:]
		} else {
			ip, fp = "0", strings.Repeat("0", -ex-1)+digits
		}
		if fp == "" {
			fp = "0"
		}
		return sign + ip + "." + fp, true
	}
	fp := digits[1:]
	if fp == "" {
		fp = "0"
	}
	return sign + digits[:1] + "." + fp + "E" + strconv.Itoa(ex), true
}
