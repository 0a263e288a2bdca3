package expr

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/schema"
)

func TestSmoke(t *testing.T) {
	sc, err := schema.Parse(`{"type":"struct","fields":[{"name":"day","type":"date","nullable":true,"metadata":{}},{"name":"id","type":"long","nullable":true,"metadata":{}},{"name":"name","type":"string","nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	b.Field(0).(*array.Date32Builder).AppendValues([]arrow.Date32{20454, 20455, 0}, []bool{true, true, false})
	b.Field(1).(*array.Int64Builder).AppendValues([]int64{1, 2, 3}, nil)
	b.Field(2).(*array.StringBuilder).AppendValues([]string{"alpha", "beta", "gamma"}, nil)
	rec := b.NewRecordBatch()
	for _, src := range []string{
		`day = "2026-01-01"`, `id > 1 AND name LIKE '%a'`, `id IN (1, 3, NULL)`, `id BETWEEN 2 AND 3`,
		`upper(name) = 'BETA' OR day IS NULL`, `id + 1 > 2.5`, `id / 2 = 0.5`, `coalesce(day, DATE '2000-01-01') < '2026-01-02'`,
		`NOT (id <=> 2)`, `substring(name, 2, 2) = 'et'`, `cast(id as string) = '3'`, `year(day) = 2026`,
	} {
		p, err := ParsePredicate(src, sc)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		m, err := Mask(context.Background(), rec, p)
		if err != nil {
			t.Errorf("%s: %v", src, err)
			continue
		}
		t.Logf("%-60s -> %-60s %v", src, p, m)
	}
}
