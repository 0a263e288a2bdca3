package datafile

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// allTypes is a table with a column of every Delta type.
var allTypes = fields(
	"b byte", "s short", "i integer", "l long not null", "f float", "d double",
	"dec decimal(10,2)", "big decimal(38,6)", "ok boolean", "str string", "bin binary",
	"day date", "ts timestamp", "ntz timestamp_ntz",
	`st {"type":"struct","fields":[{"name":"x","type":"integer","nullable":true,"metadata":{}},{"name":"inner","type":{"type":"struct","fields":[{"name":"y","type":"string","nullable":false,"metadata":{}}]},"nullable":true,"metadata":{}},{"name":"nothing","type":"void","nullable":true,"metadata":{}}]}`,
	`arr {"type":"array","elementType":"long","containsNull":true}`,
	`arrs {"type":"array","elementType":{"type":"struct","fields":[{"name":"z","type":"double","nullable":true,"metadata":{}}]},"containsNull":true}`,
	`m {"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true}`,
	"v void", "var variant",
)

const allTypesRows = `[
{"b":1,"s":-2,"i":3,"l":4,"f":1.5,"d":-2.25,"dec":"12.34","big":"-123456789012345678901234567890.123456","ok":true,"str":"héllo","bin":"AAEC","day":"2024-02-29","ts":"2024-01-02T03:04:05.123456Z","ntz":"1999-12-31T23:59:59.999999","st":{"x":7,"inner":{"y":"deep"},"nothing":null},"arr":[1,null,3],"arrs":[{"z":0.5},null],"m":[{"key":"a","value":1},{"key":"b","value":null}],"v":null,"var":{"value":"DA==","metadata":"AQAA"}},
{"b":null,"s":null,"i":null,"l":-9223372036854775808,"f":null,"d":null,"dec":null,"big":null,"ok":null,"str":null,"bin":null,"day":null,"ts":null,"ntz":null,"st":null,"arr":null,"arrs":null,"m":null,"v":null,"var":null},
{"b":-128,"s":32767,"i":-2147483648,"l":9223372036854775807,"f":-0.0,"d":1e300,"dec":"-0.01","big":"0.000001","ok":false,"str":"","bin":"","day":"1970-01-01","ts":"1960-06-01T00:00:00Z","ntz":"2262-04-11T23:47:16.854775","st":{"x":null,"inner":null,"nothing":null},"arr":[],"arrs":[],"m":[],"v":null,"var":{"value":"AA==","metadata":"AQAA"}}
]`

func TestRoundTripEveryType(t *testing.T) {
	for _, comp := range []string{"", "zstd", "gzip", "lz4", "brotli", "none"} {
		t.Run("codec="+comp, func(t *testing.T) {
			mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
			defer mem.AssertSize(t, 0)
			sc := mustSchema(t, allTypes)
			rec := batch(t, mem, sc, allTypesRows)
			defer rec.Release()
			st := storage.NewMemory()
			adds := writeAll(t, st, Options{Schema: sc, Compression: comp, Allocator: mem, DataChange: true}, rec)
			if len(adds) != 1 {
				t.Fatalf("%d adds, want 1", len(adds))
			}
			if !adds[0].DataChange || adds[0].Size <= 0 || adds[0].ModificationTime <= 0 {
				t.Errorf("add %+v", adds[0])
			}
			got := readRows(t, &addsSource{st: st, sc: sc, files: adds})
			arrowrows.Diff(t, got, arrowrows.Rows(rec))
		})
	}
}

var _ = schema.MappingNone
