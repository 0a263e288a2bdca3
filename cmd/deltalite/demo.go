package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/spf13/cobra"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/cliout"
	"github.com/deltalite-go/deltalite/scan"
)

func newDemoCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "demo [DIR]",
		Short: "Build a partitioned table on local disk and upsert into it, printing what happens",
		Long: `Build a partitioned Delta table of events in DIR (a new temporary directory by
default), upsert updates, inserts and deletes into it, redeliver a batch to show it is
skipped, then print the stats of each upsert, the history and a few rows. Needs no setup.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := ""
			if len(args) == 1 {
				dir = args[0]
				if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
					return fmt.Errorf("%s is not empty: give a new or empty directory", dir)
				}
			} else {
				tmp, err := os.MkdirTemp("", "deltalite-demo-")
				if err != nil {
					return err
				}
				dir = filepath.Join(tmp, "events")
			}
			return runDemo(cmd.Context(), cmd.OutOrStdout(), dir)
		},
	}
}

var eventSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.BinaryTypes.String},
	{Name: "day", Type: arrow.FixedWidthTypes.Date32},
	{Name: "user", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "amount", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "updated_at", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, Nullable: true},
	{Name: "deleted", Type: arrow.FixedWidthTypes.Boolean, Nullable: true},
}, nil)

// events makes n events with ids from..from+n-1 on day, at version v;
// deleted marks every event for deletion when set.
func events(from, n int, day time.Time, v int, deleted bool) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, eventSchema)
	defer b.Release()
	ts := arrow.Timestamp(time.Date(2026, 1, 1, 0, 0, v, 0, time.UTC).UnixMicro())
	for i := from; i < from+n; i++ {
		b.Field(0).(*array.StringBuilder).Append(fmt.Sprintf("evt-%07d", i))
		b.Field(1).(*array.Date32Builder).Append(arrow.Date32FromTime(day))
		b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("user-%d", i%97))
		b.Field(3).(*array.Float64Builder).Append(float64(i%1000) + float64(v)/10)
		b.Field(4).(*array.TimestampBuilder).Append(ts)
		b.Field(5).(*array.BooleanBuilder).Append(deleted)
	}
	return b.NewRecordBatch()
}

func stream(recs ...arrow.RecordBatch) array.RecordReader {
	rr, _ := array.NewRecordReader(eventSchema, recs)
	return rr
}

func runDemo(ctx context.Context, out io.Writer, dir string) error {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	fmt.Fprintf(out, "Building a table of events partitioned by day in %s\n\n", dir)
	var initial []arrow.RecordBatch
	for d := 1; d <= 3; d++ {
		initial = append(initial, events((d-1)*10000, 5000, day(d), 1, false))
	}
	// The delete marker is an upsert input column, not a table column.
	init := stream(initial...)
	defer init.Release()
	tableSchema := withoutField(eventSchema, "deleted")
	proj := &projected{RecordReader: init, schema: tableSchema}
	res, err := deltalite.Write(ctx, dir, proj, deltalite.WriteOptions{Mode: deltalite.ModeError, PartitionBy: []string{"day"}})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "wrote %d rows in %d files: version %d\n\n", res.RowsWritten, res.FilesAdded, res.Version)
	t, err := deltalite.Open(ctx, dir)
	if err != nil {
		return err
	}
	steps := []struct {
		what string
		src  []arrow.RecordBatch
		opts deltalite.UpsertOptions
	}{
		{"update 500 events of Jan 2 and insert 300 of Jan 4 (batch 1 of app 'sync')",
			[]arrow.RecordBatch{events(10000, 500, day(2), 2, false), events(30000, 300, day(4), 2, false)},
			deltalite.UpsertOptions{AppID: "sync", AppVersion: 1}},
		{"delete 100 events of Jan 1 through the 'deleted' column and update 50 of Jan 3",
			[]arrow.RecordBatch{events(0, 100, day(1), 3, true), events(20000, 50, day(3), 3, false)},
			deltalite.UpsertOptions{DeleteColumn: "deleted"}},
		{"redeliver batch 1 of app 'sync': already applied, so skipped",
			[]arrow.RecordBatch{events(10000, 500, day(2), 2, false), events(30000, 300, day(4), 2, false)},
			deltalite.UpsertOptions{AppID: "sync", AppVersion: 1}},
	}
	for i, s := range steps {
		s.opts.PrimaryKeys = []string{"id"}
		if s.opts.DeleteColumn == "" {
			s.opts.DeleteColumn = "deleted"
		}
		s.opts.CommitMetadata = map[string]any{"demo_step": fmt.Sprint(i + 1)}
		rr := stream(s.src...)
		stats, err := t.Upsert(ctx, rr, s.opts)
		rr.Release()
		if err != nil {
			return fmt.Errorf("upsert %d: %w", i+1, err)
		}
		fmt.Fprintf(out, "upsert %d: %s\n  %s\n\n", i+1, s.what, stats)
	}
	h, err := t.History(ctx, 0)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "history:")
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  VERSION\tOPERATION\tMETRICS")
	for _, c := range h {
		op, metrics := "", ""
		if c.Info != nil {
			op = c.Info.Operation
			if m, ok := c.Info.Raw["operationMetrics"].(map[string]any); ok {
				metrics = fmt.Sprint(m)
			}
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\n", c.Version, op, metrics)
	}
	tw.Flush()
	f, err := scan.NewFilter("day", "=", "2026-01-04")
	if err != nil {
		return err
	}
	sc, batches, err := t.Scan(scan.WithFilters(f), scan.WithLimit(5)).Records(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "\na few rows of Jan 4:")
	sink, err := cliout.NewSink("table", out, sc)
	if err != nil {
		return err
	}
	for rec, err := range batches {
		if err != nil {
			return err
		}
		if err := sink.Write(rec); err != nil {
			return err
		}
	}
	if err := sink.Close(); err != nil {
		return err
	}
	s := t.Summary()
	fmt.Fprintf(out, "\ntable: %s, version %d, %d files, %d rows (from statistics)\n", t.URI(), s.Version, s.NumFiles, deref(s.NumRows))
	fmt.Fprintf(out, "try:   %s scan %s --partition 'day=2026-01-02' --limit 10\n", selfCommand(), dir)
	return nil
}

// selfCommand is how the user can run this program again: under go run
// the binary is a temporary build, so the hint must be go run too.
func selfCommand() string {
	exe, err := os.Executable()
	if err != nil || strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/deltalite"
	}
	if p, err := exec.LookPath("deltalite"); err == nil && sameFile(p, exe) {
		return "deltalite"
	}
	return exe
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

func deref(p *int64) int64 {
	if p == nil {
		return -1
	}
	return *p
}

// projected drops source columns the target schema does not have.
type projected struct {
	array.RecordReader
	schema *arrow.Schema
	cur    arrow.RecordBatch
}

func (p *projected) Schema() *arrow.Schema { return p.schema }

func (p *projected) Next() bool {
	if p.cur != nil {
		p.cur.Release()
		p.cur = nil
	}
	if !p.RecordReader.Next() {
		return false
	}
	rec := p.RecordReader.RecordBatch()
	cols := make([]arrow.Array, 0, p.schema.NumFields())
	for _, f := range p.schema.Fields() {
		cols = append(cols, rec.Column(rec.Schema().FieldIndices(f.Name)[0]))
	}
	p.cur = array.NewRecordBatch(p.schema, cols, rec.NumRows())
	return true
}

func (p *projected) RecordBatch() arrow.RecordBatch { return p.cur }
func (p *projected) Record() arrow.RecordBatch      { return p.cur }
