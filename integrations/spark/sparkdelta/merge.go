package sparkdelta

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/apache/spark-connect-go/spark/sql"
	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
)

// MergeOptions configure Merge.
type MergeOptions struct {
	// Spec is the merge, as for deltalite's own merge: predicate, aliases,
	// merge type or clauses, schema mode. Its engine knobs (budgets,
	// retries, storage) do not apply: Spark runs the merge.
	Spec merge.Options
	// PartitionBy and Properties shape the table when there is none yet:
	// the merge then creates it (empty, from the source's schema) and
	// inserts what its insert clauses insert.
	PartitionBy []string
	Properties  map[string]string
}

// Merge merges source into the Delta table at uri with Spark SQL's MERGE
// INTO. A partition scope is part of the spec: AND it into the predicate
// and the NOT MATCHED BY SOURCE clauses, as iohandler does.
func Merge(ctx context.Context, s sql.SparkSession, source sql.DataFrame, uri string, o MergeOptions) (Result, error) {
	if strings.TrimSpace(uri) == "" {
		return Result{}, deltalite.NewError(deltalite.ErrInvalidArgument, "", "sparkdelta: Merge needs a table URI")
	}
	clauses, err := o.Spec.Plan()
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInvalidArgument, uri, err, "sparkdelta: merge")
	}
	var srcCols []string
	for _, c := range clauses {
		if len(c.Except) > 0 {
			if srcCols, err = source.Columns(ctx); err != nil {
				return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: the merge source's columns")
			}
			break
		}
	}
	exists, _, err := tableDetail(ctx, s, uri)
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: looking for the table")
	}
	if !exists && !slices.ContainsFunc(clauses, func(c merge.Clause) bool { return c.When == merge.NotMatched }) {
		return Result{}, deltalite.NewError(deltalite.ErrTableNotFound, uri, "there is no Delta table here and the merge has no insert clause to create it from; write it first (mode overwrite)")
	}
	view, drop, err := tempView(ctx, s, source)
	if err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: merging")
	}
	defer drop()
	if !exists {
		create := writeStatement(uri, view, false, "", WriteOptions{PartitionBy: o.PartitionBy, Properties: o.Properties}) + " LIMIT 0"
		if err := exec(ctx, s, create); err != nil {
			return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: creating the table the merge inserts into")
		}
	}
	if err := exec(ctx, s, mergeStatement(uri, view, o.Spec, clauses, srcCols)); err != nil {
		return Result{}, deltalite.WrapError(deltalite.ErrInternal, uri, err, "sparkdelta: merging with Spark")
	}
	return lastCommit(ctx, s, uri)
}

// mergeStatement is the MERGE INTO of clauses (as Plan returned them) with
// view as the source; srcCols are the source's columns, which UPDATE SET *
// and INSERT * with except_cols expand to.
func mergeStatement(uri, view string, spec merge.Options, clauses []merge.Clause, srcCols []string) string {
	src, tgt := spec.Aliases()
	var b strings.Builder
	b.WriteString("MERGE ")
	if strings.EqualFold(strings.TrimSpace(spec.SchemaMode), merge.SchemaModeMerge) {
		b.WriteString("WITH SCHEMA EVOLUTION ")
	}
	b.WriteString("INTO " + tableRef(uri) + " AS " + quoteIdent(tgt) + " USING " + quoteIdent(view) + " AS " + quoteIdent(src))
	b.WriteString(" ON " + spec.Predicate)
	// Spark wants the clauses grouped by kind; within a kind the first
	// that holds takes the row, as in deltalite, so grouping keeps the
	// meaning.
	for _, when := range []merge.When{merge.Matched, merge.NotMatched, merge.NotMatchedBySource} {
		for _, c := range clauses {
			if c.When == when {
				b.WriteString(" " + clauseSQL(c, src, srcCols))
			}
		}
	}
	return b.String()
}

// clauseSQL renders one WHEN clause.
func clauseSQL(c merge.Clause, src string, srcCols []string) string {
	var b strings.Builder
	switch c.When {
	case merge.Matched:
		b.WriteString("WHEN MATCHED")
	case merge.NotMatched:
		b.WriteString("WHEN NOT MATCHED")
	case merge.NotMatchedBySource:
		b.WriteString("WHEN NOT MATCHED BY SOURCE")
	}
	if c.Predicate != "" {
		b.WriteString(" AND (" + c.Predicate + ")")
	}
	b.WriteString(" THEN ")
	set := c.Set
	if len(c.Except) > 0 {
		// Spark SQL has no SET * EXCEPT: name every other source column.
		set = map[string]string{}
		for _, col := range srcCols {
			if !slices.ContainsFunc(c.Except, func(e string) bool { return strings.EqualFold(e, col) }) {
				set[col] = quoteIdent(src) + "." + quoteIdent(col)
			}
		}
	}
	switch {
	case c.Action == merge.Delete:
		b.WriteString("DELETE")
	case c.Action == merge.UpdateAll && len(c.Except) == 0:
		b.WriteString("UPDATE SET *")
	case c.Action == merge.InsertAll && len(c.Except) == 0:
		b.WriteString("INSERT *")
	case c.Action == merge.Update || c.Action == merge.UpdateAll:
		b.WriteString("UPDATE SET ")
		for i, col := range slices.Sorted(maps.Keys(set)) {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(quoteIdent(col) + " = " + set[col])
		}
	default: // Insert, InsertAll with except_cols
		cols := slices.Sorted(maps.Keys(set))
		vals := make([]string, len(cols))
		for i, col := range cols {
			vals[i] = set[col]
			cols[i] = quoteIdent(col)
		}
		b.WriteString("INSERT (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")")
	}
	return b.String()
}
