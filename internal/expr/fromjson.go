package expr

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"unicode"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// from_json(text, 'schema DDL') as Spark's JsonToStructs computes it with
// the default options (PERMISSIVE, partial results): the schema a
// constant DDL text of a struct ('a INT, b ARRAY<STRING>' or
// 'STRUCT<...>', schema_of_json's result included) of booleans,
// integers, floats, decimals, strings, structs, arrays and maps with
// string keys. The text is read with JSONOptions' Jackson parser. NULL or
// an empty text gives NULL; a text that is no object, or whose first
// token Jackson refuses, a struct of NULL fields. Fields match names
// exactly, the last of a repeated name winning unless it fails. A value
// that does not fit its field's type (a string for a number, a number
// out of range, a decimal past its precision after HALF_UP rounding)
// makes the field NULL, and the whole array or map it is in; a string
// field takes any other value's JSON text. A byte takes -128 to 255 and
// wraps (Jackson's getByteValue); a decimal also reads a string as
// BigDecimal does, commas removed; a float or double the texts NaN,
// Infinity, +INF, +Infinity, -INF and -Infinity. An object text that is
// malformed past its first token is refused on the row: Spark keeps the
// fields before the error or not depending on where its parser fails.
// Options, and dates, timestamps and binary in the schema, are refused
// when bound.

// fromJSONNames are the names fromjson.go binds.
var fromJSONNames = map[string]bool{"from_json": true}

// bindFromJSON binds from_json.
func (b *binder) bindFromJSON(e *Call) (node, error) {
	if len(e.Args) > 2 {
		return nil, errAt(e.Args[2], "from_json: options are not supported; leave the third argument out for Spark's defaults")
	}
	s, err := b.stringOperand(e.Args[0])
	if err != nil {
		return nil, err
	}
	ddl, err := b.constString(e, e.Args[1], "schema")
	if err != nil {
		return nil, err
	}
	if ddl == nil {
		return nil, errAt(e.Args[1], "from_json: the schema must not be NULL")
	}
	st, err := parseSchemaDDL(*ddl)
	if err != nil {
		return nil, errAt(e.Args[1], "from_json: the schema %q: %v", *ddl, err)
	}
	if err := fromJSONCheck(st); err != nil {
		return nil, errAt(e.Args[1], "from_json: the schema %q: %v", *ddl, err)
	}
	return &callN{fn: "from_json", args: []node{s}, t: st}, nil
}

// fromJSONCheck refuses the types from_json does not read here.
func fromJSONCheck(t schema.Type) error {
	switch t := t.(type) {
	case *schema.Struct:
		for _, f := range t.Fields {
			if err := fromJSONCheck(f.Type); err != nil {
				return err
			}
		}
	case *schema.Array:
		return fromJSONCheck(t.Element)
	case *schema.Map:
		if !isString(t.Key) {
			return fmt.Errorf("a map key of type %s is not supported (JSON keys are strings)", typeName(t.Key))
		}
		return fromJSONCheck(t.Value)
	case *schema.Decimal:
	default:
		if !isString(t) && !isBool(t) && !isIntegral(t) && !isFloating(t) {
			return fmt.Errorf("a field of type %s, which Spark reads with its datetime or Base64 rules, is not supported", typeName(t))
		}
	}
	return nil
}

// errNoFit is a value that does not fit its type: its field is NULL.
var errNoFit = errors.New("no fit")

