package asset_test

// The examples of docs/iohandler.md that need the runtime, run on real
// tables (iohandler's docs_test.go keeps the document's Go blocks in
// these functions).

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/deltalite-go/deltalite/asset"
	"github.com/deltalite-go/deltalite/asset/state"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
	"github.com/deltalite-go/deltalite/scan"
)

type Order struct {
	ID  int64     `delta:"id"`
	Day time.Time `delta:"day,date"`
}

// ordersRepo is a repository holding one daily-partitioned Delta asset,
// "orders", with the Delta verbs and extra actions, and every key of
// days materialized.
func ordersRepo(dir string, days []string, actions ...asset.Action) *asset.Repository {
	ctx := context.Background()
	h, store := handlerAndState(dir)
	orders := asset.Define0("orders", func(c *asset.Context) ([]Order, error) {
		var out []Order
		for _, k := range c.PartitionKeys {
			day, err := time.Parse(time.DateOnly, k)
			if err != nil {
				return nil, err
			}
			out = append(out, Order{int64(len(out)), day}, Order{int64(len(out) + 1), day})
		}
		return out, nil
	},
		asset.WithHandler(h),
		asset.WithPartitions(partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))),
		asset.WithMetadata(map[string]string{"delta/partition_expr": "day"}),
		asset.Delta(),
		asset.WithActions(actions...),
	)
	repo := asset.NewRepository(asset.WithState(store))
	if err := repo.Register(orders); err != nil {
		log.Fatal(err)
	}
	for _, day := range days {
		if _, err := repo.Materialize(ctx, nil, asset.Keys(day)); err != nil {
			log.Fatal(err)
		}
	}
	return repo
}

// handlerAndState are a handler keeping tables under dir/tables and a
// state store in dir/state.
func handlerAndState(dir string) (*iohandler.Handler, *state.File) {
	h, err := iohandler.New(iohandler.Config{TableURI: filepath.Join(dir, "tables")})
	if err != nil {
		log.Fatal(err)
	}
	store, err := state.OpenFile(filepath.Join(dir, "state"))
	if err != nil {
		log.Fatal(err)
	}
	return h, store
}

func tempDir() string {
	dir, err := os.MkdirTemp("", "asset-example-*")
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

func Example_maintenanceActions() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	repo := ordersRepo(dir, []string{"2024-01-01", "2024-01-02"})

	show := func(res []asset.Result, err error) {
		if err != nil {
			fmt.Println("refused:", err != nil)
			return
		}
		for _, r := range res {
			fmt.Println(r.Asset, r.Keys, r.Status, r.Err)
		}
	}
	// Optimize one partition's files, then the whole table (the explicit choice).
	show(repo.RunAction(ctx, "optimize", nil, asset.Keys("2024-01-01")))
	show(repo.RunAction(ctx, "optimize", nil))
	show(repo.RunAction(ctx, "optimize", nil, asset.WholeAsset()))
	// Vacuum is table-wide; its configuration is per asset.
	show(repo.RunAction(ctx, "vacuum", nil,
		asset.Config("orders", json.RawMessage(`{"retention_hours": 0, "enforce_retention_duration": false}`))))
	// Delete one partition's rows; the state of that key is cleared.
	show(repo.RunAction(ctx, "delete", nil, asset.Keys("2024-01-02")))
	// Output:
	// orders [2024-01-01] unchanged <nil>
	// refused: true
	// orders [] unchanged <nil>
	// orders [] unchanged <nil>
	// orders [2024-01-02] unmaterialized <nil>
}

func Example_customVerbs() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// A verb that counts the rows of the run's partitions (or the table's),
	// resolved as the handler resolves writes: same table, same options,
	// same partition predicate.
	count := asset.Action{Name: "count",
		Declaration: asset.Declaration{Outcome: asset.Unchanged, Partitioning: asset.Optional},
		Run: func(c *asset.ActionContext) (asset.ActionResult, error) {
			t, ok, err := c.OpenTable()
			if err != nil || !ok {
				return asset.ActionResult{}, err
			}
			var opts []scan.Option
			if len(c.PartitionKeys) > 0 {
				pred, err := c.PartitionPredicate()
				if err != nil {
					return asset.ActionResult{}, err
				}
				opts = append(opts, scan.WithWhere(pred))
			}
			rr, err := t.Scan(opts...).RecordReader(c)
			if err != nil {
				return asset.ActionResult{}, err
			}
			defer rr.Release()
			n := int64(0)
			for rr.Next() {
				n += rr.RecordBatch().NumRows()
			}
			return asset.ActionResult{Metadata: map[string]any{"rows": n}}, rr.Err()
		}}
	repo := ordersRepo(dir, []string{"2024-01-01", "2024-01-02"}, count)

	res, err := repo.RunAction(ctx, "count", nil, asset.Keys("2024-01-02"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Metadata["rows"])
	res, err = repo.RunAction(ctx, "count", nil, asset.WholeAsset())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res[0].Metadata["rows"])
	// Output:
	// 2
	// 4
}

// Change is a change row of the events asset, as an incremental asset
// reads it.
type Change struct {
	ID      int64  `delta:"id"`
	Kind    string `delta:"_change_type"`
	Version int64  `delta:"_commit_version"`
}

func Example_incremental() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	h, store := handlerAndState(dir)
	type Event struct {
		ID int64 `delta:"id"`
	}
	next := int64(0)
	events := asset.Define0("events", func(c *asset.Context) ([]Event, error) {
		next++
		return []Event{{next}}, nil
	}, asset.WithHandler(h), asset.WithMetadata(map[string]string{
		"delta/mode": "append", "delta/table_configuration": `{"delta.enableChangeDataFeed": "true"}`}))
	// seen gets the changes of events since its last materialization.
	seen := asset.Define1("seen", "events", func(c *asset.Context, changes []Change) ([]Change, error) {
		slices.SortFunc(changes, func(a, b Change) int { return cmp.Compare(a.ID, b.ID) })
		fmt.Println(changes)
		return changes, nil
	}, asset.WithHandler(h), asset.WithMetadata(map[string]string{"delta/mode": "append"}),
		asset.ReadChanges("events"))
	repo := asset.NewRepository(asset.WithState(store))
	if err := repo.Register(events, seen); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		if _, err := repo.Materialize(ctx, nil); err != nil {
			log.Fatal(err)
		}
	}
	// A full materialization reads the whole table again.
	if _, err := repo.Materialize(ctx, []string{"seen"}, asset.FullRead()); err != nil {
		log.Fatal(err)
	}
	// Output:
	// [{1 insert 0}]
	// [{2 insert 1}]
	// [{1 insert 1} {2 insert 1}]
}
