package deltalite_test

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/merge"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// lastCommitInfo is the commitInfo of the table's latest commit.
func lastCommitInfo(t *testing.T, dir string) *protocol.CommitInfo {
	t.Helper()
	tb := openT(t, dir)
	hist, err := tb.History(context.Background(), 1)
	if err != nil || len(hist) != 1 {
		t.Fatalf("history: %v", err)
	}
	return hist[0].Info
}

// clusteredPeople writes people rows into a new table clustered by
// (day, id).
func clusteredPeople(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "t")
	mustWrite(t, dir, people(t, []int64{1, 2, 3, 4}, []string{"a", "b", "c", "d"}, []string{"d1", "d1", "d2", "d2"}),
		deltalite.WriteOptions{ClusterBy: []string{"day", "ID"}})
	return dir
}

// TestCreateClustered: a table created with ClusterBy has the clustering
// and domainMetadata features and Spark's delta.clustering domain, its
// CREATE commit records clusterBy; then append, upsert, MERGE, DELETE,
// UPDATE and an overwrite work on it, adding unclustered files.
func TestCreateClustered(t *testing.T) {
	ctx := context.Background()
	dir := clusteredPeople(t)
	tb := openT(t, dir)
	p := tb.Protocol()
	if !p.Clustered() || !slices.Contains(p.WriterFeatures, "domainMetadata") {
		t.Fatalf("protocol %s", p)
	}
	if cfg, _ := tb.Snapshot().DomainMetadata("delta.clustering"); cfg != `{"clusteringColumns":[["day"],["id"]],"domainName":"delta.clustering"}` {
		t.Fatalf("delta.clustering domain %s", cfg)
	}
	if cols, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(cols, []string{"day", "id"}) {
		t.Fatalf("clustering columns %v, %v", cols, err)
	}
	if p := lastCommitInfo(t, dir).OperationParameters; p["clusterBy"] != `["day","id"]` {
		t.Fatalf("create's parameters %v", p)
	}
	// Create (no rows) makes the same table.
	empty := filepath.Join(t.TempDir(), "e")
	sc := tb.DeltaSchema()
	if _, err := deltalite.Create(ctx, empty, sc, deltalite.CreateOptions{ClusterBy: []string{"name"}}); err != nil {
		t.Fatal(err)
	}
	if cols, _ := openT(t, empty).Snapshot().ClusteringColumns(); !slices.Equal(cols, []string{"name"}) {
		t.Fatalf("created table's clustering columns %v", cols)
	}

	mustWrite(t, dir, people(t, []int64{5}, []string{"e"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend, ClusterBy: []string{"day", "id"}})
	if _, err := deltalite.Write(ctx, dir, people(t, []int64{6}, []string{"f"}, []string{"d3"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend, ClusterBy: []string{"id"}}); !errors.Is(err, deltalite.ErrSchemaMismatch) {
		t.Fatalf("append naming other clustering columns: %v", err)
	}
	if _, err := openT(t, dir).Upsert(ctx, people(t, []int64{2, 7}, []string{"B", "g"}, []string{"d1", "d3"}), deltalite.UpsertOptions{PrimaryKeys: []string{"id"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := openT(t, dir).Merge(ctx, people(t, []int64{3, 8}, []string{"C", "h"}, []string{"d2", "d4"}), deltalite.MergeOptions{
		Predicate: "t.id = s.id",
		Clauses:   []merge.Clause{{When: merge.Matched, Action: merge.UpdateAll}, {When: merge.NotMatched, Action: merge.InsertAll}},
	}); err != nil {
		t.Fatal(err)
	}
	mustDelete(t, openT(t, dir), "id = 1", 1)
	if _, err := openT(t, dir).Update(ctx, deltalite.UpdateOptions{Set: map[string]string{"name": "upper(name)"}, Predicate: "id = 4"}); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dir, people(t, []int64{8}, []string{"H"}, []string{"d4"}), deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd4'"})
	want := []string{row(2, "B", "d1"), row(3, "C", "d2"), row(4, "D", "d2"), row(5, "e", "d3"), row(7, "g", "d3"), row(8, "H", "d4")}
	if d := diffRows(readRows(t, dir), sortedCopy(want)); d != "" {
		t.Fatal(d)
	}
	for _, a := range openT(t, dir).Snapshot().Files() {
		if a.ClusteringProvider != nil {
			t.Fatalf("a write added a clustered file %s", a.Path)
		}
	}
	// create_or_replace takes the new clustering, or none, as Spark's
	// REPLACE TABLE does; the table stays clustered.
	for _, c := range []struct{ by, want []string }{{[]string{"name"}, []string{"name"}}, {nil, nil}} {
		mustWrite(t, dir, people(t, []int64{9}, []string{"i"}, []string{"d9"}), deltalite.WriteOptions{Mode: deltalite.ModeCreateOrReplace, ClusterBy: c.by})
		tb := openT(t, dir)
		if cols, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(cols, c.want) || !tb.Protocol().Clustered() {
			t.Fatalf("create_or_replace with ClusterBy %v: columns %v (%v), %s", c.by, cols, err, tb.Protocol())
		}
	}
}

// TestCreateClusteredRefusals: clustering with partitioning, more than
// four columns, unknown columns, types without data skipping, columns
// without statistics and the delta.feature.clustering property are
// refused as Spark refuses them, creating nothing.
func TestCreateClusteredRefusals(t *testing.T) {
	sc, err := schema.Parse(`{"type":"struct","fields":[` +
		`{"name":"a","type":"long","nullable":true,"metadata":{}},{"name":"b","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"c","type":"long","nullable":true,"metadata":{}},{"name":"d","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"e","type":"long","nullable":true,"metadata":{}},` +
		`{"name":"m","type":{"type":"map","keyType":"string","valueType":"integer","valueContainsNull":true},"nullable":true,"metadata":{}}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		co   deltalite.CreateOptions
		want string
	}{
		{"partitioned", deltalite.CreateOptions{ClusterBy: []string{"a"}, PartitionBy: []string{"b"}}, "clustering and partitioning cannot both be specified"},
		{"five", deltalite.CreateOptions{ClusterBy: []string{"a", "b", "c", "d", "e"}}, "at most 4 columns, not 5"},
		{"unknown", deltalite.CreateOptions{ClusterBy: []string{"zz"}}, `cluster by "zz": no such column`},
		{"twice", deltalite.CreateOptions{ClusterBy: []string{"a", "A"}}, "named twice"},
		{"map", deltalite.CreateOptions{ClusterBy: []string{"m"}}, "does not support data skipping"},
		{"no stats", deltalite.CreateOptions{ClusterBy: []string{"c"}, Properties: map[string]string{"delta.dataSkippingNumIndexedCols": "2"}}, "clustering columns need statistics"},
		{"feature property", deltalite.CreateOptions{Properties: map[string]string{"delta.feature.clustering": "supported"}}, "cannot be set"},
	} {
		dir := filepath.Join(t.TempDir(), "t")
		_, err := deltalite.Create(context.Background(), dir, sc, c.co)
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want invalid argument with %q", c.name, err, c.want)
		}
		if ok, _ := deltalite.IsDeltaTable(context.Background(), dir); ok {
			t.Errorf("%s: a table was created", c.name)
		}
	}
}

// TestAlter: each change is one commit with Spark's operation name and
// parameters, in the order add columns, set, unset, cluster by; refused
// changes commit nothing, as do changes with nothing to do.
func TestAlter(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "t")
	mustWrite(t, dir, people(t, []int64{1, 2}, []string{"a", "b"}, []string{"d1", "d2"}), deltalite.WriteOptions{})
	tb := openT(t, dir)
	done, err := tb.Alter(ctx, deltalite.AlterOptions{
		AddColumns:      []*schema.Field{{Name: "score", Type: &schema.Primitive{Name: "double"}, Nullable: true}},
		SetProperties:   map[string]string{"owner": "me", "delta.enableDeletionVectors": "true"},
		UnsetProperties: []string{"owner"},
		ClusterBy:       []string{"score", "id"},
	})
	if err != nil {
		t.Fatal(err)
	}
	var ops []string
	for _, c := range done {
		ops = append(ops, c.Operation)
	}
	if !slices.Equal(ops, []string{"ADD COLUMNS", "SET TBLPROPERTIES", "UNSET TBLPROPERTIES", "CLUSTER BY"}) || done[3].Version != 4 || tb.Version() != 4 {
		t.Fatalf("changes %+v at version %d", done, tb.Version())
	}
	hist, err := tb.History(ctx, 4)
	if err != nil {
		t.Fatal(err)
	}
	params := map[string]map[string]any{}
	for _, h := range hist {
		params[h.Info.Operation] = h.Info.OperationParameters
	}
	var cols []map[string]any
	if err := json.Unmarshal([]byte(params["ADD COLUMNS"]["columns"].(string)), &cols); err != nil || len(cols) != 1 ||
		cols[0]["column"].(map[string]any)["name"] != "score" || cols[0]["column"].(map[string]any)["type"] != "double" {
		t.Fatalf("ADD COLUMNS parameters %v (%v)", params["ADD COLUMNS"], err)
	}
	if p := params["UNSET TBLPROPERTIES"]; p["properties"] != `["owner"]` || p["ifExists"] != "false" {
		t.Fatalf("UNSET parameters %v", p)
	}
	if p := params["CLUSTER BY"]; p["oldClusteringColumns"] != "" || p["newClusteringColumns"] != "score,id" {
		t.Fatalf("CLUSTER BY parameters %v", p)
	}
	snap := tb.Snapshot()
	if c, _ := snap.ClusteringColumns(); !slices.Equal(c, []string{"score", "id"}) || snap.Schema().Field("score") == nil ||
		snap.Properties()["owner"] != "" || snap.Properties()["delta.enableDeletionVectors"] != "true" ||
		!slices.Contains(snap.Protocol().WriterFeatures, "deletionVectors") || !snap.Protocol().Clustered() {
		t.Fatalf("table after alter: %s, %v, %s", snap.Protocol(), snap.Properties(), snap.Schema())
	}

	// Nothing to do: the same columns again.
	if done, err := tb.Alter(ctx, deltalite.AlterOptions{ClusterBy: []string{"score", "id"}}); err != nil || len(done) != 0 || tb.Version() != 4 {
		t.Fatalf("same clustering: %+v, %v", done, err)
	}
	// NONE keeps the table clustered, without columns, as Spark does.
	if done, err := tb.Alter(ctx, deltalite.AlterOptions{ClusterByNone: true}); err != nil || len(done) != 1 {
		t.Fatalf("cluster by none: %+v, %v", done, err)
	}
	if c, _ := tb.Snapshot().ClusteringColumns(); len(c) != 0 || !tb.Protocol().Clustered() {
		t.Fatalf("after NONE: columns %v, %s", c, tb.Protocol())
	}

	parted := filepath.Join(t.TempDir(), "p")
	mustWrite(t, parted, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{PartitionBy: []string{"day"}})
	plain := filepath.Join(t.TempDir(), "q")
	mustWrite(t, plain, people(t, []int64{1}, []string{"a"}, []string{"d1"}), deltalite.WriteOptions{})
	if done, err := openT(t, plain).Alter(ctx, deltalite.AlterOptions{ClusterByNone: true}); err != nil || len(done) != 0 || openT(t, plain).Protocol().Clustered() {
		t.Fatalf("NONE on a table not clustered: %+v, %v", done, err)
	}
	for _, c := range []struct {
		dir  string
		o    deltalite.AlterOptions
		want string
	}{
		{parted, deltalite.AlterOptions{ClusterBy: []string{"id"}}, "cannot be applied to a partitioned table"},
		{plain, deltalite.AlterOptions{UnsetProperties: []string{"nope"}}, `"nope" is not set`},
		{plain, deltalite.AlterOptions{AddColumns: []*schema.Field{{Name: "ID", Type: &schema.Primitive{Name: "long"}, Nullable: true}}}, "has a column of that name"},
		{plain, deltalite.AlterOptions{AddColumns: []*schema.Field{{Name: "n", Type: &schema.Primitive{Name: "long"}}}}, "must be nullable"},
		{plain, deltalite.AlterOptions{SetProperties: map[string]string{"delta.feature.clustering": "supported"}}, "cannot be set"},
		{plain, deltalite.AlterOptions{ClusterBy: []string{"nope"}}, "no such column"},
	} {
		v := openT(t, c.dir).Version()
		_, err := openT(t, c.dir).Alter(ctx, c.o)
		if !errors.Is(err, deltalite.ErrInvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want invalid argument with %q", c.o, err, c.want)
		}
		if openT(t, c.dir).Version() != v {
			t.Errorf("%+v committed", c.o)
		}
	}
}

// TestClusteredColumnMapping: under column mapping the domain records the
// columns' physical names, read back as logical ones, and OPTIMIZE
// clusters by them.
func TestClusteredColumnMapping(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "t")
	wo := deltalite.WriteOptions{ClusterBy: []string{"name"}, Properties: map[string]string{"delta.columnMapping.mode": "name"}}
	mustWrite(t, dir, people(t, []int64{1, 2}, []string{"b", "a"}, []string{"d1", "d2"}), wo)
	mustWrite(t, dir, people(t, []int64{3}, []string{"c"}, []string{"d1"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	tb := openT(t, dir)
	phys := tb.DeltaSchema().Field("name").PhysicalName(schema.MappingName)
	if cfg, _ := tb.Snapshot().DomainMetadata("delta.clustering"); !strings.HasPrefix(phys, "col-") || !strings.Contains(cfg, `[["`+phys+`"]]`) {
		t.Fatalf("domain %s, physical name %s", cfg, phys)
	}
	if cols, err := tb.Snapshot().ClusteringColumns(); err != nil || !slices.Equal(cols, []string{"name"}) {
		t.Fatalf("clustering columns %v, %v", cols, err)
	}
	want := readRows(t, dir)
	if st, err := tb.Optimize(context.Background(), deltalite.OptimizeOptions{}); err != nil || st.FilesRemoved.TotalFiles != 2 {
		t.Fatalf("optimize: %s, %v", st, err)
	}
	if d := diffRows(readRows(t, dir), want); d != "" {
		t.Fatal(d)
	}
	for _, a := range openT(t, dir).Snapshot().Files() {
		if a.Tags["ZCUBE_ZORDER_BY"] != `["name"]` {
			t.Fatalf("tags %v: want the logical name", a.Tags)
		}
	}
}
