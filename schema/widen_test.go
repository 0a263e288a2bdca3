package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func typ(t *testing.T, s string) Type {
	t.Helper()
	ty, err := ParseTypeName(s)
	if err != nil {
		t.Fatal(err)
	}
	return ty
}

// TestCanWiden holds the rules to Spark's TypeWidening.isTypeChangeSupported
// and isTypeChangeSupportedByIceberg, with the cases of Spark's
// TypeWideningTestCases.
func TestCanWiden(t *testing.T) {
	for _, c := range []struct {
		from, to       string
		ok, icebergToo bool
	}{
		{"byte", "short", true, true}, {"byte", "int", true, true}, {"short", "int", true, true},
		{"short", "bigint", true, true}, {"int", "bigint", true, true}, {"byte", "bigint", true, true},
		{"float", "double", true, true}, {"date", "timestamp_ntz", true, false},
		{"int", "double", true, false}, {"byte", "double", true, false}, {"short", "double", true, false},
		{"decimal(9,2)", "decimal(18,2)", true, true}, {"decimal(8,2)", "decimal(9,3)", true, false},
		{"decimal(9,2)", "decimal(19,3)", true, false},
		{"byte", "decimal(10,0)", true, false}, {"int", "decimal(10,0)", true, false}, {"int", "decimal(12,2)", true, false},
		{"bigint", "decimal(20,0)", true, false},
		// unsupported (Spark's unsupportedTestCases and more)
		{"int", "byte", false, false}, {"bigint", "int", false, false}, {"double", "float", false, false},
		{"byte", "decimal(2,0)", false, false}, {"short", "decimal(4,0)", false, false}, {"int", "decimal(9,0)", false, false},
		{"bigint", "decimal(19,0)", false, false}, {"timestamp_ntz", "date", false, false},
		{"decimal(9,2)", "decimal(9,3)", false, false}, {"decimal(9,2)", "decimal(8,2)", false, false},
		{"decimal(18,2)", "decimal(8,1)", false, false}, {"decimal(9,2)", "decimal(10,4)", false, false},
		{"decimal(18,2)", "decimal(12,1)", false, false},
		{"bigint", "double", false, false}, {"float", "decimal(20,10)", false, false}, {"date", "timestamp", false, false},
		{"int", "string", false, false}, {"int", "int", false, false},
	} {
		from, to := typ(t, c.from), typ(t, c.to)
		if got := CanWiden(from, to); got != c.ok {
			t.Errorf("CanWiden(%s, %s) = %v", c.from, c.to, got)
		}
		if got := IcebergCanWiden(from, to); got != c.icebergToo {
			t.Errorf("IcebergCanWiden(%s, %s) = %v", c.from, c.to, got)
		}
	}
}

// TestMergeWidensAndRecords: schema evolution with widening widens columns,
// map values and array elements; RecordTypeChanges writes them as Spark
// 4.4's ALTER TABLE ... TYPE does (its log, read by hand: fieldPath for
// map and array parts, on the nearest struct field, appended to earlier
// changes).
func TestMergeWidensAndRecords(t *testing.T) {
	table := mustParse(t, `{"type":"struct","fields":[
		{"name":"id","type":"integer","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"short","toType":"integer"}]}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}},
		{"name":"a","type":{"type":"array","elementType":"short","containsNull":true},"nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"byte","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
		{"name":"n","type":"long","nullable":true,"metadata":{}}]}`)
	source := mustParse(t, `{"type":"struct","fields":[
		{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"m","type":{"type":"map","keyType":"string","valueType":"long","valueContainsNull":true},"nullable":true,"metadata":{}},
		{"name":"a","type":{"type":"array","elementType":"integer","containsNull":true},"nullable":true,"metadata":{}},
		{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"short","nullable":true,"metadata":{}}]},"nullable":true,"metadata":{}},
		{"name":"n","type":"integer","nullable":true,"metadata":{}}]}`)
	if _, _, err := Merge(table, source, MergeOptions{}); err == nil || !strings.Contains(err.Error(), `column "id" is integer in the table but long in the source: widening it needs type widening`) {
		t.Fatalf("without widening: %v", err)
	}
	if _, _, err := Merge(table, source, MergeOptions{Widen: WidenIceberg}); err != nil {
		t.Fatalf("integer widening is Iceberg's too: %v", err)
	}
	got, changed, err := Merge(table, source, MergeOptions{Widen: WidenAll})
	if err != nil || !changed {
		t.Fatalf("Merge: %v, changed=%v", err, changed)
	}
	if want := "struct<id:long,m:map<string,long>,a:array<integer>,s:struct<x:short>,n:long>"; got.String() != want {
		t.Fatalf("merged %s, want %s", got, want)
	}
	var paths []string
	for _, c := range Widened(table, got) {
		paths = append(paths, c.Column()+":"+c.From.String()+">"+c.To.String())
	}
	if strings.Join(paths, " ") != "id:integer>long m.value:integer>long a.element:short>integer s.x:byte>short" {
		t.Fatalf("Widened: %v", paths)
	}
	RecordTypeChanges(table, got)
	var js struct {
		Fields []struct {
			Name     string
			Type     json.RawMessage
			Metadata map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(got.JSON()), &js); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"id": `[{"fromType":"short","toType":"integer"},{"toType":"long","fromType":"integer"}]`,
		"m":  `[{"toType":"long","fromType":"integer","fieldPath":"value"}]`,
		"a":  `[{"toType":"integer","fromType":"short","fieldPath":"element"}]`,
		"n":  ``,
		"s":  ``,
	}
	for _, f := range js.Fields {
		if got := string(f.Metadata[TypeChangesKey]); got != want[f.Name] {
			t.Errorf("%s: %s, want %s", f.Name, got, want[f.Name])
		}
	}
	if x := got.Field("s").Type.(*Struct).Field("x"); x.Metadata[TypeChangesKey] == nil {
		t.Errorf("s.x records no change: %v", x.Metadata)
	}
	if err := CheckTypeChanges(got); err != nil {
		t.Errorf("CheckTypeChanges: %v", err)
	}
	preview := mustParse(t, `{"type":"struct","fields":[{"name":"b","type":"decimal(4,1)","nullable":true,"metadata":{"delta.typeChanges":[{"toType":"decimal(4,1)","fromType":"byte","tableVersion":2}]}}]}`)
	if err := CheckTypeChanges(preview); err != nil {
		t.Errorf("the preview's byte -> decimal(4,1): %v", err)
	}
	bad := mustParse(t, `{"type":"struct","fields":[{"name":"v","type":"integer","nullable":true,"metadata":{"delta.typeChanges":[{"fromType":"long","toType":"integer"}]}}]}`)
	if err := CheckTypeChanges(bad); err == nil || !strings.Contains(err.Error(), `"v" records a type change from long to integer`) {
		t.Errorf("narrowing recorded: %v", err)
	}
}

