package cloudtest

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
)

// TestTableLifecycle: create, append, replace-where and full overwrites of
// a partitioned table, then every version read back by time travel and the
// history listed, on each store.
func TestTableLifecycle(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("life-")
		ctx := ctxFor(t, 2*time.Minute)
		began := time.Now()

		if _, err := deltalite.Open(ctx, uri, deltalite.WithStorageOptions(c.opts)); !errors.Is(err, deltalite.ErrTableNotFound) {
			t.Fatalf("Open before create: %v; want ErrTableNotFound", err)
		}
		sc := &schema.Struct{Fields: []*schema.Field{
			{Name: "id", Type: &schema.Primitive{Name: schema.Long}, Nullable: true},
			{Name: "name", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
			{Name: "day", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
		}}
		tb, err := deltalite.Create(ctx, uri, sc, deltalite.CreateOptions{PartitionBy: []string{"day"}, Name: "people",
			StorageOptions: c.opts})
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		if tb.Version() != 0 || !slices.Equal(tb.PartitionColumns(), []string{"day"}) || len(scanLines(t, tb)) != 0 {
			t.Fatalf("created table: version %d, partitions %v", tb.Version(), tb.PartitionColumns())
		}
		if tb.URI() != uri {
			t.Fatalf("URI() = %s, want %s", tb.URI(), uri)
		}

		// want[v] is the content of version v.
		want := [][]string{nil}
		step := func(wo deltalite.WriteOptions, rows []person, content ...person) {
			t.Helper()
			res := c.write(t, uri, people(rows...), wo)
			if res.Version != int64(len(want)) {
				t.Fatalf("write %+v committed version %d, want %d", wo, res.Version, len(want))
			}
			want = append(want, lines(content...))
		}
		a1, b2, c1 := person{1, "a", "d1"}, person{2, "b", "d2"}, person{3, "c", "d1"}
		x1, y3 := person{10, "x", "d1"}, person{20, "y", "d3"}
		step(deltalite.WriteOptions{Mode: deltalite.ModeAppend}, []person{a1, b2}, a1, b2)
		step(deltalite.WriteOptions{Mode: deltalite.ModeAppend, PartitionBy: []string{"day"}}, []person{c1}, a1, b2, c1)
		mid := time.Now()
		time.Sleep(time.Until(mid.Truncate(time.Second).Add(time.Second + 20*time.Millisecond)))
		step(deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd1'"}, []person{x1}, x1, b2)
		step(deltalite.WriteOptions{Mode: deltalite.ModeOverwrite}, []person{y3}, y3)

		// The table that was opened at version 0 moves on with Reload.
		if err := tb.Reload(ctx); err != nil || tb.Version() != 4 {
			t.Fatalf("Reload: version %d, %v", tb.Version(), err)
		}
		sameLines(t, "latest", scanLines(t, tb), want[4])
		for v := range want {
			got, rows := c.readLines(t, uri, deltalite.WithVersion(int64(v)))
			if got != int64(v) {
				t.Fatalf("WithVersion(%d) opened version %d", v, got)
			}
			sameLines(t, fmt.Sprintf("version %d", v), rows, want[v])
		}
		if _, err := deltalite.Open(ctx, uri, deltalite.WithStorageOptions(c.opts), deltalite.WithVersion(5)); !errors.Is(err, deltalite.ErrNotFound) {
			t.Fatalf("WithVersion(5): %v; want ErrNotFound", err)
		}

		hist, err := tb.History(ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		var ops []string
		for i, h := range hist {
			if h.Version != int64(4-i) {
				t.Fatalf("history[%d] is version %d", i, h.Version)
			}
			ops = append(ops, h.Info.Operation)
			if h.Info.OperationParameters["mode"] == "Overwrite" && i == 1 && h.Info.OperationParameters["predicate"] == nil {
				t.Errorf("replace-where commit without its predicate: %v", h.Info.OperationParameters)
			}
		}
		if wantOps := []string{"WRITE", "WRITE", "WRITE", "WRITE", "CREATE TABLE"}; !slices.Equal(ops, wantOps) {
			t.Fatalf("history operations %v, want %v", ops, wantOps)
		}
		// Time travel by timestamp goes by the commit files' modification
		// times, which some stores keep to the second: mid lies after
		// version 2 and at least a second before version 3.
		got, rows := c.readLines(t, uri, deltalite.WithTimestamp(mid))
		if got != 2 {
			t.Fatalf("WithTimestamp(between versions 2 and 3) opened version %d", got)
		}
		sameLines(t, "by timestamp", rows, want[2])
		// After the latest commit: refused naming its time, as Spark does.
		if _, err := deltalite.Open(ctx, uri, deltalite.WithStorageOptions(c.opts), deltalite.WithTimestamp(time.Now().Add(time.Hour))); !errors.Is(err, deltalite.ErrInvalidArgument) ||
			!strings.Contains(err.Error(), "after the latest commit (version 4") {
			t.Fatalf("WithTimestamp(an hour ahead): %v; want ErrInvalidArgument naming version 4", err)
		}
		// History reports the times time travel goes by, whole seconds or not.
		for _, h := range hist {
			if got, _ := c.readLines(t, uri, deltalite.WithTimestamp(h.Timestamp)); got != h.Version {
				t.Fatalf("WithTimestamp(history time of version %d, %v) opened version %d", h.Version, h.Timestamp, got)
			}
		}
		if _, err := deltalite.Open(ctx, uri, deltalite.WithStorageOptions(c.opts), deltalite.WithTimestamp(began.Add(-time.Hour))); !errors.Is(err, deltalite.ErrNotFound) {
			t.Fatalf("WithTimestamp(before the table): %v; want ErrNotFound", err)
		}
		if limited, err := tb.History(ctx, 2); err != nil || len(limited) != 2 || limited[0].Version != 4 {
			t.Fatalf("History(2) = %d commits, %v", len(limited), err)
		}

		// Data files sit in Hive-style partition directories of the store.
		var dirs []string
		for _, k := range c.keys(t, uri) {
			if d, _, ok := strings.Cut(k, "/"); ok && d != "_delta_log" && !slices.Contains(dirs, d) {
				dirs = append(dirs, d)
			}
		}
		slices.Sort(dirs)
		if !slices.Equal(dirs, []string{"day=d1", "day=d2", "day=d3"}) {
			t.Fatalf("partition directories %v", dirs)
		}

		// Modes that must not change an existing table.
		src := people(person{99, "z", "d9"})
		defer src.Release()
		if _, err := deltalite.Write(ctx, uri, src, deltalite.WriteOptions{Mode: deltalite.ModeError, StorageOptions: c.opts}); !errors.Is(err, deltalite.ErrTableExists) {
			t.Fatalf("ModeError on an existing table: %v", err)
		}
		if res := c.write(t, uri, people(person{99, "z", "d9"}), deltalite.WriteOptions{Mode: deltalite.ModeIgnore}); !res.Skipped || res.Version != 4 {
			t.Fatalf("ModeIgnore: %+v", res)
		}
		if v, rows := c.readLines(t, uri); v != 4 || !slices.Equal(rows, want[4]) {
			t.Fatalf("after error and ignore: version %d rows %v", v, rows)
		}
	})
}

// TestUnpartitionedTable: a table created by Write itself, appended to and
// overwritten, on each store.
func TestUnpartitionedTable(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("flat-")
		if res := c.write(t, uri, people(person{1, "a", "d"}), deltalite.WriteOptions{}); !res.Created || res.Version != 0 || res.RowsWritten != 1 {
			t.Fatalf("first write: %+v", res)
		}
		c.write(t, uri, people(person{2, "b", "d"}, person{3, "c", "e"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		v, rows := c.readLines(t, uri)
		sameLines(t, "after append", rows, lines(person{1, "a", "d"}, person{2, "b", "d"}, person{3, "c", "e"}))
		if v != 1 {
			t.Fatalf("version %d", v)
		}
		res := c.write(t, uri, people(person{4, "d", "f"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
		if res.FilesRemoved != 2 || res.Version != 2 {
			t.Fatalf("overwrite: %+v", res)
		}
		_, rows = c.readLines(t, uri)
		sameLines(t, "after overwrite", rows, lines(person{4, "d", "f"}))
		_, rows = c.readLines(t, uri, deltalite.WithVersion(0))
		sameLines(t, "version 0", rows, lines(person{1, "a", "d"}))
	})
}

// TestInCommitTimestamps: with delta.enableInCommitTimestamps, the time
// History shows for a commit opens exactly that version, however coarse
// the store's modification times (versitygw and Azurite list whole
// seconds, as S3 itself does).
func TestInCommitTimestamps(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("ict-")
		want := []person{{0, "a", "d"}}
		c.write(t, uri, people(want...), deltalite.WriteOptions{Properties: map[string]string{"delta.enableInCommitTimestamps": "true"}})
		for i := 1; i <= 4; i++ {
			p := person{int64(i), "a", "d"}
			c.write(t, uri, people(p), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			want = append(want, p)
		}
		hist, err := c.open(t, uri).History(ctxFor(t, time.Minute), 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hist) != 5 {
			t.Fatalf("history has %d commits", len(hist))
		}
		for _, h := range hist {
			if h.Info.InCommitTimestamp == nil || *h.Info.InCommitTimestamp != h.Timestamp.UnixMilli() {
				t.Fatalf("version %d: in-commit timestamp %v, history time %v", h.Version, h.Info.InCommitTimestamp, h.Timestamp)
			}
			v, rows := c.readLines(t, uri, deltalite.WithTimestamp(h.Timestamp))
			if v != h.Version {
				t.Fatalf("WithTimestamp(%v) opened version %d, want %d", h.Timestamp, v, h.Version)
			}
			sameLines(t, fmt.Sprintf("version %d by timestamp", v), rows, lines(want[:v+1]...))
		}
	})
}
