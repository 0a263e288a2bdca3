package deltalite_test

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/schema"
)

// listFiles lists every file under dir (relative paths), to prove that a
// refused operation changed nothing on disk.
func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipAll
			}
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestCreateFeatureProperties: a property that needs a table feature gets
// it in the protocol when this engine honours the feature; otherwise the
// create is refused naming the property and the feature, and nothing is
// written. Bad keys and values are refused naming the key and the
// accepted values.
func TestCreateFeatureProperties(t *testing.T) {
	ctx := context.Background()
	sc, err := schema.Parse(`{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	accepted := []struct {
		props    map[string]string
		protocol string
		config   map[string]string
	}{
		{map[string]string{"delta.enableTypeWidening": "true"}, "r3/w7 [appendOnly, invariants, typeWidening]",
			map[string]string{"delta.enableTypeWidening": "true"}},
		{map[string]string{"delta.enableChangeDataFeed": "true"}, "r1/w4", map[string]string{"delta.enableChangeDataFeed": "true"}},
		{map[string]string{"Delta.AppendOnly": "TRUE", "delta.columnMapping.mode": "NAME"}, "r2/w5",
			map[string]string{"delta.appendOnly": "true", "delta.columnMapping.mode": "name", "delta.columnMapping.maxColumnId": "1"}},
		{map[string]string{"delta.feature.deletionVectors": "supported", "owner": "x"}, "r3/w7 [appendOnly, deletionVectors, invariants]",
			map[string]string{"owner": "x"}},
		{map[string]string{"delta.checkpointPolicy": "v2"}, "r3/w7 [appendOnly, invariants, v2Checkpoint]",
			map[string]string{"delta.checkpointPolicy": "v2"}},
	}
	for _, c := range accepted {
		tb, err := deltalite.Create(ctx, t.TempDir(), sc, deltalite.CreateOptions{Properties: c.props})
		if err != nil {
			t.Errorf("%v: %v", c.props, err)
			continue
		}
		if got := tb.Protocol().String(); got != c.protocol {
			t.Errorf("%v: protocol %s, want %s", c.props, got, c.protocol)
		}
		if got := tb.Metadata().Configuration; !maps.Equal(got, c.config) {
			t.Errorf("%v: configuration %v, want %v", c.props, got, c.config)
		}
	}
	refused := []struct {
		props map[string]string
		kind  error
		want  string
	}{
		{map[string]string{"delta.enableIcebergCompatV2": "true"}, deltalite.ErrUnsupportedTable, "icebergCompatV2 table feature"},
		{map[string]string{"delta.feature.icebergCompatV1": "supported"}, deltalite.ErrUnsupportedTable, "icebergCompatV1 table feature"},
		{map[string]string{"delta.appendOnly": "maybe"}, deltalite.ErrInvalidArgument, `delta.appendOnly = "maybe" is not valid: use true or false`},
		{map[string]string{"delta.enableDeletionVector": "true"}, deltalite.ErrInvalidArgument, "unknown table property delta.enableDeletionVector (did you mean delta.enableDeletionVectors?)"},
	}
	for _, c := range refused {
		dir := filepath.Join(t.TempDir(), "t")
		_, err := deltalite.Create(ctx, dir, sc, deltalite.CreateOptions{Properties: c.props})
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), dir) {
			t.Errorf("%v: want %v naming %q and the table, got %v", c.props, c.kind, c.want, err)
		}
		if files := listFiles(t, dir); len(files) > 0 {
			t.Errorf("%v: refused create left %v", c.props, files)
		}
		// The same through a write that would create the table.
		_, err = deltalite.Write(ctx, dir, people(t, []int64{1}, []string{"a"}, []string{"d"}),
			deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, Properties: c.props})
		if !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("write %v: want %v naming %q, got %v", c.props, c.kind, c.want, err)
		}
		if files := listFiles(t, dir); len(files) > 0 {
			t.Errorf("write %v: refused create left %v", c.props, files)
		}
	}
}

// TestReplaceKeepsFeaturesAndChecksProperties: create_or_replace validates
// its properties like a create (a refusal leaves the table as it was), and
// never drops a feature of the old protocol, even when the new one has a
// higher writer version.
func TestReplaceKeepsFeaturesAndChecksProperties(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d"}),
		deltalite.WriteOptions{Properties: map[string]string{"delta.enableChangeDataFeed": "true"}})
	before := listFiles(t, uri)
	_, err := deltalite.Write(ctx, uri, people(t, []int64{2}, []string{"b"}, []string{"d"}),
		deltalite.WriteOptions{Mode: deltalite.ModeCreateOrReplace, Properties: map[string]string{"delta.enableIcebergCompatV1": "true"}})
	if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), "delta.enableIcebergCompatV1") {
		t.Fatalf("replace with icebergCompatV1: %v", err)
	}
	if after := listFiles(t, uri); !slices.Equal(before, after) {
		t.Fatalf("refused replace changed the table: %v -> %v", before, after)
	}
	mustWrite(t, uri, people(t, []int64{3}, []string{"c"}, []string{"d"}),
		deltalite.WriteOptions{Mode: deltalite.ModeCreateOrReplace, Properties: map[string]string{"delta.enableDeletionVectors": "true"}})
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatal(err)
	}
	if p := tb.Protocol(); !p.HasFeature("changeDataFeed") || !p.HasFeature("deletionVectors") || p.MinWriterVersion != 7 {
		t.Fatalf("replaced protocol %s lost a feature", p)
	}
	if got, want := readRows(t, uri), []string{row(3, "c", "d")}; !slices.Equal(got, want) {
		t.Fatalf("rows %v", got)
	}
}

// TestChangeDataFeedRowRewrites: with change data feed on, a replace-where
// that keeps some rows of the files it removes writes change data files;
// with column mapping too it is refused naming the property, and the table
// (log and data files) stays as it was. Whole-file replacements (a
// partition predicate, a data predicate whose statistics select whole
// files) and full overwrites go through.
func TestChangeDataFeedRowRewrites(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	cdf := map[string]string{"delta.enableChangeDataFeed": "true"}
	mustWrite(t, uri, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d1"}),
		deltalite.WriteOptions{PartitionBy: []string{"day"}, Properties: cdf})
	mustWrite(t, uri, people(t, []int64{3, 4}, []string{"c", "d"}, []string{"d2", "d2"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	// A replace-where that keeps part of a file writes its change data.
	mustWrite(t, uri, people(t, []int64{1}, []string{"e"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id = 1"})
	if cdc, _ := filepath.Glob(filepath.Join(uri, "_change_data", "day=d1", "cdc-*.parquet")); len(cdc) != 1 {
		t.Fatalf("change data files of the row rewrite: %v", cdc)
	}
	// With column mapping this engine writes no change data yet: refused,
	// and the table is left as it was.
	mapped := t.TempDir()
	mustWrite(t, mapped, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d1"}),
		deltalite.WriteOptions{Properties: map[string]string{"delta.enableChangeDataFeed": "true", "delta.columnMapping.mode": "name"}})
	before := listFiles(t, mapped)
	_, err := deltalite.Write(ctx, mapped, people(t, []int64{1}, []string{"e"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id = 1"})
	if !errors.Is(err, deltalite.ErrUnsupportedTable) || !strings.Contains(err.Error(), "delta.enableChangeDataFeed") ||
		!strings.Contains(err.Error(), "column mapping") {
		t.Fatalf("row rewrite under CDF with column mapping: %v", err)
	}
	if after := listFiles(t, mapped); !slices.Equal(before, after) {
		t.Fatalf("refused replace-where changed the table: %v -> %v", before, after)
	}
	// Whole files: by partition, by statistics, and the whole table.
	mustWrite(t, uri, people(t, []int64{6}, []string{"f"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd1'"})
	mustWrite(t, uri, people(t, []int64{4}, []string{"g"}, []string{"d2"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id >= 3 AND id <= 4"})
	want := sortedCopy([]string{row(4, "g", "d2"), row(6, "f", "d1")})
	if got := readRows(t, uri); !slices.Equal(got, want) {
		t.Fatalf("rows %v, want %v", got, want)
	}
	mustWrite(t, uri, people(t, []int64{8}, []string{"h"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite})
	// Without change data feed the same row rewrite is fine.
	plain := t.TempDir()
	mustWrite(t, plain, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d1"}), deltalite.WriteOptions{})
	mustWrite(t, plain, people(t, []int64{1}, []string{"e"}, []string{"d1"}),
		deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "id = 1"})
	if got, want := readRows(t, plain), sortedCopy([]string{row(1, "e", "d1"), row(2, "b", "d1")}); !slices.Equal(got, want) {
		t.Fatalf("plain rows %v", got)
	}
}

// TestWritePropertiesOnExistingTable: properties given for a write to an
// existing table are validated and must be the table's own: they apply
// only when a write creates the table, and silently ignoring them would
// leave, say, change data feed off while the caller believes it on.
func TestWritePropertiesOnExistingTable(t *testing.T) {
	ctx := context.Background()
	uri := t.TempDir()
	cdf := map[string]string{"delta.enableChangeDataFeed": "true", "owner": "x"}
	mustWrite(t, uri, people(t, []int64{1}, []string{"a"}, []string{"d"}), deltalite.WriteOptions{Properties: cdf})
	mustWrite(t, uri, people(t, []int64{2}, []string{"b"}, []string{"d"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend, Properties: cdf})
	before := listFiles(t, uri)
	for props, want := range map[string]string{
		"delta.appendOnly=true":                   "table property delta.appendOnly = true is not the table's (the table does not set it)",
		"owner=y":                                 "table property owner = y is not the table's (the table has x)",
		"delta.appendOnly=maybe":                  `delta.appendOnly = "maybe" is not valid`,
		"delta.feature.deletionVectors=supported": "lacks the deletionVectors feature",
	} {
		k, v, _ := strings.Cut(props, "=")
		_, err := deltalite.Write(ctx, uri, people(t, []int64{3}, []string{"c"}, []string{"d"}),
			deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, Properties: map[string]string{k: v}})
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want invalid argument saying %q, got %v", props, want, err)
		}
	}
	if after := listFiles(t, uri); !slices.Equal(before, after) {
		t.Fatalf("refused writes changed the table: %v -> %v", before, after)
	}
}
