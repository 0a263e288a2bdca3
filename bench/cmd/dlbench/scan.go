package main

import (
	"context"

	"github.com/deltalite-go/deltalite/bench/internal/procstat"
	"github.com/deltalite-go/deltalite/scan"
)

// scanTable reads every row of the table (or of the given columns) as Arrow
// record batches and counts them; each batch is fully decoded by the reader
// before it is handed over, so counting rows does not skip any work.
func scanTable(ctx context.Context, table string, version int64, cols []string, parallelism int, res *procstat.Result) error {
	t, err := openTable(ctx, table, version)
	if err != nil {
		return err
	}
	var opts []scan.Option
	if cols != nil {
		opts = append(opts, scan.WithColumns(cols...))
	}
	if parallelism > 0 {
		opts = append(opts, scan.WithParallelism(parallelism))
	}
	s := t.Scan(opts...)
	_, batches, err := s.Records(ctx)
	if err != nil {
		return err
	}
	for rec, err := range batches {
		if err != nil {
			return err
		}
		res.Rows += rec.NumRows()
	}
	res.Version = t.Version()
	res.Files = int64(len(t.Snapshot().Files()))
	return nil
}
