// Package arrowrows renders Arrow data as canonical row strings, so that
// tests can compare the content of a table read by this engine with the
// content another engine wrote, as a sorted multiset of rows.
//
// Canonical means independent of physical representation: integers print
// the same whatever their width, decimals by value whatever their precision
// and scale, timestamps as UTC instants in microseconds whatever their unit
// and zone, dictionary-encoded values as their values, string and binary
// kinds alike, map entries sorted by key, and columns and struct fields in
// name order. It is a test helper: it favours clarity over speed and must
// never be used on the read or write path of the engine.
package arrowrows

import (
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite/schema"
)

// Rows renders every row of the batches, sorted. Columns appear as
// "name=value" in name order, so column order does not matter.
func Rows(batches ...arrow.RecordBatch) []string {
	var out []string
	for _, b := range batches {
		out = appendRows(out, b.Schema().Fields(), b.Columns(), int(b.NumRows()))
	}
	sort.Strings(out)
	return out
}

// TableRows renders every row of a table, sorted.
func TableRows(t arrow.Table) []string {
	tr := array.NewTableReader(t, -1)
	defer tr.Release()
	var out []string
	for tr.Next() {
		b := tr.RecordBatch()
		out = appendRows(out, b.Schema().Fields(), b.Columns(), int(b.NumRows()))
	}
	sort.Strings(out)
	return out
}

func appendRows(out []string, fields []arrow.Field, cols []arrow.Array, n int) []string {
	order := nameOrder(fields)
	prefix := make([]string, len(order))
	format := make([]func(int) string, len(order))
	for k, i := range order {
		prefix[k] = fields[i].Name + "="
		if k > 0 {
			prefix[k] = ", " + prefix[k]
		}
		format[k] = formatter(cols[i])
	}
	var sb strings.Builder
	for r := 0; r < n; r++ {
		sb.Reset()
		for k := range order {
			sb.WriteString(prefix[k])
			sb.WriteString(format[k](r))
		}
		out = append(out, sb.String())
	}
	return out
}

func nameOrder(fields []arrow.Field) []int {
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return fields[order[a]].Name < fields[order[b]].Name })
	return order
}

// Value renders the value at row i of arr canonically; nulls are "null".
func Value(arr arrow.Array, i int) string { return formatter(arr)(i) }

// formatter chooses how to render arr once, so that rendering many rows
// does not repeat the type dispatch.
func formatter(arr arrow.Array) func(int) string {
	f := valueFormatter(arr)
	if arr.NullN() == 0 {
		return f
	}
	return func(i int) string {
		if arr.IsNull(i) {
			return "null"
		}
		return f(i)
	}
}