// fromJSONFunction evaluates from_json.
func (ev *evaluator) fromJSONFunction(n *callN, args []value) (value, error) {
	st := n.t.(*schema.Struct)
	b, err := newBuilder(ev.mem, st)
	if err != nil {
		return value{}, err
	}
	defer b.Release()
	get := stringsOf(args[0])
	valid := validity(args[0])
	for i := 0; i < ev.n; i++ {
		if !valid(i) {
			b.AppendNull()
			continue
		}
		text := get(i)
		r := &jacksonReader{s: text, dataSource: true}
		if !r.skipWS() && strings.TrimLeft(text, " \t\r\n") == "" {
			b.AppendNull() // no record
			continue
		}
		v, lone, err := readJacksonAs(r)
		switch {
		case err == nil && lone:
			return value{}, errs.New(errs.InvalidArgument, "", "from_json(%q): an escaped surrogate that is no pair, which Java keeps as it is; not supported", text)
		case err != nil && strings.HasPrefix(strings.TrimLeft(text, " \t\r\n"), "{"):
			return value{}, errs.New(errs.InvalidArgument, "", "from_json(%q): a malformed object, whose partial result Spark's parser gives by where it fails; not supported", text)
		case err != nil || v.kind != 'o':
			appendNested(b, make([]any, len(st.Fields)))
			continue
		}
		row, err := jsonToType(v, st)
		if err != nil && !errors.Is(err, errNoFit) {
			return value{}, errs.New(errs.InvalidArgument, "", "from_json(%q): %v", text, err)
		}
		appendNested(b, row)
	}
	return value{arr: b.NewArray()}, nil
}

// jsonToType converts v to type t; errNoFit when it does not fit. A
// struct takes what fits (its other fields NULL) and never fails.
func jsonToType(v *jsonValue, t schema.Type) (any, error) {
	if v.kind == 'z' {
		return nil, nil
	}
	switch t := t.(type) {
	case *schema.Struct:
		if v.kind != 'o' {
			return nil, errNoFit
		}
		row := make([]any, len(t.Fields))
		for _, f := range v.fields {
			for k, sf := range t.Fields {
				if sf.Name != f.name {
					continue
				}
				x, err := jsonToType(f.v, sf.Type)
				switch {
				case err == nil:
					row[k] = x
				case !errors.Is(err, errNoFit):
					return nil, err
				}
			}
		}
		return row, nil
	case *schema.Array:
		if v.kind != 'a' {
			return nil, errNoFit
		}
		out := make([]any, len(v.elems))
		for k, c := range v.elems {
			x, err := jsonToType(c, t.Element)
			if err != nil {
				return nil, err
			}
			out[k] = x
		}
		return out, nil
	case *schema.Map:
		if v.kind != 'o' {
			return nil, errNoFit
		}
		m := &strMap{}
		seen := map[string]bool{}
		for _, f := range v.fields {
			if seen[f.name] {
				return nil, fmt.Errorf("the map key %q is given twice, which Spark's spark.sql.mapKeyDedupPolicy decides; not supported", f.name)
			}
			seen[f.name] = true
			x, err := jsonToType(f.v, t.Value)
			if err != nil {
				return nil, err
			}
			m.keys = append(m.keys, f.name)
			m.vals = append(m.vals, x)
		}
		return m, nil
	case *schema.Decimal:
		return jsonDecimal(v, t)
	}
	switch {
	case isString(t):
		if v.kind == 's' {
			return v.text, nil
		}
		var sb strings.Builder
		if err := writeJackson(&sb, v, true); err != nil {
			return nil, err
		}
		return sb.String(), nil
	case isBool(t):
		if v.kind != 'b' {
			return nil, errNoFit
		}
		return v.text == "true", nil
	case isFloating(t):
		return jsonFloat(v, isType(t, schema.Float))
	}
	return jsonInteger(v, t)
}

// jsonInteger is an integer of type t from a JSON integer in its range
// (a byte from -128 to 255, wrapped).
func jsonInteger(v *jsonValue, t schema.Type) (any, error) {
	if v.kind != 'n' || strings.ContainsAny(v.text, ".eENI") {
		return nil, errNoFit
	}
	n, err := strconv.ParseInt(v.text, 10, 64)
	if err != nil {
		return nil, errNoFit
	}
	switch primName(t) {
	case schema.Byte:
		if n < math.MinInt8 || n > math.MaxUint8 {
			return nil, errNoFit
		}
		return int8(n), nil
	case schema.Short:
		if n < math.MinInt16 || n > math.MaxInt16 {
			return nil, errNoFit
		}
		return int16(n), nil
	case schema.Integer:
		if n < math.MinInt32 || n > math.MaxInt32 {
			return nil, errNoFit
		}
		return int32(n), nil
	}
	return n, nil
}

