package iohandler_test

// The examples of docs/iohandler.md, run on real tables (a check in
// docs_test.go keeps the document's Go blocks in these functions).

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/partitions"
)

type User struct {
	ID   int64  `delta:"id"`
	Name string `delta:"name"`
}

type Event struct {
	ID  int64     `delta:"id"`
	Day time.Time `delta:"day,date"`
}

// tempDir is where an example keeps its tables.
func tempDir() string {
	dir, err := os.MkdirTemp("", "iohandler-example-*")
	if err != nil {
		log.Fatal(err)
	}
	return dir
}

func Example_basic() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		log.Fatal(err)
	}
	users := []User{{1, "Alice"}, {2, "Bob"}, {3, "Carol"}}
	md, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "users"}, users)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(md["delta/mode"], md["delta/num_rows"], md["delta/version"])

	back, err := iohandler.LoadInput[[]User](ctx, h, iohandler.InputContext{Asset: "users"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back)
	// Output:
	// overwrite 3 0
	// [{1 Alice} {2 Bob} {3 Carol}]
}

func Example_modes() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// The handler's default mode, and a per-asset override in metadata.
	h, err := iohandler.New(iohandler.Config{TableURI: dir, Mode: "append"})
	if err != nil {
		log.Fatal(err)
	}
	events := []User{{1, "login"}, {2, "logout"}}
	for range 2 {
		md, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "events"}, events)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(md["delta/mode"], md["delta/table_num_rows"])
	}
	md, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "events",
		Metadata: map[string]string{"delta/mode": "overwrite"}}, events)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(md["delta/mode"], md["delta/table_num_rows"])
	// Output:
	// append 2
	// append 4
	// overwrite 2
}

func Example_partitionedWrites() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		log.Fatal(err)
	}

	daily := partitions.Daily(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	md := map[string]string{"delta/partition_expr": "day"}
	day := func(d int) time.Time { return time.Date(2024, 1, d, 0, 0, 0, 0, time.UTC) }
	out := func(key string) iohandler.OutputContext {
		return iohandler.OutputContext{Asset: "daily_events", Metadata: md, Partitions: daily, PartitionKeys: []string{key}}
	}
	// Overwrite with a key replaces only that partition.
	for _, run := range []struct {
		key  string
		rows []Event
	}{
		{"2024-01-01", []Event{{1, day(1)}, {2, day(1)}}},
		{"2024-01-02", []Event{{3, day(2)}}},
		{"2024-01-02", []Event{{4, day(2)}}},
	} {
		if _, err := h.HandleOutput(ctx, out(run.key), run.rows); err != nil {
			log.Fatal(err)
		}
	}
	// Rows outside the key are refused, and nothing is written.
	_, err = h.HandleOutput(ctx, out("2024-01-01"), []Event{{5, day(3)}})
	fmt.Println(err != nil)

	in := iohandler.InputContext{Asset: "daily_events", Metadata: md, Partitions: daily, PartitionKeys: []string{"2024-01-02"}}
	rows, err := iohandler.LoadInput[[]Event](ctx, h, in)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(rows), rows[0].ID, rows[0].Day.Format(time.DateOnly))
	// Output:
	// true
	// 1 4 2024-01-02
}

