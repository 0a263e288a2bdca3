package expr

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// schema_of_json('constant JSON') as Spark's SchemaOfJson infers it
// (JsonInferSchema with the default JSONOptions), folded when bound: the
// text read with JSONOptions' Jackson parser (single quotes, NaN and the
// infinities allowed; control characters in strings, leading zeros and
// plus signs refused), an integer as BIGINT or, past a long, DECIMAL(n,0)
// (DOUBLE past 38 digits), any other number as DOUBLE, a string as STRING,
// an object as a STRUCT of its fields sorted by name (a name given twice
// kept twice), an array as an ARRAY of its elements' common type (STRING
// when they have none); then NULL types become STRING and empty structs
// and nameless fields are dropped. The result is the type's SQL text. A
// text the parser refuses fails, as it fails Spark's query.

// schemaOfJSONNames are the names schemaofjson.go binds.
var schemaOfJSONNames = map[string]bool{"schema_of_json": true}

// bindSchemaOfJSON binds schema_of_json to its constant result.
func (b *binder) bindSchemaOfJSON(e *Call) (node, error) {
	if len(e.Args) > 1 {
		return nil, errAt(e.Args[1], "schema_of_json: options are not supported; leave the second argument out for Spark's defaults")
	}
	s, err := b.constString(e, e.Args[0], "JSON text")
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, errAt(e.Args[0], "schema_of_json: the JSON text must not be NULL")
	}
	t, err := inferJSONSchema(*s)
	if err != nil {
		return nil, errAt(e.Args[0], "schema_of_json(%q): %v, which fails Spark's query", *s, err)
	}
	return &lit{v: t, t: tString, src: e}, nil
}

// jsonType is an inferred type: kind is one of null, bigint, double,
// decimal (prec, scale), string, boolean, struct (fields) or array (elem).
type jsonType struct {
	kind        string
	prec, scale int
	fields      []jsonTypeField
	elem        *jsonType
}

type jsonTypeField struct {
	name string
	t    *jsonType
}

// inferJSONSchema is the SQL text of the type of text's first value.
func inferJSONSchema(text string) (string, error) {
	r := &jacksonReader{s: text, dataSource: true}
	if !r.skipWS() { // no value: Spark's NullType, canonically STRING
		return "STRING", nil
	}
	v, _, err := readJacksonAs(r)
	if err != nil {
		return "", err
	}
	t := inferJSONType(v)
	switch {
	case t.kind == "struct":
		if c := canonicalJSONType(t); c != nil {
			return c.sql(), nil
		}
		return "STRUCT<>", nil
	case t.kind == "array" && t.elem.kind == "struct":
		if c := canonicalJSONType(t.elem); c != nil {
			return "ARRAY<" + c.sql() + ">", nil
		}
		return "ARRAY<STRUCT<>>", nil
	}
	if c := canonicalJSONType(t); c != nil {
		return c.sql(), nil
	}
	return "STRING", nil
}

// inferJSONType is JsonInferSchema.inferField of v.
func inferJSONType(v *jsonValue) *jsonType {
	switch v.kind {
	case 'z':
		return &jsonType{kind: "null"}
	case 's':
		return &jsonType{kind: "string"}
	case 'b':
		return &jsonType{kind: "boolean"}
	case 'n':
		if strings.ContainsAny(v.text, ".eENI") {
			return &jsonType{kind: "double"}
		}
		digits := strings.TrimPrefix(v.text, "-")
		if fitsLong(v.text) {
			return &jsonType{kind: "bigint"}
		}
		if len(digits) > 38 {
			return &jsonType{kind: "double"}
		}
		return &jsonType{kind: "decimal", prec: len(digits)}
	case 'a':
		t := &jsonType{kind: "null"}
		for _, c := range v.elems {
			t = commonJSONType(t, inferJSONType(c))
		}
		return &jsonType{kind: "array", elem: t}
	}
	st := &jsonType{kind: "struct"}
	for _, f := range v.fields {
		st.fields = append(st.fields, jsonTypeField{f.name, inferJSONType(f.v)})
	}
	slices.SortStableFunc(st.fields, func(a, b jsonTypeField) int { return javaCompare(a.name, b.name) })
	return st
}