// jsonFloat is a float or double from a JSON number or one of the texts
// NaN and the infinities.
func jsonFloat(v *jsonValue, single bool) (any, error) {
	var f float64
	if nf, ok := nonNumericValue(v.text); ok && v.kind == 'n' {
		f = nf
	} else {
		switch {
		case v.kind == 'n':
			bits := 64
			if single {
				bits = 32
			}
			x, err := strconv.ParseFloat(v.text, bits)
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return nil, errNoFit
			}
			f = x
		case v.kind == 's':
			nf, ok := nonNumericValue(v.text)
			if !ok {
				return nil, errNoFit
			}
			f = nf
		default:
			return nil, errNoFit
		}
	}
	if single {
		return float32(f), nil
	}
	return f, nil
}

// jsonDecimal is a decimal of type t from a JSON number, or from a string
// read as java.math.BigDecimal reads it with commas removed, rounded
// HALF_UP to the scale; past the precision it does not fit.
func jsonDecimal(v *jsonValue, t *schema.Decimal) (any, error) {
	var text string
	switch {
	case v.kind == 'n':
		text = v.text
	case v.kind == 's':
		text = strings.ReplaceAll(v.text, ",", "")
	default:
		return nil, errNoFit
	}
	r, ok := parseBigDecimal(text)
	if !ok {
		return nil, errNoFit
	}
	// HALF_UP: scale, add a half away from zero, truncate
	scaled := new(big.Rat).Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(t.Scale)), nil)))
	num, den := scaled.Num(), scaled.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2)).Cmp(den) >= 0 {
		if num.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if len(new(big.Int).Abs(q).String()) > t.Precision {
		return nil, errNoFit
	}
	return decimal128.FromBigInt(q), nil
}

// parseBigDecimal reads s as new java.math.BigDecimal(s) does: an
// optional sign, digits with an optional point (digits on one side at
// least), an optional exponent.
func parseBigDecimal(s string) (*big.Rat, bool) {
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return nil, false
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(body), "e")
	if hasExp {
		e := strings.TrimLeft(exp, "+-")
		if len(exp)-len(e) > 1 || e == "" || strings.IndexFunc(e, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
			return nil, false
		}
	}
	ip, fp, _ := strings.Cut(mant, ".")
	if ip+fp == "" || strings.IndexFunc(ip+fp, func(r rune) bool { return r > unicode.MaxASCII || r < '0' || r > '9' }) >= 0 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(s)
	return r, ok
}

// nonNumericValue is the value of the texts Jackson and Spark read as
// NaN or an infinity.
func nonNumericValue(s string) (float64, bool) {
	switch s {
	case "NaN":
		return math.NaN(), true
	case "+INF", "+Infinity", "Infinity":
		return math.Inf(1), true
	case "-INF", "-Infinity":
		return math.Inf(-1), true
	}
	return 0, false
}

// parseSchemaDDL reads a struct schema as Spark's DataType.fromDDL does:
// fields 'name TYPE [NOT NULL] [COMMENT '...'], ...' or STRUCT<...>, the
// types atomic or ARRAY<T>, MAP<K, V> and STRUCT<name[:] T, ...>, names
// plain or in backquotes.
func parseSchemaDDL(s string) (*schema.Struct, error) {
	d := &ddlReader{s: s}
	var st *schema.Struct
	var err error
	if d.peekWord("STRUCT") {
		d.word()
		t, terr := d.structBody()
		st, err = t, terr
	} else {
		st, err = d.fields("")
	}
	if err != nil {
		return nil, err
	}
	if d.skip(); d.i < len(d.s) {
		return nil, fmt.Errorf("unexpected %q", d.s[d.i:])
	}
	return st, nil
}

type ddlReader struct {
	s string
	i int
}

func (d *ddlReader) skip() {
	for d.i < len(d.s) && unicode.IsSpace(rune(d.s[d.i])) {
		d.i++
	}
}

