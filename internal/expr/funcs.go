package expr

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/scalar"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/schema"
)

// functions maps each supported name to its arity (min, max; max -1 is
// unbounded).
var functions = map[string][2]int{
	"lower": {1, 1}, "lcase": {1, 1}, "upper": {1, 1}, "ucase": {1, 1},
	"trim": {1, 2}, "ltrim": {1, 2}, "rtrim": {1, 2}, "btrim": {1, 2}, "overlay": {3, 4},
	"length": {1, 1}, "char_length": {1, 1}, "character_length": {1, 1},
	"coalesce": {1, -1}, "ifnull": {2, 2}, "nvl": {2, 2},
	"abs":       {1, 1},
	"substring": {2, 3}, "substr": {2, 3},
	"concat": {1, -1},
	"date":   {1, 1}, "to_date": {1, 2},
	"year": {1, 1}, "month": {1, 1}, "day": {1, 1}, "dayofmonth": {1, 1},
	"hour": {1, 1}, "minute": {1, 1}, "second": {1, 1},
	"dayofyear": {1, 1}, "quarter": {1, 1}, "dayofweek": {1, 1}, "weekday": {1, 1}, "weekofyear": {1, 1},
	"last_day": {1, 1}, "add_months": {2, 2},
	"date_format": {2, 2}, "date_trunc": {2, 2}, "trunc": {2, 2},
	"isnull": {1, 1}, "isnotnull": {1, 1},
	"startswith": {2, 2}, "endswith": {2, 2}, "contains": {2, 2},
	"if": {3, 3}, "nullif": {2, 2}, "greatest": {2, -1}, "least": {2, -1},
	"round": {1, 2}, "floor": {1, 1}, "ceil": {1, 1}, "ceiling": {1, 1},
	"concat_ws": {1, -1}, "replace": {2, 3}, "lpad": {2, 3}, "rpad": {2, 3},
	"date_add": {2, 3}, "date_sub": {2, 2}, "datediff": {2, 3}, "dateadd": {2, 3}, "date_diff": {2, 3},
	"timestampadd": {3, 3}, "timestampdiff": {3, 3}, "from_unixtime": {1, 2}, "unix_timestamp": {1, 2},
	"to_unix_timestamp": {1, 2}, "to_timestamp": {1, 2}, "months_between": {2, 3}, "make_date": {3, 3}, "next_day": {2, 2},
	"md5": {1, 1}, "sha1": {1, 1}, "sha": {1, 1}, "sha2": {2, 2}, "crc32": {1, 1}, "base64": {1, 1}, "hex": {1, 1},
	"left": {2, 2}, "right": {2, 2}, "repeat": {2, 2}, "reverse": {1, 1}, "instr": {2, 2}, "ascii": {1, 1}, "initcap": {1, 1},
	"pmod":            {2, 2},
	"substring_index": {3, 3}, "locate": {2, 3}, "position": {2, 3}, "translate": {3, 3}, "space": {1, 1},
	"octet_length": {1, 1}, "bit_length": {1, 1}, "chr": {1, 1}, "char": {1, 1}, "levenshtein": {2, 2}, "nvl2": {3, 3},
	"isnan": {1, 1}, "nanvl": {2, 2}, "sign": {1, 1}, "signum": {1, 1}, "sqrt": {1, 1}, "bin": {1, 1},
	"from_utc_timestamp": {2, 2}, "to_utc_timestamp": {2, 2}, "hash": {1, -1}, "xxhash64": {1, -1},
	"shiftleft": {2, 2}, "shiftright": {2, 2}, "shiftrightunsigned": {2, 2},
	"rlike": {2, 2}, "regexp_like": {2, 2}, "regexp": {2, 2}, "regexp_extract": {2, 3}, "regexp_extract_all": {2, 3}, "str_to_map": {1, 3}, "parse_url": {2, 3}, "regexp_replace": {3, 4},
	"regexp_count": {2, 2}, "regexp_substr": {2, 2}, "regexp_instr": {2, 3}, "split": {2, 3}, "get_json_object": {2, 2}, "to_json": {1, 2}, "schema_of_json": {1, 2}, "from_json": {2, 3}, "json_tuple": {2, -1},
	"xpath": {2, 2}, "xpath_boolean": {2, 2}, "xpath_double": {2, 2}, "xpath_number": {2, 2}, "xpath_float": {2, 2}, "xpath_int": {2, 2},
	"xpath_long": {2, 2}, "xpath_short": {2, 2}, "xpath_string": {2, 2},
	"extract": {2, 2}, "date_part": {2, 2}, "datepart": {2, 2}, "format_number": {2, 2},
	"exp": {1, 1}, "ln": {1, 1}, "log": {1, 2}, "log2": {1, 1}, "log10": {1, 1}, "cbrt": {1, 1}, "expm1": {1, 1}, "log1p": {1, 1}, "atanh": {1, 1},
	"degrees": {1, 1}, "radians": {1, 1}, "rint": {1, 1}, "pow": {2, 2}, "power": {2, 2},
	"make_timestamp": {6, 7}, "make_timestamp_ltz": {6, 7}, "make_timestamp_ntz": {6, 7},
	"size": {1, 1}, "cardinality": {1, 1}, "element_at": {2, 2}, "array_contains": {2, 2}, "map_keys": {1, 1}, "map_values": {1, 1}, "conv": {3, 3}, "unhex": {1, 1}, "unbase64": {1, 1}, "encode": {2, 2},
	"decode": {2, -1}, "soundex": {1, 1},
	"bit_count": {1, 1}, "iff": {3, 3}, "negative": {1, 1}, "positive": {1, 1}, "e": {0, 0}, "pi": {0, 0}, "mod": {2, 2},
	"typeof": {1, 1}, "bround": {1, 2}, "factorial": {1, 1}, "elt": {2, -1}, "find_in_set": {2, 2}, "charindex": {2, 3}, "assert_true": {1, 2}, "sentences": {1, 3},
	"try_add": {2, 2}, "try_subtract": {2, 2}, "try_multiply": {2, 2}, "try_divide": {2, 2}, "try_to_binary": {1, 2},
	"array": {0, -1}, "map": {0, -1}, "named_struct": {2, -1}, "array_join": {2, 3}, "array_position": {2, 2},
	"array_remove": {2, 2}, "array_distinct": {1, 1}, "array_union": {2, 2}, "array_intersect": {2, 2}, "array_except": {2, 2},
	"arrays_overlap": {2, 2}, "array_max": {1, 1}, "array_min": {1, 1}, "array_repeat": {2, 2}, "slice": {3, 3},
	"sort_array": {1, 2}, "array_sort": {1, 2}, "flatten": {1, 1}, "sequence": {2, 3}, "array_size": {1, 1},
	"array_compact": {1, 1}, "array_append": {2, 2}, "array_prepend": {2, 2}, "array_insert": {3, 3}, "arrays_zip": {1, -1},
	"map_concat": {0, -1}, "map_entries": {1, 1}, "map_from_arrays": {2, 2}, "map_from_entries": {1, 1},
	"transform": {2, 2}, "filter": {2, 2}, "exists": {2, 2}, "forall": {2, 2}, "aggregate": {3, 4}, "reduce": {3, 4},
	"zip_with": {3, 3}, "transform_keys": {2, 2}, "transform_values": {2, 2}, "map_filter": {2, 2}, "map_zip_with": {3, 3},
	"format_string": {1, -1}, "printf": {1, -1}, "to_number": {2, 2}, "try_to_number": {2, 2},
	"current_date": {0, 0}, "current_timestamp": {0, 0}, "now": {0, 0},
}

