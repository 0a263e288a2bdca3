package sparkdelta_test

// The example of docs/engines.md "The Go calls", compiled here (it needs a
// Spark Connect server, so it does not run); TestEnginesDocGoBlocks in
// integrations/duckdb keeps the page's block in step with it.

import (
	"context"
	"fmt"
	"log"

	"github.com/apache/spark-connect-go/spark/sql"

	"github.com/deltalite-go/deltalite/integrations/spark/sparkdelta"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/write"
)

func Example() {
	ctx := context.Background()
	s, err := sql.NewSessionBuilder().Remote("sc://127.0.0.1:15002").Build(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer s.Stop()
	const table = "/tmp/sales" // any table URI the server can reach: s3a://bucket/sales, ...

	// Write: modes overwrite, append, error (the default), ignore; schema modes merge and overwrite.
	all, err := s.Sql(ctx, "SELECT id, date_add(DATE'2026-01-01', CAST(id % 3 AS INT)) AS day, id * 1.5D AS amount FROM range(1000000)")
	if err != nil {
		log.Fatal(err)
	}
	res, err := sparkdelta.Write(ctx, s, all, table, sparkdelta.WriteOptions{
		Mode: write.ModeOverwrite, PartitionBy: []string{"day"}})
	if err != nil {
		log.Fatal(err)
	}
	if n, ok := res.NumOutputRows(); ok { // ok: the commit recorded the count
		fmt.Println(n, "rows written in version", res.Version)
	}

	// Replace one partition (on a missing table the write creates it from every row).
	day, err := s.Sql(ctx, "SELECT 7L AS id, DATE'2026-01-02' AS day, 12.5D AS amount")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sparkdelta.Write(ctx, s, day, table, sparkdelta.WriteOptions{
		Mode: write.ModeOverwrite, ReplaceWhere: "day = '2026-01-02'"}); err != nil {
		log.Fatal(err)
	}

	// MERGE: the same merge.Options as deltalite.Merge (merge types, custom clauses, except_cols).
	updates, err := s.Sql(ctx, "SELECT 7L AS id, DATE'2026-01-02' AS day, 3.0D AS amount")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := sparkdelta.Merge(ctx, s, updates, table, sparkdelta.MergeOptions{
		Spec: merge.Options{Predicate: "t.id = s.id", MergeType: merge.TypeUpsert}}); err != nil {
		log.Fatal(err)
	}

	// Read: lazy, Spark reads when the DataFrame runs. Version or Timestamp, Columns, Predicate (prunes partitions).
	sales, err := sparkdelta.Read(ctx, s, table, sparkdelta.ReadOptions{
		Columns: []string{"id", "amount"}, Predicate: "day = '2026-01-02'"})
	if err != nil {
		log.Fatal(err)
	}
	if err := sales.Show(ctx, 10, false); err != nil { // 7, 3.0
		log.Fatal(err)
	}
}
