package iohandler_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/iohandler"
	"github.com/deltalite-go/deltalite/testkit/arrowrows"
)

// TestLoadChangesOfPartitionKeys: a keyed load of changes returns the
// changes of the key's partition since the version given, with the
// columns of delta/columns (the change columns it names), and the version
// read; without a version, the partition's rows as inserts at the table's
// version; at the table's version, no row. A bad delta/read value is
// refused naming the key.
func TestLoadChangesOfPartitionKeys(t *testing.T) {
	h := newHandler(t, iohandler.Config{})
	cdf := map[string]string{"delta/table_configuration": `{"delta.enableChangeDataFeed": "true"}`}
	for _, w := range []struct {
		key  string
		rows []string
	}{{"d1", []string{"1:a:d1", "2:b:d1"}}, {"d2", []string{"3:c:d2"}}, {"d1", []string{"1:a:d1", "4:d:d1"}}, {"d2", []string{"5:e:d2"}}} {
		if _, err := keyed(t, h, cdf, []string{w.key}, w.rows...); err != nil { // versions 0 to 3
			t.Fatal(err)
		}
	}
	load := func(last *int64, md map[string]string) ([]string, int64) {
		t.Helper()
		m := map[string]string{"delta/partition_expr": "day", "delta/columns": `["id", "_change_type", "_commit_version"]`}
		for k, v := range md {
			m[k] = v
		}
		v, version, err := h.LoadChanges(ctx, iohandler.InputContext{Asset: "ev", Metadata: m, Partitions: days,
			PartitionKeys: []string{"d1"}, LastVersion: last}, reflect.TypeFor[arrow.Table]())
		if err != nil {
			t.Fatal(err)
		}
		tb := v.(arrow.Table)
		defer tb.Release()
		rows := arrowrows.TableRows(tb)
		slices.Sort(rows)
		return rows, version
	}
	zero, three := int64(0), int64(3)
	rows, version := load(&zero, nil)
	want := []string{`_change_type="delete", _commit_version=2, id=1`, `_change_type="delete", _commit_version=2, id=2`,
		`_change_type="insert", _commit_version=2, id=1`, `_change_type="insert", _commit_version=2, id=4`}
	if !slices.Equal(rows, want) || version != 3 {
		t.Errorf("changes of d1 after version 0: %q up to %d, want %q up to 3", rows, version, want)
	}
	rows, _ = load(nil, nil)
	if want := []string{`_change_type="insert", _commit_version=3, id=1`, `_change_type="insert", _commit_version=3, id=4`}; !slices.Equal(rows, want) {
		t.Errorf("first load of d1: %q, want %q", rows, want)
	}
	if rows, version = load(&three, nil); len(rows) != 0 || version != 3 {
		t.Errorf("changes after the table's version: %q up to %d", rows, version)
	}
	// Load honours delta/read=changes (with no version: the first load).
	v, err := h.Load(ctx, iohandler.InputContext{Asset: "ev", Metadata: map[string]string{"delta/partition_expr": "day", "delta/read": "changes"},
		Partitions: days, PartitionKeys: []string{"d2"}}, reflect.TypeFor[arrow.Table]())
	if err != nil {
		t.Fatal(err)
	}
	tb := v.(arrow.Table)
	defer tb.Release()
	if n, cols := tb.NumRows(), tb.Schema().NumFields(); n != 1 || cols != 6 {
		t.Errorf("Load with delta/read=changes: %d rows of %d columns, want 1 of 6 (id, name, day and the change columns)", n, cols)
	}
	_, err = h.Load(ctx, iohandler.InputContext{Asset: "ev", Metadata: map[string]string{"delta/read": "change"}}, reflect.TypeFor[arrow.Table]())
	if err == nil || !strings.Contains(err.Error(), `delta/read: "change": want "table"`) {
		t.Errorf("a bad delta/read: %v", err)
	}
}