func functionNames() string {
	names := make([]string, 0, len(functions))
	for n := range functions {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func (b *binder) call(e *Call) (node, error) {
	ar, ok := functions[e.Name]
	if refusedMath[e.Name] {
		return nil, errAt(e, "%s is not supported: Spark computes it with java.lang.Math or StrictMath, whose last bit this engine does not reproduce", e.Name)
	}
	if !ok {
		return nil, errAt(e, "unknown or unsupported function %s (supported: %s)", e.Name, functionNames())
	}
	if len(e.Args) < ar[0] || ar[1] >= 0 && len(e.Args) > ar[1] {
		want := fmt.Sprint(ar[0])
		switch {
		case ar[1] < 0:
			want = fmt.Sprintf("at least %d", ar[0])
		case ar[1] != ar[0]:
			want = fmt.Sprintf("%d to %d", ar[0], ar[1])
		}
		return nil, errAt(e, "%s takes %s argument(s), got %d", e.Name, want, len(e.Args))
	}
	if unitCall(e) || e.Name == "to_date" && len(e.Args) == 2 {
		return b.bindTimeFunc(e)
	}
	args := make([]node, len(e.Args))
	var err error
	for _, f := range families {
		if f.binds[e.Name] {
			return f.bind(b, e)
		}
	}
	if strFuncs[e.Name] {
		return b.bindStrFunc(e)
	}
	if moreFuncs[e.Name] {
		return b.bindMoreFunc(e)
	}
	if hashFuncs[e.Name] {
		return b.bindHashFunc(e)
	}
	if e.Name == "from_utc_timestamp" || e.Name == "to_utc_timestamp" {
		return b.bindZoneFunc(e)
	}
	switch e.Name {
	case "from_unixtime", "unix_timestamp", "to_unix_timestamp", "to_timestamp", "months_between", "make_date", "next_day":
		return b.bindTimeFunc(e)
	case "if", "nullif", "greatest", "least":
		return b.conditional(e)
	case "round", "floor", "ceil", "ceiling":
		return b.rounding(e)
	case "date_add", "date_sub", "datediff", "add_months", "dateadd", "date_diff":
		return b.dateFunc(e)
	case "hour", "minute", "second", "date_format", "date_trunc", "trunc":
		return b.bindDatetime(e)
	case "current_date":
		return &lit{v: arrow.Date32(floorDiv(localMicros(b.loc, b.now.UnixMicro()), microsPerDay)), t: tDate, src: e}, nil
	case "current_timestamp", "now":
		return &lit{v: arrow.Timestamp(b.now.UnixMicro()), t: tTimestamp, src: e}, nil
	case "lpad", "rpad":
		if args[0], err = b.stringOperand(e.Args[0]); err != nil {
			return nil, err
		}
		if args[1], err = b.intOperand(e, e.Args[1]); err != nil {
			return nil, err
		}
		if len(e.Args) == 3 {
			if args[2], err = b.stringOperand(e.Args[2]); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
	case "isnull", "isnotnull":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		return b.fold(&isNullN{x: x, not: e.Name == "isnotnull"}, e)
	case "coalesce", "ifnull", "nvl":
		for i, a := range e.Args {
			if args[i], err = b.bind(a); err != nil {
				return nil, err
			}
		}
		if slices.ContainsFunc(args, func(a node) bool { return isNestedType(a.Type()) }) {
			return b.nestedCoalesce(e, args)
		}
		if args, err = b.unify(args, e.Args, e); err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: e.Name, args: args, t: args[0].Type()}, e)
	case "abs":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		if !isNumeric(x.Type()) && !isVoid(x.Type()) {
			return nil, errAt(e, "abs needs a number, not %s", typeName(x.Type()))
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: x.Type()}, e)
	case "date", "to_date", "year", "month", "day", "dayofmonth", "dayofyear", "quarter", "dayofweek", "weekday", "weekofyear", "last_day":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		t := x.Type()
		if !isString(t) && !isType(t, schema.Date) && !isTimestamp(t) && !isVoid(t) {
			return nil, errAt(e, "%s needs a date, timestamp or string, not %s", e.Name, typeName(t))
		}
		rt := tInt
		if e.Name == "date" || e.Name == "to_date" || e.Name == "last_day" {
			rt = tDate
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: rt}, e)
	case "length", "char_length", "character_length":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		if !isType(x.Type(), schema.Binary) {
			if x, err = b.stringOperand(e.Args[0]); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: []node{x}, t: tInt}, e)
	case "substring", "substr":
		if args[0], err = b.stringOperand(e.Args[0]); err != nil {
			return nil, err
		}
		for i := 1; i < len(e.Args); i++ {
			if args[i], err = b.intOperand(e, e.Args[i]); err != nil {
				return nil, err
			}
		}
		return b.fold(&callN{fn: e.Name, args: args, t: tString}, e)
	}
	// String functions: every argument a string.
	for i, a := range e.Args {
		if args[i], err = b.stringOperand(a); err != nil {
			return nil, err
		}
	}
	t := tString
	switch e.Name {
	case "startswith", "endswith", "contains":
		t = tBool
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// intOperand binds an argument Spark takes as an INT through an implicit
// cast (ImplicitCastInputTypes): any number or text, cast as ANSI mode casts
// it, so a BIGINT out of range, NaN or text that is not an integer fails.
func (b *binder) intOperand(fn *Call, e Expr) (node, error) {
	return b.castOperand(fn, e, tInt)
}

// castOperand binds an argument Spark casts implicitly to t, a number.
func (b *binder) castOperand(fn *Call, e Expr, t schema.Type) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	switch nt := n.Type(); {
	case sameType(nt, t) || isVoid(nt):
		return b.coerce(n, t, e)
	case !isNumeric(nt) && !isString(nt):
		return nil, errAt(e, "%s takes a number here (cast to %s), not %s (%s)", fn.Name, typeName(t), e, typeName(nt))
	}
	// A cast, not a coercion: a fraction truncates, as Spark's does.
	return b.fold(&castN{x: n, t: t, implicit: true}, e)
}