// fitsLong reports whether an integer text is within a long.
func fitsLong(s string) bool {
	const maxLong, minLong = "9223372036854775807", "-9223372036854775808"
	if strings.HasPrefix(s, "-") {
		return len(s) < len(minLong) || len(s) == len(minLong) && s <= minLong
	}
	return len(s) < len(maxLong) || len(s) == len(maxLong) && s <= maxLong
}

// javaCompare is Java's String.compareTo: by UTF-16 code units.
func javaCompare(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	return slices.Compare(ua, ub)
}

// commonJSONType is JsonInferSchema.compatibleType.
func commonJSONType(a, b *jsonType) *jsonType {
	asDecimal := func(t *jsonType) *jsonType {
		if t.kind == "bigint" {
			return &jsonType{kind: "decimal", prec: 20}
		}
		return t
	}
	switch {
	case a.kind == "null":
		return b
	case b.kind == "null":
		return a
	case a.kind == b.kind && a.kind != "decimal" && a.kind != "struct" && a.kind != "array":
		return a
	case a.kind == "double" && (b.kind == "bigint" || b.kind == "decimal"), b.kind == "double" && (a.kind == "bigint" || a.kind == "decimal"):
		return &jsonType{kind: "double"}
	case a.kind == "decimal" && (b.kind == "decimal" || b.kind == "bigint"), b.kind == "decimal" && a.kind == "bigint":
		x, y := asDecimal(a), asDecimal(b)
		scale := max(x.scale, y.scale)
		whole := max(x.prec-x.scale, y.prec-y.scale)
		if whole+scale > 38 {
			return &jsonType{kind: "double"}
		}
		return &jsonType{kind: "decimal", prec: whole + scale, scale: scale}
	case a.kind == "array" && b.kind == "array":
		return &jsonType{kind: "array", elem: commonJSONType(a.elem, b.elem)}
	case a.kind == "struct" && b.kind == "struct":
		out := &jsonType{kind: "struct"}
		i, j := 0, 0
		for i < len(a.fields) && j < len(b.fields) {
			switch c := javaCompare(a.fields[i].name, b.fields[j].name); {
			case c == 0:
				out.fields = append(out.fields, jsonTypeField{a.fields[i].name, commonJSONType(a.fields[i].t, b.fields[j].t)})
				i++
				j++
			case c < 0:
				out.fields = append(out.fields, a.fields[i])
				i++
			default:
				out.fields = append(out.fields, b.fields[j])
				j++
			}
		}
		out.fields = append(append(out.fields, a.fields[i:]...), b.fields[j:]...)
		return out
	}
	return &jsonType{kind: "string"}
}

// canonicalJSONType is JsonInferSchema.canonicalizeType: NULL as STRING,
// nameless fields and empty structs dropped (nil).
func canonicalJSONType(t *jsonType) *jsonType {
	switch t.kind {
	case "null":
		return &jsonType{kind: "string"}
	case "array":
		e := canonicalJSONType(t.elem)
		if e == nil {
			return nil
		}
		return &jsonType{kind: "array", elem: e}
	case "struct":
		out := &jsonType{kind: "struct"}
		for _, f := range t.fields {
			if f.name == "" {
				continue
			}
			if c := canonicalJSONType(f.t); c != nil {
				out.fields = append(out.fields, jsonTypeField{f.name, c})
			}
		}
		if len(out.fields) == 0 {
			return nil
		}
		return out
	}
	return t
}

// plainIdent is a name Spark's SQL text leaves unquoted.
var plainIdent = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// sql is the type's SQL text, as Spark's DataType.sql writes it.
func (t *jsonType) sql() string {
	switch t.kind {
	case "array":
		return "ARRAY<" + t.elem.sql() + ">"
	case "struct":
		parts := make([]string, len(t.fields))
		for i, f := range t.fields {
			name := f.name
			if !plainIdent.MatchString(name) {
				name = "`" + strings.ReplaceAll(name, "`", "``") + "`"
			}
			parts[i] = name + ": " + f.t.sql()
		}
		return "STRUCT<" + strings.Join(parts, ", ") + ">"
	case "decimal":
		return "DECIMAL(" + strconv.Itoa(t.prec) + "," + strconv.Itoa(t.scale) + ")"
	}
	return strings.ToUpper(t.kind)
}
