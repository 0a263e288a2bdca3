package sparkdelta

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/write"
)

// WriteOptions configure Write. They mean what write.Options mean for
// deltalite's own writer, so a table is written alike by either engine.
type WriteOptions struct {
	// Mode is overwrite, append, error or ignore; "" means error (nothing
	// is changed by accident). Spark has no other modes.
	Mode write.Mode
	// SchemaMode "" requires the DataFrame to fit the table; merge adds its
	// new columns (Spark's mergeSchema); overwrite replaces the schema and
	// partitioning with the DataFrame's (overwriteSchema; only with mode
	// overwrite, and not with ReplaceWhere).
	SchemaMode write.SchemaMode
	// PartitionBy are the partition columns of a table the write creates
	// (or replaces with schema mode overwrite).
	PartitionBy []string
	// ReplaceWhere limits an overwrite of an existing table to the rows
	// the predicate selects (a partition: `day = '2026-01-02'`); the
	// written rows must satisfy it. When the table does not exist yet the
	// write creates it from all rows, as the seed handler does.
	ReplaceWhere string
	// Properties are the table properties of a table the write creates.
	Properties map[string]string
}

// Result is what a write or merge did.
type Result struct {
	// Skipped is set when mode ignore found the table and wrote nothing.
	Skipped bool
	// Version is the table's version after the call (the version the call
	// committed, unless Skipped).
	Version int64
	// Operation is the commit's operation (WRITE, CREATE TABLE AS SELECT,
	// MERGE, ...), and Metrics its operationMetrics as Delta records them
	// (numOutputRows, numTargetRowsInserted, ...).
	Operation string
	Metrics   map[string]string
}

// NumOutputRows is the number of rows the call wrote, from the commit's
// operationMetrics; ok is false when the commit does not record it.
func (r Result) NumOutputRows() (n int64, ok bool) {
	v, found := r.Metrics["numOutputRows"]
	if !found {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	return n, err == nil
}

// checkMode validates the mode of a Spark write and returns it with its
// default applied; the refusal's wording is the seed handler's.
func checkMode(m write.Mode) (write.Mode, error) {
	switch m {
	case "":
		return write.ModeError, nil
	case write.ModeOverwrite, write.ModeAppend, write.ModeError, write.ModeIgnore:
		return m, nil
	}
	return "", deltalite.NewError(deltalite.ErrInvalidArgument, "", "Spark does not support the write mode %s (use overwrite, append, error or ignore)", m)
}

// Write writes df to the Delta table at uri with Spark. Spark moves the
// data; this process sends statements only.
func Write(ctx context.Context, s sql.SparkSession, df sql.DataFrame, uri string, o WriteOptions) (Result, error) {
	mode, err := checkMode(o.Mode)
	if err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(uri) == "" {
		return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, "", "sparkdelta: Write needs a table URI")
	}
	switch o.SchemaMode {
	case write.SchemaStrict, write.SchemaMerge:
	case write.SchemaOverwrite:
		if mode != write.ModeOverwrite {
			return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "schema mode overwrite needs mode overwrite")
		}
		if o.ReplaceWhere != "" {
			return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "schema mode overwrite replaces the whole table; it cannot be limited by a replace-where predicate")
		}
	default:
		return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "unknown schema mode %q (use merge or overwrite)", o.SchemaMode)
	}
	if o.ReplaceWhere != "" && mode != write.ModeOverwrite {
		return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, uri, "a replace-where predicate needs mode overwrite")
	}
	exists, partitionBy, err := tableDetail(ctx, s, uri)
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: looking for the table")
	}
	if exists {
		switch mode {
		case write.ModeError:
			return Result{}, deltalite.NewError(deltalite.ErrTableExists, uri, "a Delta table exists here; use mode append, overwrite or ignore")
		case write.ModeIgnore:
			v, err := currentVersion(ctx, s, uri)
			return Result{Skipped: true, Version: v}, err
		}
		// A schema overwrite replaces the partitioning too.
		if len(o.PartitionBy) > 0 && o.SchemaMode != write.SchemaOverwrite && !slices.Equal(partitionBy, o.PartitionBy) {
			return Result{}, deltalite.NewError(deltalite.ErrSchemaMismatch, uri, "the table is partitioned by [%s], not [%s]",
				strings.Join(partitionBy, ", "), strings.Join(o.PartitionBy, ", "))
		}
	}
	view, drop, err := tempView(ctx, s, df)
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: writing")
	}
	defer drop()
	stmt := writeStatement(uri, view, exists, mode, o)
	if err := exec(ctx, s, stmt); err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: writing with Spark")
	}
	return lastCommit(ctx, s, uri)
}

// writeStatement is the Spark SQL of one write of view into uri.
func writeStatement(uri, view string, exists bool, mode write.Mode, o WriteOptions) string {
	src := " SELECT * FROM " + quoteIdent(view)
	evolve := ""
	if o.SchemaMode == write.SchemaMerge {
		evolve = " WITH SCHEMA EVOLUTION"
	}
	switch {
	case exists && mode == write.ModeAppend:
		return "INSERT" + evolve + " INTO " + tableRef(uri) + " BY NAME" + src
	case exists && o.ReplaceWhere != "":
		return "INSERT" + evolve + " INTO " + tableRef(uri) + " BY NAME REPLACE WHERE " + o.ReplaceWhere + src
	case exists && o.SchemaMode != write.SchemaOverwrite:
		return "INSERT" + evolve + " OVERWRITE " + tableRef(uri) + " BY NAME" + src
	}
	// A new table, or an overwrite that replaces the schema too.
	verb := "CREATE TABLE "
	if exists {
		verb = "CREATE OR REPLACE TABLE "
	}
	var b strings.Builder
	b.WriteString(verb + tableRef(uri) + " USING delta")
	if len(o.PartitionBy) > 0 {
		cols := make([]string, len(o.PartitionBy))
		for i, c := range o.PartitionBy {
			cols[i] = quoteIdent(c)
		}
		b.WriteString(" PARTITIONED BY (" + strings.Join(cols, ", ") + ")")
	}
	if len(o.Properties) > 0 {
		b.WriteString(" TBLPROPERTIES " + propertyList(o.Properties))
	}
	b.WriteString(" AS" + src)
	return b.String()
}

// lastCommit describes the table's latest commit.
func lastCommit(ctx context.Context, s sql.SparkSession, uri string) (Result, error) {
	df, err := s.Sql(ctx, "DESCRIBE HISTORY "+tableRef(uri)+" LIMIT 1")
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: reading the table's history")
	}
	rows, err := df.Collect(ctx)
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: reading the table's history")
	}
	if len(rows) != 1 {
		return Result{}, deltalite.NewError(deltalite.ErrInternal, uri, "sparkdelta: the table's history has %d rows for LIMIT 1", len(rows))
	}
	row := rows[0]
	r := Result{Metrics: map[string]string{}}
	var ok bool
	if r.Version, ok = row.Value("version").(int64); !ok {
		return Result{}, deltalite.NewError(deltalite.ErrInternal, uri, "sparkdelta: the history's version is a %T", row.Value("version"))
	}
	r.Operation, _ = row.Value("operation").(string)
	switch m := row.Value("operationMetrics").(type) {
	case map[string]string:
		r.Metrics = m
	case map[any]any:
		for k, v := range m {
			r.Metrics[fmt.Sprint(k)] = fmt.Sprint(v)
		}
	}
	return r, nil
}

// currentVersion is the table's latest version.
func currentVersion(ctx context.Context, s sql.SparkSession, uri string) (int64, error) {
	r, err := lastCommit(ctx, s, uri)
	return r.Version, err
}