func valueFormatter(arr arrow.Array) func(int) string {
	switch a := arr.(type) {
	case *array.Null:
		return func(int) string { return "null" }
	case *array.Boolean:
		return func(i int) string { return strconv.FormatBool(a.Value(i)) }
	case *array.Int8:
		return func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int16:
		return func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int32:
		return func(i int) string { return strconv.FormatInt(int64(a.Value(i)), 10) }
	case *array.Int64:
		return func(i int) string { return strconv.FormatInt(a.Value(i), 10) }
	case *array.Uint8:
		return func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint16:
		return func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint32:
		return func(i int) string { return strconv.FormatUint(uint64(a.Value(i)), 10) }
	case *array.Uint64:
		return func(i int) string { return strconv.FormatUint(a.Value(i), 10) }
	case *array.Float16:
		return func(i int) string { return formatFloat(float64(a.Value(i).Float32()), 32) }
	case *array.Float32:
		return func(i int) string { return formatFloat(float64(a.Value(i)), 32) }
	case *array.Float64:
		return func(i int) string { return formatFloat(a.Value(i), 64) }
	case *array.Decimal32:
		scale := a.DataType().(*arrow.Decimal32Type).Scale
		return func(i int) string { return decimalString(strconv.FormatInt(int64(a.Value(i)), 10), scale) }
	case *array.Decimal64:
		scale := a.DataType().(*arrow.Decimal64Type).Scale
		return func(i int) string { return decimalString(strconv.FormatInt(int64(a.Value(i)), 10), scale) }
	case *array.Decimal128:
		scale := a.DataType().(*arrow.Decimal128Type).Scale
		return func(i int) string {
			v := a.Value(i)
			if hi, lo := v.HighBits(), v.LowBits(); (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
				return decimalString(strconv.FormatInt(int64(lo), 10), scale) // fits an int64
			}
			return decimalString(v.BigInt().String(), scale)
		}
	case *array.Decimal256:
		scale := a.DataType().(*arrow.Decimal256Type).Scale
		return func(i int) string { return decimalString(a.Value(i).BigInt().String(), scale) }
	case *array.String:
		return func(i int) string { return strconv.Quote(a.Value(i)) }
	case *array.LargeString:
		return func(i int) string { return strconv.Quote(a.Value(i)) }
	case *array.StringView:
		return func(i int) string { return strconv.Quote(a.Value(i)) }
	case *array.Binary:
		return func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.LargeBinary:
		return func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.BinaryView:
		return func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.FixedSizeBinary:
		return func(i int) string { return "0x" + hex.EncodeToString(a.Value(i)) }
	case *array.Date32:
		return func(i int) string { return a.Value(i).ToTime().Format("2006-01-02") }
	case *array.Date64:
		return func(i int) string { return a.Value(i).ToTime().UTC().Format("2006-01-02") }
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return func(i int) string { return instant(int64(a.Value(i)), unit) }
	case *array.Time32:
		unit := a.DataType().(*arrow.Time32Type).Unit
		return func(i int) string { return "time:" + strconv.FormatInt(toMicros(int64(a.Value(i)), unit), 10) }
	case *array.Time64:
		unit := a.DataType().(*arrow.Time64Type).Unit
		return func(i int) string { return "time:" + strconv.FormatInt(toMicros(int64(a.Value(i)), unit), 10) }
	case *array.Struct:
		fields := a.DataType().(*arrow.StructType).Fields()
		order := nameOrder(fields)
		prefix := make([]string, len(order))
		format := make([]func(int) string, len(order))
		for k, j := range order {
			prefix[k] = fields[j].Name + "="
			format[k] = formatter(a.Field(j))
		}
		return func(i int) string {
			parts := make([]string, len(order))
			for k := range order {
				parts[k] = prefix[k] + format[k](i)
			}
			return "{" + strings.Join(parts, ", ") + "}"
		}
	case *array.Map:
		keys, items := formatter(a.Keys()), formatter(a.Items())
		return func(i int) string {
			start, end := a.ValueOffsets(i)
			parts := make([]string, 0, end-start)
			for j := start; j < end; j++ {
				parts = append(parts, keys(int(j))+": "+items(int(j)))
			}
			sort.Strings(parts)
			return "{" + strings.Join(parts, ", ") + "}"
		}
	case array.ListLike:
		vals := formatter(a.ListValues())
		return func(i int) string {
			start, end := a.ValueOffsets(i)
			parts := make([]string, 0, end-start)
			for j := start; j < end; j++ {
				parts = append(parts, vals(int(j)))
			}
			return "[" + strings.Join(parts, ", ") + "]"
		}
	case *array.Dictionary:
		dict := formatter(a.Dictionary())
		return func(i int) string { return dict(a.GetValueIndex(i)) }
	case array.ExtensionArray:
		return formatter(a.Storage())
	}
	return func(i int) string { return fmt.Sprintf("%s(%s)", arr.DataType(), arr.ValueStr(i)) }
}

// decimalString renders an unscaled integer (in decimal digits) ×10^-scale
// with no trailing zeros, so that 1.50 as decimal(3,2) and 1.5 as
// decimal(2,1) print alike.
func decimalString(unscaled string, scale int32) string {
	neg := strings.HasPrefix(unscaled, "-")
	digits := strings.TrimPrefix(unscaled, "-")
	var s string
	switch {
	case scale <= 0:
		if digits != "0" {
			digits += strings.Repeat("0", int(-scale))
		}
		s = digits
	default:
		if len(digits) <= int(scale) {
			digits = strings.Repeat("0", int(scale)-len(digits)+1) + digits
		}
		cut := len(digits) - int(scale)
		s = strings.TrimRight(digits[:cut]+"."+digits[cut:], "0")
		s = strings.TrimSuffix(s, ".")
	}
	if neg && s != "0" {
		s = "-" + s
	}
	return s
}

func formatFloat(f float64, bits int) string {
	if name, ok := schema.NonFiniteName(f); ok {
		return name
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func toMicros(v int64, unit arrow.TimeUnit) int64 {
	switch unit {
	case arrow.Second:
		return v * 1e6
	case arrow.Millisecond:
		return v * 1e3
	case arrow.Nanosecond:
		q := v / 1e3
		if v%1e3 < 0 {
			q-- // floor, so instants before 1970 do not round up
		}
		return q
	}
	return v
}

// instant renders a timestamp as the UTC instant it names, to the
// microsecond, whatever its unit and zone.
func instant(v int64, unit arrow.TimeUnit) string {
	return time.UnixMicro(toMicros(v, unit)).UTC().Format("2006-01-02T15:04:05.000000Z")
}