func Example_mergeTypes() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	// merge_config is the merge spec of `deltalite merge --spec`.
	h, err := iohandler.New(iohandler.Config{TableURI: dir, Mode: "merge",
		MergeConfig: json.RawMessage(`{"merge_type": "upsert", "predicate": "s.id = t.id"}`)})
	if err != nil {
		log.Fatal(err)
	}
	oc := iohandler.OutputContext{Asset: "users"}
	// A merge into a missing table creates it.
	if _, err := h.HandleOutput(ctx, oc, []User{{1, "Alice"}, {2, "Bob"}}); err != nil {
		log.Fatal(err)
	}
	md, err := h.HandleOutput(ctx, oc, []User{{2, "Bobby"}, {3, "Carol"}})
	if err != nil {
		log.Fatal(err)
	}
	var stats map[string]any
	if err := json.Unmarshal([]byte(md["delta/merge_stats"].(string)), &stats); err != nil {
		log.Fatal(err)
	}
	fmt.Println(stats["num_target_rows_updated"], stats["num_target_rows_inserted"])

	users, err := iohandler.LoadInput[[]User](ctx, h, iohandler.InputContext{Asset: "users"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(users)
	// Output:
	// 1 1
	// [{1 Alice} {2 Bobby} {3 Carol}]
}

type Row struct {
	ID        int64     `delta:"id"`
	Value     string    `delta:"value"`
	UpdatedAt time.Time `delta:"updated_at"`
}

func Example_customMerge() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	h, err := iohandler.New(iohandler.Config{TableURI: dir, Mode: "merge", MergeConfig: json.RawMessage(`{
		"merge_type": "custom",
		"predicate": "s.id = t.id",
		"operations": {
			"when_matched_update_all": [{"predicate": "s.updated_at > t.updated_at"}],
			"when_not_matched_insert_all": [{}]
		}}`)})
	if err != nil {
		log.Fatal(err)
	}
	at := func(h int) time.Time { return time.Date(2024, 1, 1, h, 0, 0, 0, time.UTC) }
	oc := iohandler.OutputContext{Asset: "rows"}
	if _, err := h.HandleOutput(ctx, oc, []Row{{1, "a", at(10)}, {2, "b", at(10)}}); err != nil {
		log.Fatal(err)
	}
	// Row 1 is newer and replaces; row 2 is older and is left alone.
	if _, err := h.HandleOutput(ctx, oc, []Row{{1, "a2", at(11)}, {2, "b0", at(9)}, {3, "c", at(9)}}); err != nil {
		log.Fatal(err)
	}
	rows, err := iohandler.LoadInput[[]Row](ctx, h, iohandler.InputContext{Asset: "rows"})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Println(r.ID, r.Value)
	}
	// Output:
	// 1 a2
	// 2 b
	// 3 c
}

func Example_storageOptions() {
	h, err := iohandler.New(iohandler.Config{
		TableURI: "s3://my-bucket/delta",
		StorageOptions: map[string]string{
			"AWS_REGION":            "us-east-1",
			"AWS_ACCESS_KEY_ID":     "...",
			"AWS_SECRET_ACCESS_KEY": "...",
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.AssetTableURI("users", nil))
	// Output:
	// s3://my-bucket/delta/users
}

func Example_tableConfiguration() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()

	h, err := iohandler.New(iohandler.Config{TableURI: dir,
		TableConfig: map[string]string{"delta.deletedFileRetentionDuration": "interval 30 days"}})
	if err != nil {
		log.Fatal(err)
	}
	// Per asset, JSON laid over the handler's.
	md := map[string]string{"delta/table_configuration": `{"delta.logRetentionDuration": "interval 60 days"}`}
	if _, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "events", Metadata: md}, []User{{1, "a"}}); err != nil {
		log.Fatal(err)
	}
	t, err := deltalite.Open(ctx, h.AssetTableURI("events", md))
	if err != nil {
		log.Fatal(err)
	}
	conf := t.Metadata().Configuration
	fmt.Println(conf["delta.deletedFileRetentionDuration"], "/", conf["delta.logRetentionDuration"])
	// Output:
	// interval 30 days / interval 60 days
}

func Example_columnSelection() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "rows"}, []Row{{1, "a", time.Now()}}); err != nil {
		log.Fatal(err)
	}

	md := map[string]string{"delta/columns": `["id", "value"]`}
	rr, err := iohandler.LoadInput[array.RecordReader](ctx, h, iohandler.InputContext{Asset: "rows", Metadata: md})
	if err != nil {
		log.Fatal(err)
	}
	defer rr.Release()
	for _, f := range rr.Schema().Fields() {
		fmt.Println(f.Name)
	}
	// Output:
	// id
	// value
}

func Example_timeTravel() {
	dir := tempDir()
	defer os.RemoveAll(dir)
	ctx := context.Background()
	h, err := iohandler.New(iohandler.Config{TableURI: dir})
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"Alice", "Alicia"} {
		if _, err := h.HandleOutput(ctx, iohandler.OutputContext{Asset: "users"}, []User{{1, name}}); err != nil {
			log.Fatal(err)
		}
	}

	md := map[string]string{"delta/version": "0"}
	users, err := iohandler.LoadInput[[]User](ctx, h, iohandler.InputContext{Asset: "users", Metadata: md})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(users)
	// Output:
	// [{1 Alice}]
}
