package expr

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/schema"
)

// Input batches need not carry the exact Arrow types of the Delta schema:
// other widths, large and view strings, dictionaries and other timestamp
// units are cast to the logical type first.
func TestEvalInputTypes(t *testing.T) {
	sc := mustSchema(t, `{"type":"struct","fields":[
		{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"s","type":"string","nullable":true,"metadata":{}},
		{"name":"ts","type":"timestamp","nullable":true,"metadata":{}}]}`)
	p := mustCompile(t, `id > 1 AND s = 'b' AND ts > '1970-01-01'`, map[string]*schema.Struct{"": sc})
	mem := memory.DefaultAllocator
	ib := array.NewInt32Builder(mem)
	ib.AppendValues([]int32{1, 2, 3}, nil)
	ids := ib.NewArray()
	defer ids.Release()
	tb := array.NewTimestampBuilder(mem, &arrow.TimestampType{Unit: arrow.Nanosecond})
	tb.AppendValues([]arrow.Timestamp{5000, 5000, 0}, nil)
	tss := tb.NewArray()
	defer tss.Release()
	strs := map[string]arrow.Array{}
	lb := array.NewLargeStringBuilder(mem)
	lb.AppendValues([]string{"a", "b", "b"}, nil)
	strs["large_string"] = lb.NewArray()
	vb := array.NewStringViewBuilder(mem)
	vb.AppendValues([]string{"a", "b", "b"}, nil)
	strs["string_view"] = vb.NewArray()
	db := array.NewDictionaryBuilder(mem, &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int8, ValueType: arrow.BinaryTypes.String})
	for _, s := range []string{"a", "b", "b"} {
		if err := db.(*array.BinaryDictionaryBuilder).AppendString(s); err != nil {
			t.Fatal(err)
		}
	}
	strs["dictionary"] = db.NewArray()
	for name, s := range strs {
		defer s.Release()
		schema := arrow.NewSchema([]arrow.Field{{Name: "ID", Type: ids.DataType()}, {Name: "s", Type: s.DataType()}, {Name: "ts", Type: tss.DataType()}}, nil)
		rec := array.NewRecordBatch(schema, []arrow.Array{ids, s, tss}, 3)
		m, err := p.Eval(context.Background(), rec)
		rec.Release()
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got := maskString(m); got != "FTF" {
			t.Errorf("%s: %s", name, got)
		}
		m.Release()
	}
	// A column the batch lacks is named.
	rec := array.NewRecordBatch(arrow.NewSchema([]arrow.Field{{Name: "id", Type: ids.DataType()}}, nil), []arrow.Array{ids}, 3)
	defer rec.Release()
	if _, err := p.Eval(context.Background(), rec); err == nil || !strings.Contains(err.Error(), "no column s") {
		t.Errorf("missing column: %v", err)
	}
}

// A bound predicate is shared by goroutines: evaluation and file decisions
// run concurrently (run with -race).
func TestConcurrentUse(t *testing.T) {
	sc, rec := allTypes(t)
	p := mustCompile(t, `d = '2026-01-01' AND s LIKE 'a%' OR i8 IN (1, 2, 3)`, map[string]*schema.Struct{"": sc})
	fs := stats.Parse(`{"numRecords":1,"minValues":{"i8":5},"maxValues":{"i8":9},"nullCount":{"i8":0}}`, sc, schema.MappingNone)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				m, err := p.Eval(context.Background(), rec)
				if err != nil {
					t.Error(err)
					return
				}
				if got := maskString(m); got != "TFNFF" {
					t.Errorf("mask %s", got)
				}
				m.Release()
				day := []string{"2026-01-01", "2026-01-02"}[i%2]
				Decide(p, File{PartitionValues: map[string]string{"d": day}, Stats: fs})
			}
		}()
	}
	wg.Wait()
}

func TestEvalCanceled(t *testing.T) {
	sc, rec := allTypes(t)
	p := mustCompile(t, `i8 = 1`, map[string]*schema.Struct{"": sc})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := p.Eval(ctx, rec); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("canceled context: %v", err)
	}
}
