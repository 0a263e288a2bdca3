package cloudtest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// The tables of these tests have three columns: id long, name string and
// day string (the partition column where there is one).
var peopleSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "name", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "day", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// person is one row.
type person struct {
	id        int64
	name, day string
}

// line is the row as arrowrows renders it.
func (p person) line() string {
	return fmt.Sprintf(`day="%s", id=%d, name="%s"`, p.day, p.id, p.name)
}

func lines(ps ...person) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.line()
	}
	slices.Sort(out)
	return out
}

// people is a reader over one batch of rows.
func people(ps ...person) array.RecordReader {
	b := array.NewRecordBuilder(memory.DefaultAllocator, peopleSchema)
	defer b.Release()
	for _, p := range ps {
		b.Field(0).(*array.Int64Builder).Append(p.id)
		b.Field(1).(*array.StringBuilder).Append(p.name)
		b.Field(2).(*array.StringBuilder).Append(p.day)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	rr, err := array.NewRecordReader(peopleSchema, []arrow.RecordBatch{rec})
	if err != nil {
		panic(err) // the schema is the batch's own
	}
	return rr
}

// peerRows is the rows in the canonical form python/peerlib/data.py reads.
func peerRows(ps ...person) []map[string]any {
	out := make([]map[string]any, len(ps))
	for i, p := range ps {
		out[i] = map[string]any{"id": p.id, "name": p.name, "day": p.day}
	}
	return out
}

var peerSchema = []map[string]any{
	{"name": "id", "type": "long", "nullable": true},
	{"name": "name", "type": "string", "nullable": true},
	{"name": "day", "type": "string", "nullable": true},
}

// ctxFor is a context bounding one step of a test.
func ctxFor(t *testing.T, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// write is deltalite.Write with the cloud's options; a failure fails the test.
func (c *cloud) write(t *testing.T, uri string, src array.RecordReader, wo deltalite.WriteOptions) *deltalite.WriteResult {
	t.Helper()
	defer src.Release()
	wo.StorageOptions = c.opts
	res, err := deltalite.Write(ctxFor(t, time.Minute), uri, src, wo)
	if err != nil {
		t.Fatalf("Write(%s, %+v): %v", uri, wo, err)
	}
	return res
}

// open is deltalite.Open with the cloud's options.
func (c *cloud) open(t *testing.T, uri string, opts ...deltalite.Option) *deltalite.Table {
	t.Helper()
	tb, err := deltalite.Open(ctxFor(t, time.Minute), uri, append([]deltalite.Option{deltalite.WithStorageOptions(c.opts)}, opts...)...)
	if err != nil {
		t.Fatalf("Open(%s): %v", uri, err)
	}
	return tb
}

// scanLines reads every row of the version the table shows, as sorted
// canonical lines.
func scanLines(t *testing.T, tb *deltalite.Table) []string {
	t.Helper()
	_, batches, err := tb.Scan().Records(ctxFor(t, time.Minute))
	if err != nil {
		t.Fatalf("scan of %s: %v", tb.URI(), err)
	}
	out := arrowrows.StreamRows(t, batches)
	slices.Sort(out)
	return out
}

// readLines opens the table (with options such as WithVersion) and reads it.
func (c *cloud) readLines(t *testing.T, uri string, opts ...deltalite.Option) (int64, []string) {
	t.Helper()
	tb := c.open(t, uri, opts...)
	return tb.Version(), scanLines(t, tb)
}

func sameLines(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\ngot  %d rows\n\t%s\nwant %d rows\n\t%s", what, len(got), strings.Join(got, "\n\t"), len(want), strings.Join(want, "\n\t"))
	}
}
