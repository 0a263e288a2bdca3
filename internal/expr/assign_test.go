package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// nestedSchema adds arrays and maps to the all-types struct column.
const nestedSchema = `{"type":"struct","fields":[
{"name":"a","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},
{"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},
{"name":"st","type":{"type":"struct","fields":[
  {"name":"x","type":"integer","nullable":true,"metadata":{}},
  {"name":"y","type":"string","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}}]}`

const nestedRows = `[
{"a":[1,2,null],"m":[{"key":"k","value":1},{"key":"n","value":null}],"st":{"x":1,"y":"one"}},
{"a":[],"m":[],"st":null},
{"a":null,"m":null,"st":{"x":null,"y":null}},
{"a":[300],"m":[{"key":"big","value":300}],"st":{"x":300,"y":"three"}}
]`

func assignField(t *testing.T, typ string, nullable bool) *schema.Field {
	t.Helper()
	n := "true"
	if !nullable {
		n = "false"
	}
	sc := mustSchema(t, `{"type":"struct","fields":[{"name":"c","type":`+typ+`,"nullable":`+n+`,"metadata":{}}]}`)
	return sc.Fields[0]
}

func TestAssign(t *testing.T) {
	sc, rec := allTypes(t)
	nsc := mustSchema(t, nestedSchema)
	nrec := batch(t, memory.DefaultAllocator, nsc, nestedRows)
	defer nrec.Release()
	type assignCase struct {
		expr, to string
		strict   bool
		want     string
	}
	flat := []assignCase{
		// widening and numbers to numbers, checked when evaluated
		{`i8`, `"long"`, true, "1|-2|NULL|127|0"},
		{`i8 + 1`, `"short"`, true, "2|-1|NULL|128|1"},
		{`i64`, `"byte"`, true, "ERR|-20|NULL|ERR|0"},
		{`dec`, `"decimal(12,1)"`, true, "12.3|-0.5|NULL|100000000.0|0.0"},
		{`dec`, `"decimal(4,2)"`, true, "12.34|-0.50|NULL|ERR|0.00"},
		{`f64`, `"integer"`, true, "2|ERR|NULL|0|0"},
		{`f32`, `"decimal(3,2)"`, true, "1.50|-0.50|NULL|0.10|0.00"},
		{`i16`, `"float"`, true, "100.0|-200.0|NULL|32767.0|0.0"},
		// anything atomic to a string; dates to timestamps
		{`i32`, `"string"`, true, "1000|-2000|NULL|2147483647|0"},
		{`b`, `"string"`, true, "true|false|NULL|true|false"},
		{`d`, `"timestamp"`, true, "2026-01-01 00:00:00|2026-01-02 00:00:00|NULL|1969-12-31 00:00:00|2000-02-29 00:00:00"},
		{`ts`, `"timestamp_ntz"`, true, "2026-01-01 00:00:00|2026-01-01 12:30:00.123456|NULL|1969-12-31 23:59:59.999999|2000-02-29 00:00:00"},
		{`NULL`, `"integer"`, true, "NULL|NULL|NULL|NULL|NULL"},
		{`i16`, `"short"`, true, "100|-200|NULL|32767|0"},
		// mismatches allowed: what does not convert is NULL
		{`i64`, `"byte"`, false, "NULL|-20|NULL|NULL|0"},
		{`s`, `"integer"`, false, "NULL|NULL|NULL|NULL|NULL"},
		{`concat(i8, '')`, `"integer"`, false, "1|-2|NULL|127|0"},
		{`f64`, `"integer"`, false, "2|NULL|NULL|0|0"},
		{`CAST(d AS STRING)`, `"date"`, false, "2026-01-01|2026-01-02|NULL|1969-12-31|2000-02-29"},
		{`b`, `"integer"`, false, "1|0|NULL|1|0"},
		{`ts`, `"date"`, false, "2026-01-01|2026-01-01|NULL|1969-12-31|2000-02-29"},
		{`dec`, `"decimal(4,2)"`, false, "12.34|-0.50|NULL|NULL|0.00"},
		// structs by field name; a missing nullable field is NULL
		{`st`, `{"type":"struct","fields":[{"name":"Y","type":"string","nullable":true,"metadata":{}},{"name":"x","type":"long","nullable":true,"metadata":{}},{"name":"z","type":"double","nullable":true,"metadata":{}}]}`, true,
			`{"Y":"one","x":1,"z":null}|{"Y":"two","x":null,"z":null}|NULL|{"Y":null,"x":3,"z":null}|{"Y":null,"x":null,"z":null}`},
		{`st`, `{"type":"struct","fields":[{"name":"x","type":"byte","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]}`, true,
			`{"x":1,"y":"one"}|{"x":null,"y":"two"}|NULL|{"x":3,"y":null}|{"x":null,"y":null}`},
	}
	// arrays and maps element by element
	nested := []assignCase{
		{`a`, `{"type":"array","elementType":"long","containsNull":true}`, true, "[1,2,null]|[]|NULL|[300]"},
		{`a`, `{"type":"array","elementType":"string","containsNull":true}`, true, `["1","2",null]|[]|NULL|["300"]`},
		{`a`, `{"type":"array","elementType":"byte","containsNull":true}`, true, "[1,2,null]|[]|NULL|ERR"},
		{`a`, `{"type":"array","elementType":"byte","containsNull":true}`, false, "[1,2,null]|[]|NULL|[null]"},
		{`m`, `{"type":"map","keyType":"string","valueType":"double","valueContainsNull":true}`, true,
			`[{"key":"k","value":1},{"key":"n","value":null}]|[]|NULL|[{"key":"big","value":300}]`},
		{`st`, `{"type":"struct","fields":[{"name":"x","type":"byte","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]}`, true,
			`{"x":1,"y":"one"}|NULL|{"x":null,"y":null}|ERR`},
	}
	for _, run := range []struct {
		sc    *schema.Struct
		rec   arrow.RecordBatch
		cases []assignCase
	}{{sc, rec, flat}, {nsc, nrec, nested}} {
		for _, c := range run.cases {
			field := assignField(t, c.to, true)
			b, err := BindValue(mustParse(t, c.expr), map[string]*schema.Struct{"": run.sc})
			if err != nil {
				t.Fatalf("%s: %v", c.expr, err)
			}
			a, err := Assign(b, field, c.strict)
			if err != nil {
				t.Errorf("%s as %s (strict %v): %v", c.expr, c.to, c.strict, err)
				continue
			}
			if !sameType(a.Type(), field.Type) {
				t.Errorf("%s as %s: type %s", c.expr, c.to, typeName(a.Type()))
			}
			if a.String() != b.String() {
				t.Errorf("%s as %s renders as %s", c.expr, c.to, a)
			}
			// Each row on its own (slices), then the whole batch.
			if got := strings.Join(evalValue(t, a, run.rec), "|"); got != c.want {
				t.Errorf("%s as %s (strict %v) = %s, want %s", c.expr, c.to, c.strict, got, c.want)
			}
			if !strings.Contains(c.want, "ERR") {
				if got := strings.Join(evalBatch(t, a, run.rec), "|"); got != c.want {
					t.Errorf("%s as %s (strict %v) on the batch = %s, want %s", c.expr, c.to, c.strict, got, c.want)
				}
			}
		}
	}
}

