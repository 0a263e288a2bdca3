package conformance

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// Result is the outcome of one case.
type Result struct {
	OK     bool   // the case did what it must
	Status string // "reads", "matches expected", "unsupported", "fails as it must", or what went wrong
	Detail string // error text, rows read, first difference
	Rows   int
}

// Run checks one case.
func Run(ctx context.Context, c Case) Result {
	r := run(ctx, c)
	switch c.Expect {
	case MustFail:
		if r.err != nil {
			return Result{OK: true, Status: "fails as it must", Detail: oneLine(r.err.Error())}
		}
		return Result{Status: "read a table that must not open", Detail: c.Why}
	case ReadOrUnsupported:
		if r.err != nil {
			if errors.Is(r.err, deltalite.ErrUnsupportedTable) {
				return Result{OK: true, Status: "unsupported", Detail: oneLine(r.err.Error())}
			}
			return Result{Status: "error", Detail: oneLine(r.err.Error())}
		}
		return Result{OK: true, Status: "reads", Detail: fmt.Sprintf("version %d, %d rows", r.version, len(r.rows)), Rows: len(r.rows)}
	case OpensLog, HistoryOnly:
		if r.err != nil {
			return Result{Status: "error", Detail: oneLine(r.err.Error())}
		}
		if c.Check != nil {
			if d := c.Check(r.fileRows); d != "" {
				return Result{Status: "wrong files", Detail: d}
			}
		}
		if c.Expect == HistoryOnly {
			return Result{OK: true, Status: "history reads", Detail: r.detail}
		}
		return Result{OK: true, Status: "log replays", Detail: fmt.Sprintf("version %d, %d live files", r.version, len(r.fileRows))}
	}
	if r.err != nil {
		if errors.Is(r.err, deltalite.ErrUnsupportedTable) {
			return Result{Status: "unsupported", Detail: oneLine(r.err.Error())}
		}
		return Result{Status: "error", Detail: oneLine(r.err.Error())}
	}
	if c.Expect == MatchValues {
		if d := c.Check(r.valueRows); d != "" {
			return Result{Status: "wrong values", Detail: d}
		}
		return Result{OK: true, Status: "matches known values", Detail: fmt.Sprintf("version %d, %d rows", r.version, len(r.rows)), Rows: len(r.rows)}
	}
	want, err := arrowrows.ParquetDir(c.Expected)
	if err != nil {
		return Result{Status: "error", Detail: "reading expected rows: " + err.Error()}
	}
	if c.FixExpected != nil {
		want = c.FixExpected(want)
	}
	if d := diff(r.rows, want); d != "" {
		return Result{Status: "wrong rows", Detail: d}
	}
	return Result{OK: true, Status: "matches expected", Detail: fmt.Sprintf("version %d, %d rows", r.version, len(r.rows)), Rows: len(r.rows)}
}

type outcome struct {
	err       error
	version   int64
	rows      []string            // canonical rows
	valueRows []map[string]string // column -> canonical value
	fileRows  []map[string]string // live files, as {"path": ...}
	detail    string
}

func run(ctx context.Context, c Case) (o outcome) {
	defer func() {
		if p := recover(); p != nil {
			o.err = fmt.Errorf("panic: %v", p)
		}
	}()
	if c.Expect == HistoryOnly {
		h, herr := openHistory(ctx, c.Table)
		if herr != nil {
			o.err = herr
			return o
		}
		o.detail = fmt.Sprintf("%d commits", len(h))
		return o
	}
	var opts []deltalite.Option
	if c.Version >= 0 {
		opts = append(opts, deltalite.WithVersion(c.Version))
	}
	t, err := deltalite.Open(ctx, c.Table, opts...)
	if err != nil {
		o.err = err
		return o
	}
	o.version = t.Version()
	for _, f := range t.Snapshot().Files() {
		o.fileRows = append(o.fileRows, map[string]string{"path": f.Path})
	}
	if c.Expect == OpensLog {
		return o
	}
	_, batches, err := t.Scan().Records(ctx)
	if err != nil {
		o.err = err
		return o
	}
	var recs []arrow.RecordBatch
	for rec, err := range batches {
		if err != nil {
			o.err = err
			return o
		}
		rec.Retain()
		recs = append(recs, rec)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	o.rows = arrowrows.Rows(recs...)
	for _, rec := range recs {
		for i := 0; i < int(rec.NumRows()); i++ {
			row := map[string]string{}
			for j, f := range rec.Schema().Fields() {
				row[f.Name] = arrowrows.Value(rec.Column(j), i)
			}
			o.valueRows = append(o.valueRows, row)
		}
	}
	return o
}

// openHistory reads the commit history from the log alone: a log without a
// usable metaData still has one.
func openHistory(ctx context.Context, uri string) ([]snapshot.Commit, error) {
	st, err := storage.Open(ctx, uri, nil)
	if err != nil {
		return nil, err
	}
	return snapshot.History(ctx, st, 0)
}

// diff describes the first difference between two sorted row lists.
func diff(got, want []string) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d rows, want %d; first rows %s vs %s", len(got), len(want), first(got), first(want))
	}
	for i := range got {
		if got[i] != want[i] {
			return fmt.Sprintf("row %d: got %s, want %s", i, got[i], want[i])
		}
	}
	return ""
}

func first(rows []string) string {
	if len(rows) == 0 {
		return "(none)"
	}
	return rows[0]
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
