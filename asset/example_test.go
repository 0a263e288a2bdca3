package asset_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/deltalite-go/deltalite/asset"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

type Sale struct {
	ID     int64  `delta:"id"`
	Region string `delta:"region"`
	Amount int64  `delta:"amount"`
}

type RegionTotal struct {
	Region string `delta:"region"`
	Total  int64  `delta:"total"`
}

// Assets defined in Go, materialized for partition keys, then maintained
// with the Delta verbs.
func Example() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "warehouse")
	defer os.RemoveAll(dir)

	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		panic(err)
	}
	regions := partitions.Static("us", "eu")
	orders := asset.Define0("orders", func(c *asset.Context) ([]Sale, error) {
		var out []Sale
		for i, region := range c.PartitionKeys {
			out = append(out, Sale{ID: int64(i), Region: region, Amount: 10})
		}
		return out, nil
	}, asset.WithHandler(h), asset.WithPartitions(regions),
		asset.WithMetadata(map[string]string{"delta/partition_expr": "region", "delta/mode": "append"}), asset.Delta())
	totals := asset.Define1("totals", "orders", func(c *asset.Context, in []Sale) ([]RegionTotal, error) {
		sums := map[string]int64{}
		for _, o := range in {
			sums[o.Region] += o.Amount
		}
		return []RegionTotal{{"eu", sums["eu"]}, {"us", sums["us"]}}, nil
	}, asset.WithHandler(h), asset.Delta())

	store, _ := state.OpenFile(filepath.Join(dir, "_state"))
	repo := asset.NewRepository(asset.WithState(store))
	if err := repo.Register(orders, totals); err != nil {
		panic(err)
	}
	// A backfill of two keys, twice (each appends a file to both partitions),
	// then totals over every key.
	for range 2 {
		if _, err := repo.Materialize(ctx, []string{"orders"}, asset.Keys("us", "eu")); err != nil {
			panic(err)
		}
	}
	if _, err := repo.Materialize(ctx, []string{"totals"}); err != nil {
		panic(err)
	}

	// Compact one partition; vacuum the replaced files now.
	res, err := repo.RunAction(ctx, "optimize", []string{"orders"}, asset.Keys("us"))
	if err != nil {
		panic(err)
	}
	fmt.Println("optimize us:", res[0].Status, res[0].Metadata)
	res, err = repo.RunAction(ctx, "vacuum", []string{"orders"},
		asset.Config("orders", json.RawMessage(`{"retention_hours": 0, "enforce_retention_duration": false}`)))
	if err != nil {
		panic(err)
	}
	fmt.Println("vacuum:", res[0].Status, res[0].Metadata)

	// Without a key, optimize of a partitioned asset needs the explicit choice.
	_, err = repo.RunAction(ctx, "optimize", []string{"orders"})
	fmt.Println(err != nil)

	// delete runs on the downstream assets first and clears their state.
	res, err = repo.RunAction(ctx, "delete", nil, asset.WholeAsset())
	if err != nil {
		panic(err)
	}
	for _, r := range res {
		fmt.Println("delete", r.Asset+":", r.Status, r.Metadata)
	}
	left, _ := store.List(ctx, "orders")
	fmt.Println("orders state records:", len(left))
	// Output:
	// optimize us: unchanged map[files_added:1 files_removed:2]
	// vacuum: unchanged map[files_deleted:2]
	// true
	// delete orders: unmaterialized map[rows_deleted:4]
	// delete totals: unmaterialized map[rows_deleted:2]
	// orders state records: 0
}

// A custom verb uses the handler's resolution, as the write path does:
// the asset's table, its storage options, the run's partition predicate.
func ExampleContext_PartitionPredicate() {
	dir, _ := os.MkdirTemp("", "warehouse")
	defer os.RemoveAll(dir)
	h, _ := iohandler.New(iohandler.Config{TableURI: dir})
	describe := asset.Action{Name: "describe",
		Declaration: asset.Declaration{Outcome: asset.Unchanged, Partitioning: asset.Required},
		Run: func(c *asset.ActionContext) (asset.ActionResult, error) {
			uri, err := c.TableURI()
			if err != nil {
				return asset.ActionResult{}, err
			}
			pred, err := c.PartitionPredicate()
			if err != nil {
				return asset.ActionResult{}, err
			}
			return asset.ActionResult{Metadata: map[string]any{"table": filepath.Base(uri), "predicate": pred}}, nil
		}}
	repo := asset.NewRepository()
	err := repo.Register(asset.External("events", asset.WithHandler(h),
		asset.WithPartitions(partitions.Daily(mustDate("2024-01-01"))),
		asset.WithMetadata(map[string]string{"delta/partition_expr": "day", "delta/root_name": "events_v2"}),
		asset.WithActions(describe)))
	if err != nil {
		panic(err)
	}
	res, err := repo.RunAction(context.Background(), "describe", nil, asset.Keys("2024-01-02"))
	if err != nil {
		panic(err)
	}
	fmt.Println(res[0].Metadata["table"])
	fmt.Println(res[0].Metadata["predicate"])
	// Output:
	// events_v2
	// day >= '2024-01-02' AND day < '2024-01-03'
}

func mustDate(s string) (t time.Time) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(err)
	}
	return t
}
