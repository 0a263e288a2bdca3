// Package structarrow converts Go structs to Arrow record batches and back,
// so that the IO handler (and anything else) can write a []T to a Delta
// table and read a table into a []T without the caller touching Arrow.
//
// A struct's exported fields are its columns, named as the field or by a
// `delta:"name"` tag (`delta:"-"` skips the field). Options follow the name
// after a comma: `delta:"price,decimal(10,2)"`, `delta:"day,date"`,
// `delta:"at,timestamp_ntz"`. Types map as Delta stores them:
//
//	bool                      boolean
//	int8, int16, int32        byte, short, integer
//	int, int64                long
//	uint8, uint16, uint32     short, integer, long (the next wider signed type)
//	uint, uint64              long (a value beyond its range fails the write)
//	float32, float64          float, double
//	string                    string
//	[]byte, [N]byte           binary
//	time.Time                 timestamp (UTC, microseconds); the date and
//	                          timestamp_ntz options store the calendar date or
//	                          the wall clock of the value's location
//	decimal128.Num, big.Rat   decimal(p,s), from the decimal(p,s) option
//	struct                    struct
//	[]T                       array
//	map[K]V                   map (entries sorted by key)
//	*T                        T, nullable
//
// A non-pointer field is not nullable, except slices and maps, whose nil is
// null (and whose empty value is not). Embedded structs are flattened with
// encoding/json's rules: the shallowest field wins, then the tagged one, and
// ambiguous names are dropped. Column names are compared case-insensitively,
// as Delta compares them.
//
// Errors name the Go path of the field (Order.Items[].Price) and, for
// values, the row (its index in the slice).
package structarrow

