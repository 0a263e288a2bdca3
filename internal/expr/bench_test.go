package expr

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/stats"
	"github.com/deltalite-go/deltalite/schema"
)

const benchRows = 1 << 20

// benchBatch has 1M rows: a date with 30 distinct days, a long id, a
// timestamp, a double, a decimal and a string; 10% of each is null.
func benchBatch(b *testing.B) (*schema.Struct, arrow.RecordBatch) {
	sc := mustSchema(b, `{"type":"struct","fields":[
		{"name":"day","type":"date","nullable":true,"metadata":{}},
		{"name":"id","type":"long","nullable":true,"metadata":{}},
		{"name":"updated_at","type":"timestamp","nullable":true,"metadata":{}},
		{"name":"x","type":"double","nullable":true,"metadata":{}},
		{"name":"price","type":"decimal(10,2)","nullable":true,"metadata":{}},
		{"name":"name","type":"string","nullable":true,"metadata":{}}]}`)
	as, _ := schema.ToArrow(sc, schema.ArrowOptions{})
	rb := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer rb.Release()
	for i := 0; i < benchRows; i++ {
		if i%10 == 3 {
			for k := 0; k < 6; k++ {
				rb.Field(k).AppendNull()
			}
			continue
		}
		rb.Field(0).(*array.Date32Builder).Append(arrow.Date32(20454 + i%30))
		rb.Field(1).(*array.Int64Builder).Append(int64(i))
		rb.Field(2).(*array.TimestampBuilder).Append(arrow.Timestamp(int64(i) * 1e6))
		rb.Field(3).(*array.Float64Builder).Append(float64(i%1000) / 10)
		rb.Field(4).(*array.Decimal128Builder).Append(decimalOfInt(int64(i % 10000)))
		rb.Field(5).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%5000))
	}
	return sc, rb.NewRecordBatch()
}

func BenchmarkEval1M(b *testing.B) {
	sc, rec := benchBatch(b)
	defer rec.Release()
	for _, pred := range []string{
		`day = "2026-01-01"`,
		`id > 500000 AND updated_at < '1970-01-10'`,
		`day = '2026-01-05' AND (id > 1000 OR name LIKE 'name-1%') AND x IS NOT NULL`,
		`id IN (1, 5, 9, 500000, 700000)`,
		`x > 50.5`,
		`price > 10.50`,
		`lower(name) = 'name-42'`,
	} {
		p, err := ParsePredicate(pred, sc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(pred, func(b *testing.B) {
			start := cpuTime()
			for b.Loop() {
				m, err := p.Eval(context.Background(), rec)
				if err != nil {
					b.Fatal(err)
				}
				m.Release()
			}
			reportCPU(b, start)
		})
	}
	p, _ := ParsePredicate(`day = "2026-01-01"`, sc)
	b.Run("FilterNot day", func(b *testing.B) {
		start := cpuTime()
		for b.Loop() {
			out, err := FilterNot(context.Background(), rec, p)
			if err != nil {
				b.Fatal(err)
			}
			out.Release()
		}
		reportCPU(b, start)
	})
}

// cpuTime is the process's user and system CPU time, which unlike wall
// time does not grow when other processes load the machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

func BenchmarkEvalPartition(b *testing.B) {
	sc := mustSchema(b, partSchema)
	p, err := ParsePredicate(`day = '2026-01-01' AND region IN ('eu', 'us')`, sc)
	if err != nil {
		b.Fatal(err)
	}
	pv := map[string]string{"day": "2026-01-01", "region": "eu", "n": "1"}
	for b.Loop() {
		EvalPartition(p, pv)
	}
}

func BenchmarkCanSkip(b *testing.B) {
	sc := mustSchema(b, partSchema)
	p, err := ParsePredicate(`day = '2026-01-01' AND id BETWEEN 100 AND 200`, sc)
	if err != nil {
		b.Fatal(err)
	}
	fs := stats.Parse(`{"numRecords":5,"minValues":{"id":1},"maxValues":{"id":50},"nullCount":{"id":0}}`, sc, schema.MappingNone)
	pv := map[string]string{"day": "2026-01-01", "region": "eu", "n": "1"}
	for b.Loop() {
		if !CanSkip(p, fs, pv) {
			b.Fatal("not skipped")
		}
	}
}