func TestWidenType(t *testing.T) {
	parse := func(s string) Type { return columnType(t, s) }
	st := `{"type":"struct","fields":[{"name":"x","type":"%s","nullable":true,"metadata":{}},{"name":"y","type":"string","nullable":true,"metadata":{}}]}`
	for _, c := range []struct {
		dt, st, want string
		w            Widening
	}{
		{fmt.Sprintf(st, "integer"), fmt.Sprintf(st, "long"), "struct<x:long,y:string>", WidenAll},
		{fmt.Sprintf(st, "integer"), fmt.Sprintf(st, "long"), "struct<x:integer,y:string>", NoWidening},
		{fmt.Sprintf(st, "long"), fmt.Sprintf(st, "integer"), "struct<x:long,y:string>", WidenAll},
		{`{"type":"array","elementType":"short","containsNull":true}`, `{"type":"array","elementType":"integer","containsNull":true}`, "array<integer>", WidenAll},
		{`{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`, `{"type":"map","keyType":"string","valueType":"long","valueContainsNull":true}`, "map<string,long>", WidenAll},
		{`{"type":"map","keyType":"string","valueType":"decimal(5,2)","valueContainsNull":true}`, `{"type":"map","keyType":"string","valueType":"decimal(9,3)","valueContainsNull":true}`, "map<string,decimal(5,2)>", WidenIceberg},
	} {
		dt := parse(c.dt)
		before := dt.String()
		got, changed := WidenType(dt, parse(c.st), c.w)
		if got.String() != c.want || changed != (c.want != before) || dt.String() != before {
			t.Errorf("WidenType(%s, %s, %v) = %s, %v (dt now %s), want %s", c.dt, c.st, c.w, got, changed, dt, c.want)
		}
	}
}

// TestAddFields: the source's struct fields the table lacks are appended,
// within structs, arrays and map values, types untouched, dt unmodified.
func TestAddFields(t *testing.T) {
	parse := func(s string) Type { return columnType(t, s) }
	one := `{"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}}]}`
	two := `{"type":"struct","fields":[{"name":"z","type":"string","nullable":false,"metadata":{}},{"name":"x","type":"long","nullable":true,"metadata":{}}]}`
	for _, c := range []struct{ dt, st, want string }{
		{one, two, "struct<x:integer,z:string>"},
		{two, one, "struct<z:string,x:long>"},
		{`{"type":"array","elementType":` + one + `,"containsNull":true}`, `{"type":"array","elementType":` + two + `,"containsNull":true}`, "array<struct<x:integer,z:string>>"},
		{`{"type":"map","keyType":"string","valueType":` + one + `,"valueContainsNull":true}`, `{"type":"map","keyType":"string","valueType":` + two + `,"valueContainsNull":true}`, "map<string,struct<x:integer,z:string>>"},
		{`"integer"`, `"long"`, "integer"},
	} {
		dt := parse(c.dt)
		before := dt.String()
		got, changed := AddFields(dt, parse(c.st))
		if got.String() != c.want || changed != (c.want != before) || dt.String() != before {
			t.Errorf("AddFields(%s, %s) = %s, %v (dt now %s), want %s", c.dt, c.st, got, changed, dt, c.want)
		}
	}
	got, _ := AddFields(parse(one), parse(two))
	if z := got.(*Struct).Field("z"); z == nil || !z.Nullable {
		t.Errorf("added field %v, want z nullable", z)
	}
}

// columnType parses s, a Delta type's JSON, as the type of a column.
func columnType(t *testing.T, s string) Type {
	t.Helper()
	sc, err := Parse(`{"type":"struct","fields":[{"name":"c","type":` + s + `,"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Fields[0].Type
}