// narrowIntOperand binds an argument Spark takes only as an INT, SMALLINT
// or TINYINT (element_at's index; date_add's days, which also takes text).
func (b *binder) narrowIntOperand(fn *Call, e Expr, text bool) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	if t := n.Type(); integralRank(t) > integralRank(tInt) || !isIntegral(t) && !isVoid(t) && !(text && isString(t)) {
		return nil, errAt(e, "%s takes an INT here, not %s (%s); CAST it AS INT", fn.Name, e, typeName(t))
	}
	return b.coerce(n, tInt, e)
}

// dateOperand binds an argument that a date function takes: a date, or a
// string or timestamp cast to one.
func (b *binder) dateOperand(fn *Call, e Expr) (node, error) {
	n, err := b.bind(e)
	if err != nil {
		return nil, err
	}
	t := n.Type()
	switch {
	case isType(t, schema.Date):
		return n, nil
	case isVoid(t):
		return b.coerce(n, tDate, e)
	case isString(t) || isTimestamp(t):
		if l, ok := n.(*lit); ok {
			return b.coerce(l, tDate, e)
		}
		return &castN{x: n, t: tDate, implicit: true}, nil
	}
	return nil, errAt(e, "%s needs a date, timestamp or string, not %s (%s)", fn.Name, e, typeName(t))
}