// Values that do not fit name the value, the type and the column.
func TestAssignEvalErrors(t *testing.T) {
	sc, rec := allTypes(t)
	nsc := mustSchema(t, nestedSchema)
	nrec := batch(t, memory.DefaultAllocator, nsc, nestedRows)
	defer nrec.Release()
	cases := []struct {
		sc             *schema.Struct
		rec            arrow.RecordBatch
		expr, to, want string
	}{
		{sc, rec, `i64`, `"byte"`, "column c: cannot cast BIGINT 10000000000 to TINYINT"},
		{sc, rec, `dec`, `"decimal(4,2)"`, "column c: cannot cast DECIMAL(10,2) 99999999.99 to DECIMAL(4,2)"},
		{sc, rec, `f64`, `"integer"`, "column c: cannot cast DOUBLE NaN to INT"},
		{nsc, nrec, `a`, `{"type":"array","elementType":"byte","containsNull":true}`, "column c[]: cannot cast INT 300 to TINYINT"},
		{nsc, nrec, `st`, `{"type":"struct","fields":[{"name":"x","type":"byte","nullable":true,"metadata":{}}, {"name":"y","type":"string","nullable":true,"metadata":{}}]}`, "column c.x: cannot cast INT 300 to TINYINT"},
		{nsc, nrec, `m`, `{"type":"map","keyType":"string","valueType":"byte","valueContainsNull":true}`, "column c value: cannot cast INT 300 to TINYINT"},
	}
	for _, c := range cases {
		b, err := BindValue(mustParse(t, c.expr), map[string]*schema.Struct{"": c.sc})
		if err != nil {
			t.Fatal(err)
		}
		a, err := Assign(b, assignField(t, c.to, true), true)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if _, err := evalChecked(t, a, c.rec, nil); err == nil {
			t.Errorf("%s as %s: no error", c.expr, c.to)
		} else if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s as %s: error %q, want %q", c.expr, c.to, err, c.want)
		}
	}
}