import (
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// kind is what a Go type becomes, once pointers are stripped.
type kind int

const (
	kBool kind = iota
	kInt
	kUint
	kFloat
	kString
	kBytes     // []byte
	kByteArray // [N]byte
	kTime      // time.Time
	kDecimal   // decimal128.Num
	kRat       // big.Rat
	kStruct    // struct
	kList      // []T
	kMap       // map[K]V
)

// timeMode is how a time.Time is stored.
type timeMode int

const (
	timeUTC  timeMode = iota // timestamp: the instant, in UTC
	timeNTZ                  // timestamp_ntz: the wall clock of the value's location
	timeDate                 // date: the calendar date of the value's location
)

// node is the compiled mapping of one Go type to one Arrow type. Both
// directions (NewReader and Collect) walk the same nodes, so that the rules
// live once.
type node struct {
	path     string       // Go path for messages: Order.Items[].Price
	typ      reflect.Type // the Go type, pointer included
	base     reflect.Type // typ without its pointer
	ptr      bool         // typ is *base
	kind     kind
	nullable bool
	dt       arrow.DataType

	time        timeMode
	prec, scale int32   // decimals
	fields      []field // structs
	elem, key   *node   // lists (elem), maps (key, elem = value)
}

// field is one column of a struct.
type field struct {
	name  string // column name
	index []int  // reflect index path (through embedded structs)
	node  *node
}

var (
	timeType    = reflect.TypeFor[time.Time]()
	decimalType = reflect.TypeFor[decimal128.Num]()
	ratType     = reflect.TypeFor[big.Rat]()
)

const supported = "supported: bool, ints, uints, floats, string, []byte, [N]byte, time.Time, " +
	"decimal128.Num, big.Rat, structs, slices, maps, and pointers to these"

// SchemaOf returns the Arrow schema of a struct type (or a pointer to one):
// a column per exported field, as the package comment describes.
func SchemaOf(t reflect.Type) (*arrow.Schema, error) {
	n, err := compile(t)
	if err != nil {
		return nil, err
	}
	return schemaOf(n), nil
}

func schemaOf(n *node) *arrow.Schema {
	return arrow.NewSchema(arrowFields(n.fields), nil)
}

func arrowFields(fs []field) []arrow.Field {
	out := make([]arrow.Field, len(fs))
	for i, f := range fs {
		out[i] = arrow.Field{Name: f.name, Type: f.node.dt, Nullable: f.node.nullable}
	}
	return out
}

// compile maps a top-level row type: a struct or a pointer to one.
func compile(t reflect.Type) (*node, error) {
	if t == nil {
		return nil, errs.New(errs.InvalidArgument, "", "structarrow: no type given; want a struct type")
	}
	s := t
	if s.Kind() == reflect.Pointer {
		s = s.Elem()
	}
	if s.Kind() != reflect.Struct || s == timeType || s == decimalType || s == ratType {
		return nil, errs.New(errs.InvalidArgument, "", "%s: rows must be structs (or pointers to structs), one column per exported field", t)
	}
	c := &compiler{inProgress: map[reflect.Type]bool{}}
	n, err := c.node(s.Name(), t, "")
	if err != nil {
		return nil, err
	}
	if len(n.fields) == 0 {
		return nil, errs.New(errs.InvalidArgument, "", "%s: no exported fields, so no columns", t)
	}
	return n, nil
}

type compiler struct {
	inProgress map[reflect.Type]bool // struct types being compiled (recursion guard)
}

func unsupported(path string, t reflect.Type, why string) error {
	return errs.New(errs.InvalidArgument, "", "%s: %s %s; %s", path, t, why, supported)
}

// node compiles the Go type t found at path, with the field's tag options.
func (c *compiler) node(path string, t reflect.Type, opt string) (*node, error) {
	n := &node{path: path, typ: t, base: t}
	if t.Kind() == reflect.Pointer {
		n.ptr, n.nullable, n.base = true, true, t.Elem()
		if n.base.Kind() == reflect.Pointer {
			return nil, unsupported(path, t, "is a pointer to a pointer, which is not supported")
		}
	}
	b := n.base
	switch {
	case b == timeType:
		n.kind = kTime
		switch opt {
		case "", "timestamp":
			n.dt = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
		case "timestamp_ntz":
			n.time, n.dt = timeNTZ, &arrow.TimestampType{Unit: arrow.Microsecond}
		case "date":
			n.time, n.dt = timeDate, arrow.FixedWidthTypes.Date32
		default:
			return nil, badOption(path, t, opt)
		}
		return n, nil
	case b == decimalType || b == ratType:
		n.kind = kDecimal
		if b == ratType {
			n.kind = kRat
		}
		p, s, ok := parseDecimal(opt)
		if !ok {
			return nil, errs.New(errs.InvalidArgument, "", "%s: %s needs its precision and scale in the tag, e.g. `delta:\"name,decimal(10,2)\"` (precision 1 to 38, scale 0 to precision); got %q", path, t, opt)
		}
		n.prec, n.scale = p, s
		n.dt = &arrow.Decimal128Type{Precision: p, Scale: s}
		return n, nil
	}
	if opt != "" && !passesOptions(b) {
		return nil, badOption(path, t, opt)
	}
	switch b.Kind() {
	case reflect.Bool:
		n.kind, n.dt = kBool, arrow.FixedWidthTypes.Boolean
	case reflect.Int8:
		n.kind, n.dt = kInt, arrow.PrimitiveTypes.Int8
	case reflect.Int16, reflect.Uint8:
		n.kind, n.dt = intKind(b), arrow.PrimitiveTypes.Int16
	case reflect.Int32, reflect.Uint16:
		n.kind, n.dt = intKind(b), arrow.PrimitiveTypes.Int32
	case reflect.Int, reflect.Int64, reflect.Uint32, reflect.Uint, reflect.Uint64:
		n.kind, n.dt = intKind(b), arrow.PrimitiveTypes.Int64
	case reflect.Float32:
		n.kind, n.dt = kFloat, arrow.PrimitiveTypes.Float32
	case reflect.Float64:
		n.kind, n.dt = kFloat, arrow.PrimitiveTypes.Float64
	case reflect.String:
		n.kind, n.dt = kString, arrow.BinaryTypes.String
	case reflect.Array:
		if b.Elem().Kind() != reflect.Uint8 {
			return nil, unsupported(path, t, "is an array, which is not supported (use a slice)")
		}
		n.kind, n.dt = kByteArray, arrow.BinaryTypes.Binary
	case reflect.Slice:
		n.nullable = true
		if b.Elem().Kind() == reflect.Uint8 {
			if opt != "" {
				return nil, badOption(path, t, opt)
			}
			n.kind, n.dt = kBytes, arrow.BinaryTypes.Binary
			return n, nil
		}
		e, err := c.node(path+"[]", b.Elem(), opt)
		if err != nil {
			return nil, err
		}
		n.kind, n.elem = kList, e
		n.dt = arrow.ListOfField(arrow.Field{Name: "element", Type: e.dt, Nullable: e.nullable})
	case reflect.Map:
		n.nullable = true
		k, err := c.node(path+"[key]", b.Key(), "")
		if err != nil {
			return nil, err
		}
		if k.ptr || !k.kind.ordered() {
			return nil, unsupported(path+"[key]", b.Key(), "is not supported as a map key (keys must be bool, numbers, strings or time.Time)")
		}
		v, err := c.node(path+"[value]", b.Elem(), opt)
		if err != nil {
			return nil, err
		}
		m := arrow.MapOf(k.dt, v.dt)
		m.SetItemNullable(v.nullable)
		n.kind, n.key, n.elem, n.dt = kMap, k, v, m
	case reflect.Struct:
		if c.inProgress[b] {
			return nil, unsupported(path, t, "refers to itself, and a table's schema cannot be recursive")
		}
		c.inProgress[b] = true
		defer delete(c.inProgress, b)
		fs, err := c.fields(path, b)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			return nil, unsupported(path, t, "has no exported fields, and a Delta struct needs at least one")
		}
		n.kind, n.fields = kStruct, fs
		n.dt = arrow.StructOf(arrowFields(fs)...)
	default:
		return nil, unsupported(path, t, "is not supported")
	}
	return n, nil
}

