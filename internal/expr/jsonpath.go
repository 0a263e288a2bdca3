package expr

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// get_json_object(json, path) as Spark's GetJsonObject computes it for a
// constant path of Spark's JsonPath subset without wildcards: $, .name,
// ['name'] and [n]. The first value of the text is read (what follows
// it is not); an object's fields are tried in order, a repeated name
// again when the first gave nothing; a string result is its text, any
// other is written as Jackson writes it (compact, integers normalized, a
// double as Java's Double.toString). A path Spark cannot read gives NULL,
// as does a text that is no JSON. A [*] wildcard is refused when bound,
// and a double of more than 15 digits or beyond the double range on the
// row: Java's digits for those depend on the JVM version.

// jsonStep is one step of a path: a field name, or an index (key unset).
type jsonStep struct {
	key   string
	isKey bool
	index int64
}

// parseJSONPath reads a path; false when Spark's parser would not.
func parseJSONPath(p string) (steps []jsonStep, ok bool, wildcard bool) {
	if !strings.HasPrefix(p, "$") {
		return nil, false, false
	}
	p = p[1:]
	for p != "" {
		switch {
		case p[0] == '.':
			end := strings.IndexAny(p[1:], ".[")
			if end < 0 {
				end = len(p) - 1
			}
			name := p[1 : 1+end]
			if name == "" {
				return nil, false, false
			}
			if name == "*" {
				return nil, false, true
			}
			steps = append(steps, jsonStep{key: name, isKey: true})
			p = p[1+end:]
		case strings.HasPrefix(p, "['"):
			end := strings.Index(p[2:], "']")
			if end < 0 {
				return nil, false, false
			}
			steps = append(steps, jsonStep{key: p[2 : 2+end], isKey: true})
			p = p[2+end+2:]
		case strings.HasPrefix(p, "[*]"):
			return nil, false, true
		case p[0] == '[':
			end := strings.IndexByte(p, ']')
			if end < 2 {
				return nil, false, false
			}
			n, err := strconv.ParseInt(p[1:end], 10, 64)
			if err != nil || n < 0 || p[1] == '+' {
				return nil, false, false
			}
			steps = append(steps, jsonStep{index: n})
			p = p[end+1:]
		default:
			return nil, false, false
		}
	}
	return steps, true, false
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
	_, ok, wild := parseJSONPath(*p)
	switch {
	case wild:
		return nil, errAt(e.Args[1], "get_json_object: the path %q has a wildcard, which is not supported", *p)
	case !ok:
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

// readJSON reads one value from d.
func readJSON(d *json.Decoder) (*jsonValue, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		v := &jsonValue{kind: 'a'}
		if x == '{' {
			v.kind = 'o'
		}
		for d.More() {
			var name string
			if v.kind == 'o' {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				name = k.(string)
			}
			c, err := readJSON(d)
			if err != nil {
				return nil, err
			}
			if v.kind == 'o' {
				v.fields = append(v.fields, jsonField{name, c})
			} else {
				v.elems = append(v.elems, c)
			}
		}
		if _, err := d.Token(); err != nil {
			return nil, err
		}
		return v, nil
	case string:
		return &jsonValue{kind: 's', text: x}, nil
	case json.Number:
		return &jsonValue{kind: 'n', text: x.String()}, nil
	case bool:
		return &jsonValue{kind: 'b', text: strconv.FormatBool(x)}, nil
	}
	return &jsonValue{kind: 'z'}, nil
}

// getJSONObjectFunction evaluates get_json_object.
func (ev *evaluator) getJSONObjectFunction(_ *callN, args []value) (value, error) {
	return ev.mapRows(args, tString, true, func(v []any) (any, error) { return getJSONObject(v[0].(string), v[1].(string)) })
}

// getJSONObject is get_json_object of one text.
func getJSONObject(text, path string) (any, error) {
	steps, _, _ := parseJSONPath(path)
	d := json.NewDecoder(strings.NewReader(text))
	d.UseNumber()
	root, err := readJSON(d)
	if err != nil {
		return nil, nil
	}
	v := jsonFollow(root, steps)
	if v != nil && loneSurrogate(text) {
		return nil, errs.New(errs.InvalidArgument, "", "get_json_object(%q, %q): an escaped surrogate that is no pair, which Java keeps as it is; not supported", text, path)
	}
	switch {
	case v == nil || v.kind == 'z':
		return nil, nil
	case v.kind == 's':
		return v.text, nil
	}
	var sb strings.Builder
	if err := writeJackson(&sb, v); err != nil {
		return nil, errs.New(errs.InvalidArgument, "", "get_json_object(%q, %q): %v", text, path, err)
	}
	return sb.String(), nil
}

// loneSurrogate reports whether text escapes a UTF-16 surrogate that is
// not the first half of a pair followed by its second (Go reads it as
// U+FFFD, Java keeps it).
func loneSurrogate(text string) bool {
	unit := func(i int) int {
		if i+6 > len(text) || text[i] != '\\' || text[i+1] != 'u' {
			return -1
		}
		v, err := strconv.ParseUint(text[i+2:i+6], 16, 16)
		if err != nil {
			return -1
		}
		return int(v)
	}
	for i := 0; i < len(text); i++ {
		if text[i] == '\\' && i+1 < len(text) && text[i+1] == '\\' {
			i++ // an escaped backslash
			continue
		}
		switch u := unit(i); {
		case u >= 0xD800 && u < 0xDC00:
			if lo := unit(i + 6); lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 11
		case u >= 0xDC00 && u <= 0xDFFF:
			return true
		}
	}
	return false
}

// jsonFollow is the value steps lead to from v, nil when none: a name
// repeated in an object is tried again when the first leads nowhere.
func jsonFollow(v *jsonValue, steps []jsonStep) *jsonValue {
	if len(steps) == 0 {
		return v
	}
	st := steps[0]
	switch {
	case st.isKey && v.kind == 'o':
		for _, f := range v.fields {
			if f.name == st.key {
				if r := jsonFollow(f.v, steps[1:]); r != nil {
					return r
				}
			}
		}
	case !st.isKey && v.kind == 'a' && st.index < int64(len(v.elems)):
		return jsonFollow(v.elems[st.index], steps[1:])
	}
	return nil
}

// writeJackson writes v compact, as Jackson's generator copies it.
func writeJackson(sb *strings.Builder, v *jsonValue) error {
	switch v.kind {
	case 'o':
		sb.WriteByte('{')
		for i, f := range v.fields {
			if i > 0 {
				sb.WriteByte(',')
			}
			jacksonString(sb, f.name)
			sb.WriteByte(':')
			if err := writeJackson(sb, f.v); err != nil {
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
			if err := writeJackson(sb, c); err != nil {
				return err
			}
		}
		sb.WriteByte(']')
	case 's':
		jacksonString(sb, v.text)
	case 'b':
		sb.WriteString(v.text)
	case 'z':
		sb.WriteString("null")
	case 'n':
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
			return fmt.Errorf("the number %s has more than 15 digits, which Java writes differently by JVM version; not supported", v.text)
		}
		sb.WriteString(s)
	}
	return nil
}

// jacksonString writes s quoted with Jackson's escapes (a character
// beyond U+FFFF as its escaped UTF-16 pair).
func jacksonString(sb *strings.Builder, s string) {
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
			case r > 0xFFFF: // as its UTF-16 pair, escaped
				hi, lo := utf16.EncodeRune(r)
				fmt.Fprintf(sb, `\u%04X\u%04X`, hi, lo)
			default:
				sb.WriteRune(r)
			}
		}
	}
	sb.WriteByte('"')
}

// javaDoubleString is Java's Double.toString of f, when its shortest
// digits are 15 or fewer (which every JVM version prints alike).
func javaDoubleString(f float64) (string, bool) {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0", true
		}
		return "0.0", true
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