// What store assignment refuses is refused when the value is assigned,
// naming both types and the column, and saying how to allow it.
func TestAssignRefused(t *testing.T) {
	sc, _ := allTypes(t)
	nsc := mustSchema(t, nestedSchema)
	cases := []struct {
		sc       *schema.Struct
		expr, to string
		strict   bool
		want     string
	}{
		{sc, `s`, `"integer"`, true, "cannot store a STRING value in column c of type INT with type mismatches refused; CAST the value AS INT, or allow mismatches (error_on_type_mismatch false"},
		{sc, `'42'`, `"long"`, true, "cannot store a STRING value in column c of type BIGINT"},
		{sc, `s`, `"date"`, true, "STRING value in column c of type DATE"},
		{sc, `s`, `"boolean"`, true, "STRING value in column c of type BOOLEAN"},
		{sc, `b`, `"integer"`, true, "BOOLEAN value in column c of type INT"},
		{sc, `ts`, `"date"`, true, "TIMESTAMP value in column c of type DATE"},
		{sc, `d`, `"boolean"`, false, "cannot store a DATE value in column c of type BOOLEAN"},
		{sc, `st`, `"string"`, false, "cannot store a STRUCT<x: INT, y: STRING> value in column c of type STRING"},
		{sc, `st`, `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]}`, true, "column c has no field y (fields: x); the value's struct has it"},
		{sc, `st`, `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}},{"name":"w","type":"integer","nullable":false,"metadata":{}}]}`, false, "the value has no field w for column c.w, which is NOT NULL"},
		{sc, `st`, `{"type":"struct","fields":[{"name":"x","type":"date","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]}`, true, "cannot store a INT value in column c.x of type DATE"},
		{nsc, `a`, `{"type":"array","elementType":"date","containsNull":true}`, true, "cannot store a INT value in column c[] of type DATE"},
		{nsc, `m`, `{"type":"map","keyType":"integer","valueType":"integer","valueContainsNull":true}`, true, "STRING value in column c key of type INT"},
		{nsc, `a`, `"string"`, false, "cannot store a ARRAY<INT> value in column c of type STRING"},
	}
	for _, c := range cases {
		b, err := BindValue(mustParse(t, c.expr), map[string]*schema.Struct{"": c.sc})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Assign(b, assignField(t, c.to, true), c.strict)
		if err == nil {
			t.Errorf("%s as %s (strict %v): assigned", c.expr, c.to, c.strict)
			continue
		}
		if !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s as %s: error %q, want %q", c.expr, c.to, err, c.want)
		}
	}
}