func (d *ddlReader) sym(c byte) bool {
	d.skip()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// word reads a name: letters, digits and _, or a backquoted one.
func (d *ddlReader) word() string {
	d.skip()
	if d.i < len(d.s) && d.s[d.i] == '`' {
		var sb strings.Builder
		for j := d.i + 1; j < len(d.s); j++ {
			if d.s[j] == '`' {
				if j+1 < len(d.s) && d.s[j+1] == '`' {
					sb.WriteByte('`')
					j++
					continue
				}
				d.i = j + 1
				return sb.String()
			}
			sb.WriteByte(d.s[j])
		}
		return ""
	}
	j := d.i
	for j < len(d.s) && (d.s[j] == '_' || d.s[j] >= '0' && d.s[j] <= '9' || unicode.IsLetter(rune(d.s[j]))) {
		j++
	}
	w := d.s[d.i:j]
	d.i = j
	return w
}

func (d *ddlReader) peekWord(w string) bool {
	save := d.i
	got := d.word()
	d.i = save
	return strings.EqualFold(got, w)
}

// fields reads name TYPE pairs up to end (0: the end of the text).
func (d *ddlReader) fields(colon string) (*schema.Struct, error) {
	st := &schema.Struct{}
	for {
		name := d.word()
		if name == "" {
			return nil, fmt.Errorf("expected a field name at %d", d.i)
		}
		if colon != "" {
			d.sym(':')
		}
		t, err := d.typ()
		if err != nil {
			return nil, err
		}
		if d.peekWord("NOT") {
			d.word()
			if !strings.EqualFold(d.word(), "NULL") {
				return nil, fmt.Errorf("expected NULL after NOT")
			}
		}
		if d.peekWord("COMMENT") {
			d.word()
			d.skip()
			if d.i >= len(d.s) || d.s[d.i] != '\'' {
				return nil, fmt.Errorf("expected a quoted comment")
			}
			end := strings.IndexByte(d.s[d.i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("unterminated comment")
			}
			d.i += end + 2
		}
		st.Fields = append(st.Fields, &schema.Field{Name: name, Type: t, Nullable: true})
		if !d.sym(',') {
			return st, nil
		}
	}
}

// structBody reads <fields> after STRUCT.
func (d *ddlReader) structBody() (*schema.Struct, error) {
	if !d.sym('<') {
		return nil, fmt.Errorf("expected < after STRUCT")
	}
	if d.sym('>') {
		return &schema.Struct{}, nil
	}
	st, err := d.fields(":")
	if err != nil {
		return nil, err
	}
	if !d.sym('>') {
		return nil, fmt.Errorf("expected > closing STRUCT")
	}
	return st, nil
}

// typ reads a type.
func (d *ddlReader) typ() (schema.Type, error) {
	w := d.word()
	switch strings.ToUpper(w) {
	case "STRUCT":
		return d.structBody()
	case "ARRAY":
		if !d.sym('<') {
			return nil, fmt.Errorf("expected < after ARRAY")
		}
		e, err := d.typ()
		if err != nil {
			return nil, err
		}
		if !d.sym('>') {
			return nil, fmt.Errorf("expected > closing ARRAY")
		}
		return &schema.Array{Element: e, ContainsNull: true}, nil
	case "MAP":
		if !d.sym('<') {
			return nil, fmt.Errorf("expected < after MAP")
		}
		k, err := d.typ()
		if err != nil {
			return nil, err
		}
		if !d.sym(',') {
			return nil, fmt.Errorf("expected , in MAP")
		}
		v, err := d.typ()
		if err != nil {
			return nil, err
		}
		if !d.sym('>') {
			return nil, fmt.Errorf("expected > closing MAP")
		}
		return &schema.Map{Key: k, Value: v, ValueContainsNull: true}, nil
	}
	d.skip()
	if d.i < len(d.s) && d.s[d.i] == '(' {
		end := strings.IndexByte(d.s[d.i:], ')')
		if end < 0 {
			return nil, fmt.Errorf("unterminated type parameters")
		}
		w += d.s[d.i : d.i+end+1]
		d.i += end + 1
	}
	switch strings.ToLower(w) {
	case "int":
		w = "integer"
	case "bigint":
		w = "long"
	case "smallint":
		w = "short"
	case "tinyint":
		w = "byte"
	case "real":
		w = "float"
	case "bool":
		w = "boolean"
	}
	return schema.ParseTypeName(w)
}
