package checkpoint

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// writeTestParquet writes rows (JSON, one object per line) of the given
// Arrow schema as a Parquet file in a memory store, in row groups of
// rowGroup rows.
func writeTestParquet(t *testing.T, key string, sc *arrow.Schema, rows string, rowGroup int64) *storage.Memory {
	t.Helper()
	rec, _, err := array.RecordFromJSON(memory.DefaultAllocator, sc, strings.NewReader("["+strings.Join(strings.Split(strings.TrimSpace(rows), "\n"), ",")+"]"))
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Release()
	var buf bytes.Buffer
	props := parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup))
	fw, err := pqarrow.NewFileWriter(sc, &buf, props, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
	st := storage.NewMemory()
	if err := st.Put(context.Background(), key, &buf); err != nil {
		t.Fatal(err)
	}
	return st
}

// A checkpoint that keeps partition values and stats only in their typed
// forms reads back with the log's string forms: dates, UTC and local
// timestamps at every unit, decimals, floats (non-finite too), nested
// structs, nulls left out.
func TestReadParsedOnlyColumns(t *testing.T) {
	ts := func(u arrow.TimeUnit, tz string) arrow.DataType { return &arrow.TimestampType{Unit: u, TimeZone: tz} }
	minMax := arrow.StructOf(
		nullable("f", arrow.PrimitiveTypes.Float64),
		nullable("f32", arrow.PrimitiveTypes.Float32),
		nullable("utc", ts(arrow.Nanosecond, "UTC")),
		nullable("ntz", ts(arrow.Microsecond, "")),
		nullable("ms", ts(arrow.Millisecond, "UTC")),
		nullable("d", arrow.FixedWidthTypes.Date32),
		nullable("dec", &arrow.Decimal128Type{Precision: 10, Scale: 2}),
		nullable("s", arrow.BinaryTypes.String),
		nullable("nested", arrow.StructOf(nullable("x", arrow.PrimitiveTypes.Int16), nullable("y", arrow.BinaryTypes.String))),
	)
	sc := arrow.NewSchema([]arrow.Field{
		nullable("add", arrow.StructOf(
			nullable("path", arrow.BinaryTypes.String),
			nullable("size", arrow.PrimitiveTypes.Int64),
			nullable("modificationTime", arrow.PrimitiveTypes.Int64),
			nullable("dataChange", arrow.FixedWidthTypes.Boolean),
			nullable("stats", arrow.BinaryTypes.String),
			nullable(pvParsedCol, arrow.StructOf(
				nullable("day", arrow.FixedWidthTypes.Date32),
				nullable("at", ts(arrow.Microsecond, "UTC")),
				nullable("local", ts(arrow.Microsecond, "")),
				nullable("amount", &arrow.Decimal128Type{Precision: 10, Scale: 2}),
				nullable("n", arrow.PrimitiveTypes.Int32),
				nullable("flag", arrow.FixedWidthTypes.Boolean),
				nullable("ratio", arrow.PrimitiveTypes.Float64),
				nullable("name", arrow.BinaryTypes.String),
			)),
			nullable(statsParsedCol, arrow.StructOf(
				nullable("numRecords", arrow.PrimitiveTypes.Int64),
				nullable("minValues", minMax),
				nullable("maxValues", minMax),
				nullable("nullCount", arrow.StructOf(nullable("f", arrow.PrimitiveTypes.Int64), nullable("nested", arrow.StructOf(nullable("x", arrow.PrimitiveTypes.Int64))))),
				nullable("tightBounds", arrow.FixedWidthTypes.Boolean),
			)),
		)),
		nullable("protocol", arrow.StructOf(
			nullable("minReaderVersion", arrow.PrimitiveTypes.Int32),
			nullable("minWriterVersion", arrow.PrimitiveTypes.Int32),
		)),
	}, nil)
	rows := `
{"protocol":{"minReaderVersion":1,"minWriterVersion":2}}
{"add":{"path":"a.parquet","size":10,"modificationTime":7,"dataChange":false,"partitionValues_parsed":{"day":"2021-02-03","at":"2021-09-08T11:11:11.5Z","local":"2021-09-08T11:11:11","amount":"12.30","n":-4,"flag":true,"ratio":0.5,"name":"x y"},"stats_parsed":{"numRecords":3,"minValues":{"f":1.5,"f32":0.1,"utc":"2022-10-24T22:59:36.177123Z","ntz":"2022-10-24T22:59:36","ms":"1970-01-01T00:00:00.001Z","d":"2022-10-24","dec":"-5.67","s":"a\"b","nested":{"x":-2}},"maxValues":{"f":"NaN","f32":"+Inf","utc":"2200-12-31T23:59:59.999Z","dec":"1234.00","nested":{"x":null,"y":null}},"nullCount":{"f":0,"nested":{"x":1}},"tightBounds":true}}}
{"add":{"path":"b.parquet","size":11,"modificationTime":8,"dataChange":false,"stats":"{\"numRecords\":9}","partitionValues_parsed":{"day":null,"at":null,"local":null,"amount":null,"n":null,"flag":null,"ratio":null,"name":null},"stats_parsed":{"numRecords":1}}}
{"add":{"path":"c.parquet","size":12,"modificationTime":9,"dataChange":false}}
`
	const key = "_delta_log/00000000000000000001.checkpoint.parquet"
	// One row group per row as well, so that the typed columns are read
	// by a reader positioned afresh in each group.
	for _, rg := range []int64{1 << 20, 1} {
		st := writeTestParquet(t, key, sc, rows, rg)
		var adds []*protocol.Add
		err := readStore(context.Background(), st, []storage.ObjectInfo{{Key: key}}, func(a protocol.Action) error {
			if a.Add != nil {
				adds = append(adds, a.Add)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(adds) != 3 {
			t.Fatalf("%d adds", len(adds))
		}
		wantPV := map[string]string{"day": "2021-02-03", "at": "2021-09-08T11:11:11.500000Z", "local": "2021-09-08 11:11:11.000000",
			"amount": "12.30", "n": "-4", "flag": "true", "ratio": "0.5", "name": "x y"}
		if got := adds[0].PartitionValues; !equalMaps(got, wantPV) {
			t.Errorf("partition values %v, want %v", got, wantPV)
		}
		wantStats := `{"numRecords":3,"minValues":{"f":1.5,"f32":0.1,"utc":"2022-10-24T22:59:36.177123Z","ntz":"2022-10-24T22:59:36.000","ms":"1970-01-01T00:00:00.001Z","d":"2022-10-24","dec":-5.67,"s":"a\"b","nested":{"x":-2}},"maxValues":{"f":"NaN","f32":"Infinity","utc":"2200-12-31T23:59:59.999Z","dec":1234.00},"nullCount":{"f":0,"nested":{"x":1}},"tightBounds":true}`
		if adds[0].Stats != wantStats {
			t.Errorf("stats\n got %s\nwant %s", adds[0].Stats, wantStats)
		}
		// JSON stats win over the typed ones; null partition values are "".
		if adds[1].Stats != `{"numRecords":9}` {
			t.Errorf("stats %s", adds[1].Stats)
		}
		if got := adds[1].PartitionValues; len(got) != 8 || got["day"] != "" || got["name"] != "" {
			t.Errorf("null partition values %v", got)
		}
		if adds[2].Stats != "" || len(adds[2].PartitionValues) != 0 || adds[2].PartitionValues == nil {
			t.Errorf("add without stats: %+v", adds[2])
		}
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
