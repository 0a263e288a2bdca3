//go:build duckdb_arrow

package duckdbio_test

// The example of docs/engines.md "Our scan", compiled here (it needs a
// bucket, so it does not run); TestEnginesDocGoBlocks keeps the page's
// block in step with it.

import (
	"context"
	"fmt"
	"log"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/scan"
	_ "github.com/deltalite-go/deltalite/storage/cloud" // s3://, az://, gs://
)

func Example_scan() {
	ctx := context.Background()
	opts := map[string]string{"AWS_REGION": "eu-west-1"} // or the AWS_* environment variables
	t, err := deltalite.Open(ctx, "s3://bucket/sales", deltalite.WithStorageOptions(opts))
	if err != nil {
		log.Fatal(err)
	}
	rr, err := t.Scan(scan.WithColumns("day", "amount"), scan.WithWhere("day >= '2026-01-01'")).RecordReader(ctx)
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
		fmt.Println(rr.RecordBatch().NumRows(), "rows")
	}
	if err := rr.Err(); err != nil {
		log.Fatal(err)
	}
}