func (b *binder) dateFunc(e *Call) (node, error) {
	// dateadd and date_diff are Spark's other names of date_add and
	// datediff.
	switch e.Name {
	case "dateadd":
		e = &Call{Name: "date_add", Args: e.Args, At: e.At}
	case "date_diff":
		e = &Call{Name: "datediff", Args: e.Args, At: e.At}
	}
	d, err := b.dateOperand(e, e.Args[0])
	if err != nil {
		return nil, err
	}
	var k node
	if e.Name == "datediff" {
		k, err = b.dateOperand(e, e.Args[1])
	} else if e.Name == "add_months" {
		k, err = b.intOperand(e, e.Args[1])
	} else {
		k, err = b.narrowIntOperand(e, e.Args[1], true)
	}
	if err != nil {
		return nil, err
	}
	t := tDate
	if e.Name == "datediff" {
		t = tInt
	}
	return b.fold(&callN{fn: e.Name, args: []node{d, k}, t: t}, e)
}

func (ev *evaluator) function(n *callN) (value, error) {
	args := make([]value, 0, len(n.args))
	defer func() {
		for _, a := range args {
			a.release()
		}
	}()
	for _, a := range n.args {
		v, err := ev.eval(a)
		if err != nil {
			return value{}, err
		}
		args = append(args, v)
	}
	for _, f := range families {
		if f.evals[n.fn] {
			return f.eval(ev, n, args)
		}
	}
	if strFuncs[n.fn] {
		return ev.strFunction(n, args)
	}
	if moreFuncs[n.fn] {
		return ev.moreFunction(n, args)
	}
	if hashFuncs[n.fn] {
		return ev.hashFunction(n, args)
	}
	if n.fn == "from_utc_timestamp" || n.fn == "to_utc_timestamp" {
		return ev.zoneFunction(n, args)
	}
	switch n.fn {
	case "lower", "lcase":
		return ev.stringMap(args[0], strings.ToLower)
	case "upper", "ucase":
		return ev.stringMap(args[0], strings.ToUpper)
	case "length", "char_length", "character_length":
		binary := isType(n.args[0].Type(), schema.Binary)
		return ev.mapRows(args, tInt, true, func(v []any) (any, error) {
			if binary {
				return int32(len(v[0].([]byte))), nil
			}
			return int32(utf8.RuneCountInString(v[0].(string))), nil
		})
	case "coalesce", "ifnull", "nvl":
		if isNestedType(n.t) {
			return ev.collectionFunction(n, args)
		}
		return ev.mapRows(args, n.t, false, func(v []any) (any, error) {
			for _, x := range v {
				if x != nil {
					return x, nil
				}
			}
			return nil, nil
		})
	case "abs":
		if isDecimal(n.t) {
			return ev.mapRows(args, n.t, true, func(v []any) (any, error) { return v[0].(decimal128.Num).Abs(), nil })
		}
		if isVoid(n.t) {
			return value{sc: scalar.MakeNullScalar(arrow.Null)}, nil
		}
		v, err := ev.call("abs", nil, args[0])
		if err != nil {
			return value{}, errs.New(errs.InvalidArgument, "", "abs overflows %s", typeName(n.t))
		}
		return v, nil
	case "substring", "substr":
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			length := int64(math.MaxInt32)
			if len(v) > 2 {
				length = int64(v[2].(int32))
			}
			return substringSQL(v[0].(string), int64(v[1].(int32)), length), nil
		})
	case "date", "to_date":
		if len(n.args) == 2 {
			return ev.timeFunction(n, args)
		}
		from := n.args[0].Type()
		return ev.mapRows(args, tDate, true, func(v []any) (any, error) { return castValue(v[0], from, tDate, ev.loc) })
	case "year", "month", "day", "dayofmonth", "dayofyear", "quarter", "dayofweek", "weekday", "weekofyear", "last_day":
		from := n.args[0].Type()
		return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
			d, err := castValue(v[0], from, tDate, ev.loc)
			if err != nil {
				return nil, err
			}
			return datePart(n.fn, int32(d.(arrow.Date32))), nil
		})
	case "greatest", "least":
		return ev.extreme(n, args)
	case "round", "floor", "ceil", "ceiling":
		from := n.args[0].Type()
		return ev.mapRows(args[:1], n.t, true, func(v []any) (any, error) { return roundValue(n.fn, v[0], from, n.t, n.scale) })
	case "date_add", "date_sub":
		return ev.dateArith(n.fn == "date_sub", args[0], args[1])
	case "add_months":
		return ev.mapRows(args, tDate, true, func(v []any) (any, error) {
			return arrow.Date32(addMonths(int32(v[0].(arrow.Date32)), v[1].(int32))), nil
		})
	case "hour", "minute", "second", "date_format", "date_trunc", "trunc":
		return ev.datetimeFunction(n, args)
	case "from_unixtime", "unix_timestamp", "to_unix_timestamp", "to_timestamp", "months_between", "make_date",
		"next_day", "timestampadd", "timestampdiff":
		return ev.timeFunction(n, args)
	case "datediff":
		return ev.mapRows(args, tInt, true, func(v []any) (any, error) {
			return int32(v[0].(arrow.Date32) - v[1].(arrow.Date32)), nil
		})
	case "replace":
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			with := ""
			if len(v) > 2 {
				with = v[2].(string)
			}
			if v[1].(string) == "" {
				return v[0], nil
			}
			return strings.ReplaceAll(v[0].(string), v[1].(string), with), nil
		})
	case "lpad", "rpad":
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			pad := " "
			if len(v) > 2 {
				pad = v[2].(string)
			}
			return padString(v[0].(string), int(v[1].(int32)), pad, n.fn == "lpad"), nil
		})
	case "startswith", "endswith", "contains":
		return ev.mapRows(args, tBool, true, func(v []any) (any, error) {
			s, p := v[0].(string), v[1].(string)
			switch n.fn {
			case "startswith":
				return strings.HasPrefix(s, p), nil
			case "endswith":
				return strings.HasSuffix(s, p), nil
			}
			return strings.Contains(s, p), nil
		})
	}
	return value{}, fmt.Errorf("function %s cannot be evaluated", n.fn)
}