func intKind(t reflect.Type) kind {
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return kUint
	}
	return kInt
}

// ordered reports whether values of k sort, as map keys must for a stable
// order of entries.
func (k kind) ordered() bool {
	switch k {
	case kBool, kInt, kUint, kFloat, kString, kTime, kDecimal:
		return true
	}
	return false
}

// passesOptions reports whether tag options on a field of type t apply to
// its elements (a slice's, a map's values) rather than to t itself.
func passesOptions(t reflect.Type) bool {
	k := t.Kind()
	return (k == reflect.Slice && t.Elem().Kind() != reflect.Uint8) || k == reflect.Map
}

func badOption(path string, t reflect.Type, opt string) error {
	return errs.New(errs.InvalidArgument, "", "%s: tag option %q does not apply to %s (date, timestamp and timestamp_ntz apply to time.Time; decimal(p,s) to decimal128.Num and big.Rat)", path, opt, t)
}

// parseDecimal parses "decimal(p,s)".
func parseDecimal(opt string) (p, s int32, ok bool) {
	inner, found := strings.CutPrefix(strings.ReplaceAll(opt, " ", ""), "decimal(")
	inner, closed := strings.CutSuffix(inner, ")")
	ps, ss, comma := strings.Cut(inner, ",")
	if !found || !closed || !comma {
		return 0, 0, false
	}
	pi, err1 := strconv.Atoi(ps)
	si, err2 := strconv.Atoi(ss)
	if err1 != nil || err2 != nil || pi < 1 || pi > 38 || si < 0 || si > pi {
		return 0, 0, false
	}
	return int32(pi), int32(si), true
}

