package expr

import (
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// extract(FIELD FROM x) and date_part('field', x), as Spark's DatePart
// reads the field: each field is the function that computes it (year,
// month, day, hour, ...), so each has one home; YEAROFWEEK and SECOND's
// fraction are computed here.

// extractFields maps each field name Spark accepts (upper case) to the
// function computing it.
var extractFields = map[string]string{
	"YEAR": "year", "Y": "year", "YEARS": "year", "YR": "year", "YRS": "year",
	"YEAROFWEEK": "yearofweek",
	"QUARTER":    "quarter", "QTR": "quarter",
	"MONTH": "month", "MON": "month", "MONS": "month", "MONTHS": "month",
	"WEEK": "weekofyear", "W": "weekofyear", "WEEKS": "weekofyear",
	"DAY": "day", "D": "day", "DAYS": "day",
	"DAYOFWEEK": "dayofweek", "DOW": "dayofweek",
	"DAYOFWEEK_ISO": "dayofweek_iso", "DOW_ISO": "dayofweek_iso",
	"DOY":  "dayofyear",
	"HOUR": "hour", "H": "hour", "HOURS": "hour", "HR": "hour", "HRS": "hour",
	"MINUTE": "minute", "M": "minute", "MIN": "minute", "MINS": "minute", "MINUTES": "minute",
	"SECOND": "second", "S": "second", "SEC": "second", "SECONDS": "second", "SECS": "second",
}

// tSecond is the type of extract(SECOND FROM x): seconds with their
// microseconds.
var tSecond = &schema.Decimal{Precision: 8, Scale: 6}

// bindExtract binds extract (whose first argument is the field as a
// name) and date_part (a string literal).
func (b *binder) bindExtract(e *Call) (node, error) {
	var field string
	if e.Name == "extract" {
		c, ok := e.Args[0].(*Column)
		if !ok || len(c.Parts) != 1 {
			return nil, errAt(e.Args[0], "extract takes a field name first, as in extract(YEAR FROM ts), not %s", e.Args[0])
		}
		field = c.Parts[0]
	} else {
		f, err := b.constString(e, e.Args[0], "field")
		if err != nil {
			return nil, err
		}
		if f == nil {
			return nil, errAt(e.Args[0], "%s takes a field name, not NULL", e.Name)
		}
		field = *f
	}
	fn, ok := extractFields[strings.ToUpper(field)]
	if !ok {
		return nil, errAt(e.Args[0], "cannot extract %q: the fields are YEAR, YEAROFWEEK, QUARTER, MONTH, WEEK, DAY, DAYOFWEEK, DAYOFWEEK_ISO, DOY, HOUR, MINUTE, SECOND and their abbreviations", field)
	}
	x := e.Args[1]
	n, err := b.bind(x)
	if err != nil {
		return nil, err
	}
	if t := n.Type(); !isString(t) && !isType(t, schema.Date) && !isTimestamp(t) && !isVoid(t) {
		return nil, errAt(x, "%s needs a date, timestamp or string, not %s (%s)", e.Name, x, typeName(t))
	}
	call := func(name string) *Call { return &Call{At: e.At, Name: name, Args: []Expr{x}} }
	switch fn {
	case "dayofweek_iso":
		return b.bind(&Binary{At: e.At, Op: Add, L: call("weekday"), R: &Literal{At: e.At, Kind: LitNumber, Text: "1"}})
	case "yearofweek":
		d, err := b.dateOperand(e, x)
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: "yearofweek", args: []node{d}, t: tInt}, e)
	case "second":
		sec, err := b.bind(call("second"))
		if err != nil {
			return nil, err
		}
		ts, err := b.timestampOperand(e, x)
		if err != nil {
			return nil, err
		}
		return b.fold(&callN{fn: "second_fraction", args: []node{sec, ts}, t: tSecond}, e)
	}
	return b.bind(call(fn))
}

// extractFunction evaluates the functions bindExtract adds.
func (ev *evaluator) extractFunction(n *callN, args []value) (value, error) {
	return ev.mapRows(args, n.t, true, func(v []any) (any, error) {
		if n.fn == "yearofweek" {
			y, _ := time.Unix(int64(v[0].(arrow.Date32))*86400, 0).UTC().ISOWeek()
			return int32(y), nil
		}
		// second_fraction: the second of the minute and the
		// microseconds of the second, which no offset changes.
		us := int64(v[1].(arrow.Timestamp))
		frac := us % 1_000_000
		if frac < 0 {
			frac += 1_000_000
		}
		return decimal128.FromI64(int64(v[0].(int32))*1_000_000 + frac), nil
	})
}
