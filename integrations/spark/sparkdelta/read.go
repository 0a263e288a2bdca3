package sparkdelta

import (
	"context"
	"strconv"
	"strings"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
)

// ReadOptions select what Read reads.
type ReadOptions struct {
	// Version reads the table as of that version (time travel); nil
	// reads the latest. Not together with Timestamp.
	Version *int64
	// Timestamp reads the table as of that time, in a form Spark's
	// timestampAsOf takes ("2026-01-02 03:04:05", "2026-01-02").
	Timestamp string
	// Columns are the columns to read, in order; nil reads them all.
	Columns []string
	// Predicate is a Spark SQL condition over the table's columns (such as
	// a partition predicate, `day = '2026-01-02'`): only the rows it holds
	// for are read, and Spark prunes the files it cannot hold for. It may
	// name columns Columns leaves out.
	Predicate string
}

// Read returns the Delta table at uri as a Spark DataFrame. It is lazy, as
// DataFrames are: Spark reads the table (and reports a missing one) when
// the DataFrame is executed.
func Read(ctx context.Context, s sql.SparkSession, uri string, o ReadOptions) (sql.DataFrame, error) {
	if strings.TrimSpace(uri) == "" {
		return nil, deltalite.NewError(deltalite.ErrInvalidArgument, "", "sparkdelta: Read needs a table URI")
	}
	if o.Version != nil && o.Timestamp != "" {
		return nil, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "sparkdelta: give a version or a timestamp to read, not both")
	}
	if o.Version != nil && *o.Version < 0 {
		return nil, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "sparkdelta: version %d is negative; table versions start at 0", *o.Version)
	}
	r := s.Read().Format("delta")
	if o.Version != nil {
		r = r.Option("versionAsOf", strconv.FormatInt(*o.Version, 10))
	}
	if o.Timestamp != "" {
		r = r.Option("timestampAsOf", o.Timestamp)
	}
	df, err := r.Load(uri)
	if err != nil {
		return nil, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: reading")
	}
	if strings.TrimSpace(o.Predicate) != "" {
		if df, err = df.Where(ctx, o.Predicate); err != nil {
			return nil, deltalite.WrapError(deltalite.ErrInvalidArgument, uri, err, "sparkdelta: filtering by %q", o.Predicate)
		}
	}
	if len(o.Columns) > 0 {
		cols := make([]string, len(o.Columns))
		for i, c := range o.Columns {
			cols[i] = quoteIdent(c)
		}
		if df, err = df.SelectExpr(ctx, cols...); err != nil {
			return nil, deltalite.WrapError(deltalite.ErrInvalidArgument, uri, err, "sparkdelta: selecting columns %q", o.Columns)
		}
	}
	return df, nil
}
