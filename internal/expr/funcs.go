package expr

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
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
	"trim": {1, 1}, "ltrim": {1, 1}, "rtrim": {1, 1},
	"length": {1, 1}, "char_length": {1, 1}, "character_length": {1, 1},
	"coalesce": {1, -1}, "ifnull": {2, 2}, "nvl": {2, 2},
	"abs":       {1, 1},
	"substring": {2, 3}, "substr": {2, 3},
	"concat": {1, -1},
	"date":   {1, 1}, "to_date": {1, 1},
	"year": {1, 1}, "month": {1, 1}, "day": {1, 1}, "dayofmonth": {1, 1},
	"isnull": {1, 1}, "isnotnull": {1, 1},
	"startswith": {2, 2}, "endswith": {2, 2}, "contains": {2, 2},
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
	args := make([]node, len(e.Args))
	var err error
	switch e.Name {
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
	case "date", "to_date", "year", "month", "day", "dayofmonth":
		x, err := b.bind(e.Args[0])
		if err != nil {
			return nil, err
		}
		t := x.Type()
		if !isString(t) && !isType(t, schema.Date) && !isTimestamp(t) && !isVoid(t) {
			return nil, errAt(e, "%s needs a date, timestamp or string, not %s", e.Name, typeName(t))
		}
		rt := tInt
		if e.Name == "date" || e.Name == "to_date" {
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
			n, err := b.bind(e.Args[i])
			if err != nil {
				return nil, err
			}
			if !isIntegral(n.Type()) && !isVoid(n.Type()) {
				return nil, errAt(e.Args[i], "%s takes integer positions, not %s", e.Name, typeName(n.Type()))
			}
			if args[i], err = b.coerce(n, tInt, e.Args[i]); err != nil {
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
	switch n.fn {
	case "lower", "lcase":
		return ev.stringMap(args[0], strings.ToLower)
	case "upper", "ucase":
		return ev.stringMap(args[0], strings.ToUpper)
	case "trim":
		return ev.stringMap(args[0], func(s string) string { return strings.Trim(s, " ") })
	case "ltrim":
		return ev.stringMap(args[0], func(s string) string { return strings.TrimLeft(s, " ") })
	case "rtrim":
		return ev.stringMap(args[0], func(s string) string { return strings.TrimRight(s, " ") })
	case "length", "char_length", "character_length":
		binary := isType(n.args[0].Type(), schema.Binary)
		return ev.mapRows(args, tInt, true, func(v []any) (any, error) {
			if binary {
				return int32(len(v[0].([]byte))), nil
			}
			return int32(utf8.RuneCountInString(v[0].(string))), nil
		})
	case "coalesce", "ifnull", "nvl":
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
	case "concat":
		return ev.mapRows(args, tString, true, func(v []any) (any, error) {
			var sb strings.Builder
			for _, x := range v {
				sb.WriteString(x.(string))
			}
			return sb.String(), nil
		})
	case "date", "to_date":
		from := n.args[0].Type()
		return ev.mapRows(args, tDate, true, func(v []any) (any, error) { return castValue(v[0], from, tDate) })
	case "year", "month", "day", "dayofmonth":
		from := n.args[0].Type()
		return ev.mapRows(args, tInt, true, func(v []any) (any, error) {
			d, err := castValue(v[0], from, tDate)
			if err != nil {
				return nil, err
			}
			tm := time.Unix(int64(d.(arrow.Date32))*86400, 0).UTC()
			switch n.fn {
			case "year":
				return int32(tm.Year()), nil
			case "month":
				return int32(tm.Month()), nil
			}
			return int32(tm.Day()), nil
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

// substringSQL is Spark's substring: 1-based, 0 counts as 1, a negative
// position counts from the end, lengths in characters.
func substringSQL(s string, pos, length int64) string {
	n := int64(utf8.RuneCountInString(s))
	var start int64
	switch {
	case pos > 0:
		start = pos - 1
	case pos < 0:
		start = n + pos
	}
	end := start + length
	start = max(start, 0)
	if start >= end {
		return ""
	}
	end = min(end, n)
	if start >= n {
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