// parseTag splits a delta tag into the column name and the options (the
// rest after the first comma; decimal(p,s) holds a comma of its own).
func parseTag(tag string) (name, opt string) {
	name, opt, _ = strings.Cut(tag, ",")
	return name, strings.TrimSpace(opt)
}

// candidate is a field found while flattening embedded structs.
type candidate struct {
	name   string
	tagged bool
	index  []int
	typ    reflect.Type
	opt    string
}

// fields lists the columns of struct type t, flattening embedded structs as
// encoding/json does: by depth, the shallowest field of a name wins, then
// the only tagged one; names still ambiguous are dropped.
func (c *compiler) fields(path string, t reflect.Type) ([]field, error) {
	type level struct {
		t     reflect.Type
		index []int
	}
	var found []candidate
	depthOf := map[string]int{}
	current := []level{{t: t}}
	visited := map[reflect.Type]bool{}
	for depth := 0; len(current) > 0; depth++ {
		var next []level
		var here []candidate
		for _, lv := range current {
			if visited[lv.t] {
				continue
			}
			visited[lv.t] = true
			for i := range lv.t.NumField() {
				sf := lv.t.Field(i)
				ft := sf.Type
				if sf.Anonymous {
					if ft.Kind() == reflect.Pointer && !sf.IsExported() {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("delta")
				if tag == "-" {
					continue
				}
				name, opt := parseTag(tag)
				index := append(slices.Clip(lv.index), i)
				if sf.Anonymous && name == "" && ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
					return nil, errs.New(errs.InvalidArgument, "", "%s.%s: embedded pointers are not supported; embed %s by value or give the field a delta tag to make it a struct column", path, sf.Name, ft.Elem())
				}
				if sf.Anonymous && name == "" && ft.Kind() == reflect.Struct && ft != timeType && ft != decimalType && ft != ratType {
					next = append(next, level{t: ft, index: index})
					continue
				}
				if !sf.IsExported() {
					continue // an unexported embedded non-struct, as encoding/json
				}
				tagged := name != ""
				if !tagged {
					name = sf.Name
				}
				here = append(here, candidate{name: name, tagged: tagged, index: index, typ: ft, opt: opt})
			}
		}
		// Fields at this depth compete only with each other; a name
		// seen at a shallower depth hides them all.
		byName := map[string][]candidate{}
		for _, cd := range here {
			if _, shallower := depthOf[cd.name]; !shallower {
				byName[cd.name] = append(byName[cd.name], cd)
			}
		}
		for name, cds := range byName {
			depthOf[name] = depth
			if w, ok := dominant(cds); ok {
				found = append(found, w)
			}
		}
		current = next
	}
	slices.SortFunc(found, func(a, b candidate) int { return slices.Compare(a.index, b.index) })
	out := make([]field, 0, len(found))
	seen := map[string]string{}
	for _, cd := range found {
		low := strings.ToLower(cd.name)
		if prev, dup := seen[low]; dup {
			return nil, errs.New(errs.InvalidArgument, "", "%s: columns %q and %q differ only in case, and Delta column names are case-insensitive; rename one with a delta tag", path, prev, cd.name)
		}
		seen[low] = cd.name
		fn, err := c.node(path+"."+goName(t, cd.index), cd.typ, cd.opt)
		if err != nil {
			return nil, err
		}
		out = append(out, field{name: cd.name, index: cd.index, node: fn})
	}
	return out, nil
}

// dominant picks the winner among same-named fields of one depth: the only
// one, or the only tagged one.
func dominant(cds []candidate) (candidate, bool) {
	if len(cds) == 1 {
		return cds[0], true
	}
	var w candidate
	n := 0
	for _, cd := range cds {
		if cd.tagged {
			w, n = cd, n+1
		}
	}
	return w, n == 1
}

// goName is the Go field name at index (the promoted name, for messages).
func goName(t reflect.Type, index []int) string {
	return t.FieldByIndex(index).Name
}

func (n *node) String() string { return fmt.Sprintf("%s (%s)", n.path, n.typ) }
