package deltalite_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// changeRows reads our change data feed of dir as canonical rows.
func changeRows(t *testing.T, dir string, opts deltalite.ChangesOptions) []string {
	t.Helper()
	rr, err := openT(t, dir).Changes(context.Background(), opts)
	if err != nil {
		t.Fatalf("Changes(%+v): %v", opts, err)
	}
	defer rr.Release()
	var batches []arrow.RecordBatch
	for rr.Next() {
		b := rr.RecordBatch()
		b.Retain()
		batches = append(batches, b)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("Changes(%+v): %v", opts, err)
	}
	defer func() {
		for _, b := range batches {
			b.Release()
		}
	}()
	return arrowrows.Rows(batches...)
}

// changesErr is the error of reading dir's changes with opts.
func changesErr(t *testing.T, dir string, opts deltalite.ChangesOptions) error {
	t.Helper()
	rr, err := openT(t, dir).Changes(context.Background(), opts)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
	}
	return rr.Err()
}

// sparkCDFOps are Spark SQL statements that give a CDF table every kind of
// change: inserts, an UPDATE, a DELETE, a MERGE with update, delete and
// insert clauses, an OPTIMIZE (no change) and a DELETE of a whole partition
// (a remove without change data on a partitioned table).
func sparkCDFOps(dir, partitionBy string) []peers.Op {
	sql := func(s string) peers.Op { return peers.Op{"op": "sql", "path": dir, "sql": s, "collect": false} }
	return []peers.Op{
		sql("CREATE TABLE {table} (id BIGINT, g STRING, v DOUBLE) USING delta " + partitionBy + " TBLPROPERTIES (delta.enableChangeDataFeed = true)"),
		sql("INSERT INTO {table} VALUES (1, 'a', 1.0), (2, 'a', 2.0), (3, 'b', 3.0), (4, 'b', 4.0), (5, 'c', 5.0)"),
		sql("INSERT INTO {table} VALUES (7, 'd', 7.0), (8, 'd', 8.0)"),
		sql("UPDATE {table} SET v = v * 10 WHERE id IN (1, 3)"),
		sql("DELETE FROM {table} WHERE id = 2"),
		sql("MERGE INTO {table} t USING (SELECT * FROM VALUES (3, 'b', 33.0), (4, 'b', -1.0), (6, 'c', 6.0) AS s(id, g, v)) s ON t.id = s.id " +
			"WHEN MATCHED AND s.v < 0 THEN DELETE WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"),
		sql("OPTIMIZE {table}"),
		sql("DELETE FROM {table} WHERE g = 'd'"),
	}
}

// sparkChanges selects cols of Spark's table_changes of dir from..to,
// filtered by where when given.
func sparkChanges(dir string, from int64, to *int64, cols, where string) peers.Op {
	args := fmt.Sprint(from)
	if to != nil {
		args += fmt.Sprint(", ", *to)
	}
	q := fmt.Sprintf("SELECT %s FROM table_changes_by_path('%s', %s)", cols, dir, args)
	if where != "" {
		q += " WHERE " + where
	}
	return peers.Op{"op": "sql", "sql": q}
}

// TestChangesMatchSpark: on tables Spark writes with every kind of change,
// partitioned and not, our change data feed equals Spark's table_changes row
// for row (every column, _commit_timestamp included), over the whole range,
// from mid-way, to an end version, with a predicate and a projection; and
// delta-rs's load_cdf agrees on every column but the timestamp (delta-rs
// takes commitInfo's time, not the commit file's).
func TestChangesMatchSpark(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	spark := peers.Spark(t)
	root := t.TempDir()
	dirs := map[string]string{"flat": filepath.Join(root, "flat"), "partitioned": filepath.Join(root, "partitioned")}
	var ops []peers.Op
	ops = append(ops, sparkCDFOps(dirs["flat"], "")...)
	ops = append(ops, sparkCDFOps(dirs["partitioned"], "PARTITIONED BY (g)")...)
	spark.Run(t, ops...)

	three := int64(3)
	cases := []struct {
		name string
		opts deltalite.ChangesOptions
		to   *int64
		cols string
	}{
		{name: "all", cols: "*"},
		{name: "from 3", opts: deltalite.ChangesOptions{FromVersion: 3}, cols: "*"},
		{name: "1 to 3", opts: deltalite.ChangesOptions{FromVersion: 1, ToVersion: &three}, to: &three, cols: "*"},
		{name: "where", opts: deltalite.ChangesOptions{Where: "v > 4 OR g = 'd'"}, cols: "*"},
		{name: "columns", opts: deltalite.ChangesOptions{Columns: []string{"_commit_version", "id", "_change_type"}}, cols: "_commit_version, id, _change_type"},
	}
	for _, kind := range []string{"flat", "partitioned"} {
		dir := dirs[kind]
		var reads []peers.Op
		for _, c := range cases {
			reads = append(reads, sparkChanges(dir, c.opts.FromVersion, c.to, c.cols, c.opts.Where))
		}
		res := spark.Run(t, reads...)
		for i, c := range cases {
			t.Run(kind+"/"+c.name, func(t *testing.T) {
				want := res[i].Table(t).Lines(t)
				if len(want) == 0 {
					t.Fatal("Spark returned no change rows")
				}
				arrowrows.Diff(t, changeRows(t, dir, c.opts), want)
			})
		}
		t.Run(kind+"/delta-rs", func(t *testing.T) {
			theirs, err := peers.DecodeTable(peers.RunPython(t, "read_cdf.py", dir, "--from", "0"))
			if err != nil {
				t.Fatal(err)
			}
			cols := []string{"id", "g", "v", "_change_type", "_commit_version"}
			arrowrows.Diff(t, changeRows(t, dir, deltalite.ChangesOptions{Columns: cols}), projectLines(t, theirs, cols))
		})
	}
}

