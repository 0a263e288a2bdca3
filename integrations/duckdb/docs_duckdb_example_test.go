//go:build duckdb_arrow

package duckdbio_test

// The example of docs/engines.md "In Go", compiled here (it needs a
// bucket, so it does not run); TestEnginesDocGoBlocks keeps the page's
// block in step with it.

import (
	"context"
	"log"

	"github.com/deltalite-go/deltalite"
	duckdbio "github.com/deltalite-go/deltalite/integrations/duckdb"
	_ "github.com/deltalite-go/deltalite/storage/cloud" // s3://, az://, gs://
)

func ExampleResource() {
	ctx := context.Background()
	opts := map[string]string{"AWS_REGION": "eu-west-1"}
	res := &duckdbio.Resource{Threads: 4, MemoryLimit: "4GB", StorageOptions: opts}
	defer res.Close()
	s, err := res.Session(ctx) // one connection; one session per goroutine
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	orders := s.Load("s3://b/orders", duckdbio.Where("day = '2026-01-02'"), duckdbio.Columns("id", "customer", "amount"))
	if err := orders.View(ctx, "orders"); err != nil { // lazy: nothing is read yet
		log.Fatal(err)
	}
	if err := s.Load("s3://b/customers").View(ctx, "customers"); err != nil {
		log.Fatal(err)
	}
	daily := s.SQL("SELECT name, sum(amount) AS total FROM orders JOIN customers USING (customer) GROUP BY name")
	if _, err := daily.Write(ctx, "s3://b/daily", deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}); err != nil { // or daily.Merge
		log.Fatal(err)
	}
}
