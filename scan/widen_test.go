package scan

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestWidenedTypesReadOldFiles reads a file written before each type
// change Delta's type widening allows as the wider type, with its physical
// types as Spark writes them (byte and short as annotated INT32, decimals
// up to 18 digits as INT32 / INT64): every value reads exactly, nulls stay
// null.
func TestWidenedTypesReadOldFiles(t *testing.T) {
	dir := t.TempDir()
	fileSchema := arrow.NewSchema([]arrow.Field{
		{Name: "b", Type: arrow.PrimitiveTypes.Int8, Nullable: true},
		{Name: "s", Type: arrow.PrimitiveTypes.Int16, Nullable: true},
		{Name: "i", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		{Name: "l", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "f", Type: arrow.PrimitiveTypes.Float32, Nullable: true},
		{Name: "d", Type: arrow.FixedWidthTypes.Date32, Nullable: true},
		{Name: "d4", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}, Nullable: true},
		{Name: "d8", Type: &arrow.Decimal128Type{Precision: 18, Scale: 2}, Nullable: true},
	}, nil)
	add := writeParquetWith(t, dir, "old.parquet", fileSchema, `[
		{"b": -128, "s": -32768, "i": -2147483648, "l": -9223372036854775808, "f": 1.5, "d": -719162, "d4": "-9999999.99", "d8": "-9999999999999999.99"},
		{"b": 127, "s": 32767, "i": 2147483647, "l": 9223372036854775807, "f": -0.25, "d": 19783, "d4": "1234567.89", "d8": "1.01"},
		{"b": null, "s": null, "i": null, "l": null, "f": null, "d": null, "d4": null, "d8": null}
	]`, parquet.NewWriterProperties(parquet.WithStoreDecimalAsInteger(true)), pqarrow.DefaultWriterProps())
	for _, c := range []struct {
		col, to string
		want    string
	}{
		{"b", "short", "-128 127 null"}, {"b", "integer", "-128 127 null"}, {"b", "long", "-128 127 null"},
		{"b", "double", "-128 127 null"}, {"b", "decimal(10,0)", "-128 127 null"}, {"b", "decimal(12,2)", "-128 127 null"},
		{"s", "integer", "-32768 32767 null"}, {"s", "long", "-32768 32767 null"}, {"s", "double", "-32768 32767 null"},
		{"s", "decimal(10,0)", "-32768 32767 null"},
		{"i", "long", "-2147483648 2147483647 null"}, {"i", "double", "-2.147483648e+09 2.147483647e+09 null"},
		{"i", "decimal(10,0)", "-2147483648 2147483647 null"}, {"i", "decimal(13,3)", "-2147483648 2147483647 null"},
		{"l", "decimal(20,0)", "-9223372036854775808 9223372036854775807 null"},
		{"l", "decimal(38,18)", "-9223372036854775808 9223372036854775807 null"},
		{"f", "double", "-0.25 1.5 null"},
		{"d", "timestamp_ntz", "0001-01-01T00:00:00.000000Z 2024-03-01T00:00:00.000000Z null"},
		{"d4", "decimal(18,2)", "-9999999.99 1234567.89 null"}, {"d4", "decimal(10,3)", "-9999999.99 1234567.89 null"},
		{"d4", "decimal(38,10)", "-9999999.99 1234567.89 null"},
		{"d8", "decimal(20,2)", "-9999999999999999.99 1.01 null"}, {"d8", "decimal(21,3)", "-9999999999999999.99 1.01 null"},
	} {
		table := parseSchema(t, fmt.Sprintf(`{"name":%q,"type":%q,"nullable":true,"metadata":{}}`, c.col, c.to))
		if got := strings.Join(values(t, localSource(t, dir, table, add), c.col), " "); got != c.want {
			t.Errorf("%s as %s: %s, want %s", c.col, c.to, got, c.want)
		}
	}
}