// projectLines renders a peer's rows restricted to cols.
func projectLines(t *testing.T, tb peers.Table, cols []string) []string {
	t.Helper()
	keep := map[string]bool{}
	for _, c := range cols {
		keep[c] = true
	}
	var fields []peers.Field
	for _, f := range tb.Fields {
		if keep[f.Name] {
			fields = append(fields, f)
		}
	}
	tb.Fields = fields
	for i, row := range tb.Rows {
		r := map[string]any{}
		for k, v := range row {
			if keep[k] {
				r[k] = v
			}
		}
		tb.Rows[i] = r
	}
	return tb.Lines(t)
}

// TestChangesErrors: what Spark refuses we refuse, with a message that says
// why and what to do: a range starting before the change data feed was
// enabled, a table without it, a start after the latest version, an end
// before the start, and a change data file removed (as VACUUM does) named.
func TestChangesErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("interop with Spark: not in -short mode")
	}
	spark := peers.Spark(t)
	root := t.TempDir()
	late, plain, cdf := filepath.Join(root, "late"), filepath.Join(root, "plain"), filepath.Join(root, "cdf")
	sql := func(dir, s string) peers.Op { return peers.Op{"op": "sql", "path": dir, "sql": s, "collect": false} }
	spark.Run(t,
		sql(late, "CREATE TABLE {table} (id BIGINT, v STRING) USING delta"),
		sql(late, "INSERT INTO {table} VALUES (1, 'a')"),
		sql(late, "ALTER TABLE {table} SET TBLPROPERTIES (delta.enableChangeDataFeed = true)"),
		sql(late, "INSERT INTO {table} VALUES (2, 'b')"),
		sql(plain, "CREATE TABLE {table} (id BIGINT) USING delta"),
		sql(plain, "INSERT INTO {table} VALUES (1)"),
		sql(cdf, "CREATE TABLE {table} (id BIGINT, v STRING) USING delta TBLPROPERTIES (delta.enableChangeDataFeed = true)"),
		sql(cdf, "INSERT INTO {table} VALUES (1, 'a'), (2, 'b')"),
		sql(cdf, "UPDATE {table} SET v = 'c' WHERE id = 2"),
	)
	res := spark.Try(t, sparkChanges(late, 0, nil, "*", ""), sparkChanges(late, 2, nil, "*", ""))
	if res[0].OK || !strings.Contains(res[0].Error, "DELTA_MISSING_CHANGE_DATA") {
		t.Fatalf("Spark from 0 on a table with CDF from version 2: ok=%v %q", res[0].OK, res[0].Error)
	}
	arrowrows.Diff(t, changeRows(t, late, deltalite.ChangesOptions{FromVersion: 2}), res[1].Table(t).Lines(t))

	two, one := int64(2), int64(1)
	for _, c := range []struct {
		name string
		dir  string
		opts deltalite.ChangesOptions
		kind error
		want []string
	}{
		{"before enabled", late, deltalite.ChangesOptions{}, deltalite.ErrInvalidArgument,
			[]string{"versions 0 to 3", "change data was not recorded for version 0", "delta.enableChangeDataFeed"}},
		{"disabled table", plain, deltalite.ChangesOptions{}, deltalite.ErrInvalidArgument,
			[]string{"change data was not recorded for version 0", "delta.enableChangeDataFeed=true"}},
		{"start after latest", cdf, deltalite.ChangesOptions{FromVersion: 5}, deltalite.ErrInvalidArgument,
			[]string{"start version 5", "exceeds the latest table version 2"}},
		{"end before start", cdf, deltalite.ChangesOptions{FromVersion: 2, ToVersion: &one}, deltalite.ErrInvalidArgument,
			[]string{"from version 2 to version 1", "the end cannot be before the start"}},
		{"unknown column", cdf, deltalite.ChangesOptions{Columns: []string{"nope"}}, deltalite.ErrInvalidArgument,
			[]string{`no column "nope"`, `"_change_type"`}},
		{"predicate on a change column", cdf, deltalite.ChangesOptions{Where: "_change_type = 'insert'"}, deltalite.ErrInvalidArgument,
			[]string{"_change_type"}},
		{"both starts", cdf, deltalite.ChangesOptions{FromVersion: 1, ToVersion: &two, FromTimestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}, deltalite.ErrInvalidArgument,
			[]string{"version or a timestamp, not both"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := changesErr(t, c.dir, c.opts)
			if err == nil || !errors.Is(err, c.kind) {
				t.Fatalf("got %v, want %v", err, c.kind)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}

	t.Run("vacuumed change data", func(t *testing.T) {
		files, _ := filepath.Glob(filepath.Join(cdf, "_change_data", "*.parquet"))
		if len(files) == 0 {
			t.Fatal("Spark's UPDATE wrote no change data file")
		}
		if err := os.Remove(files[0]); err != nil {
			t.Fatal(err)
		}
		err := changesErr(t, cdf, deltalite.ChangesOptions{})
		if !errors.Is(err, deltalite.ErrNotFound) {
			t.Fatalf("got %v, want ErrNotFound", err)
		}
		for _, w := range []string{filepath.Base(files[0]), "change data file of version 2", "VACUUM", "from a later version"} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("error %q does not say %q", err, w)
			}
		}
		// The versions before it still read.
		if rows := changeRows(t, cdf, deltalite.ChangesOptions{ToVersion: &one}); len(rows) != 2 {
			t.Errorf("changes to version 1: %v", rows)
		}
	})
}
