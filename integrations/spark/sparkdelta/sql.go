package sparkdelta

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/apache/spark-connect-go/spark/sql"
)

// quoteIdent quotes a column name for Spark SQL.
func quoteIdent(name string) string {
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// tableRef names the Delta table at uri in Spark SQL.
func tableRef(uri string) string {
	return "delta." + quoteIdent(uri)
}

// quoteString is a Spark SQL string literal.
func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// propertyList renders properties as ('k' = 'v', ...) in key order, for
// TBLPROPERTIES.
func propertyList(props map[string]string) string {
	var b strings.Builder
	b.WriteString("(")
	for i, k := range slices.Sorted(maps.Keys(props)) {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quoteString(k) + " = " + quoteString(props[k]))
	}
	b.WriteString(")")
	return b.String()
}

// tempView registers df as a session-scoped temporary view with a fresh
// name, and returns the name and a function that drops it.
func tempView(ctx context.Context, s sql.SparkSession, df sql.DataFrame) (string, func(), error) {
	var b [8]byte
	_, _ = rand.Read(b[:])
	name := "deltalite_source_" + hex.EncodeToString(b[:])
	if err := df.CreateTempView(ctx, name, false, false); err != nil {
		return "", nil, fmt.Errorf("registering the DataFrame as a temporary view: %w", err)
	}
	drop := func() {
		// The view only lives in this session; a failed drop leaves a
		// name no one uses.
		_, _ = s.Sql(context.WithoutCancel(ctx), "DROP VIEW IF EXISTS "+quoteIdent(name))
	}
	return name, drop, nil
}

// exec runs a SQL statement; Spark runs commands when they are sent.
func exec(ctx context.Context, s sql.SparkSession, stmt string) error {
	_, err := s.Sql(ctx, stmt)
	return err
}

// tableDetail reports whether a Delta table is at uri, as Spark sees it,
// and its partition columns.
func tableDetail(ctx context.Context, s sql.SparkSession, uri string) (exists bool, partitionBy []string, err error) {
	df, err := s.Sql(ctx, "DESCRIBE DETAIL "+tableRef(uri))
	switch {
	case err == nil:
	case strings.Contains(err.Error(), "DELTA_MISSING_DELTA_TABLE"), strings.Contains(err.Error(), "PATH_NOT_FOUND"):
		return false, nil, nil
	default:
		return false, nil, err
	}
	rows, err := df.Collect(ctx)
	if err != nil {
		return false, nil, err
	}
	if len(rows) != 1 {
		return false, nil, fmt.Errorf("DESCRIBE DETAIL returned %d rows", len(rows))
	}
	switch cols := rows[0].Value("partitionColumns").(type) {
	case []string:
		partitionBy = cols
	case []any:
		for _, c := range cols {
			partitionBy = append(partitionBy, fmt.Sprint(c))
		}
	}
	return true, partitionBy, nil
}