// stringMap applies f to every non-null string.
func (ev *evaluator) stringMap(x value, f func(string) string) (value, error) {
	if x.arr == nil {
		v := scalarGo(x.sc)
		if s, ok := v.(string); ok {
			v = f(s)
		}
		sc, err := makeScalar(v, tString)
		return value{sc: sc}, err
	}
	in := x.arr.(*array.String)
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	b.Reserve(in.Len())
	b.ReserveData(len(in.ValueBytes()))
	for i := 0; i < in.Len(); i++ {
		if in.IsNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(f(in.Value(i)))
	}
	return value{arr: b.NewArray()}, nil
}

// padString is Spark's lpad / rpad: s cut to n characters, or filled to
// n characters with pad repeated (on the left for lpad); with an empty pad
// s is only cut.
func padString(s string, n int, pad string, left bool) string {
	rs := []rune(s)
	if n <= 0 {
		return ""
	}
	if len(rs) >= n || pad == "" {
		return string(rs[:min(n, len(rs))])
	}
	pr := []rune(pad)
	fill := make([]rune, n-len(rs))
	for i := range fill {
		fill[i] = pr[i%len(pr)]
	}
	if left {
		return string(fill) + s
	}
	return s + string(fill)
}

// substringSQL is Spark's substring: 1-based, 0 counts as 1, a negative
// position counts from the end, lengths in characters.
func substringSQL(s string, pos, length int64) string {
	start, end := sqlRange(int64(utf8.RuneCountInString(s)), pos, length)
	if start >= end {
		return ""
	}
	var sb strings.Builder
	var k int64
	for _, r := range s {
		if k >= end {
			break
		}
		if k >= start {
			sb.WriteRune(r)
		}
		k++
	}
	return sb.String()
}
