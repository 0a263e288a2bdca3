package deltalite_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
)

// raceReader is a source that, once its rows are read (after the
// operation loaded the table, before it commits), runs race: another
// writer's commit between an operation's plan and its commit.
type raceReader struct {
	array.RecordReader
	race func()
}

func (r *raceReader) Next() bool {
	if r.RecordReader.Next() {
		return true
	}
	if f := r.race; f != nil {
		r.race = nil
		f()
	}
	return false
}

// identityVTable creates (id BIGINT GENERATED ALWAYS AS IDENTITY, v, s).
func identityVTable(t *testing.T) string {
	t.Helper()
	uri := t.TempDir()
	sc := &schema.Struct{Fields: []*schema.Field{
		(&schema.Field{Name: "id", Type: &schema.Primitive{Name: schema.Long}}).Identity(1, 1, true),
		{Name: "v", Type: &schema.Primitive{Name: schema.Integer}, Nullable: true},
		{Name: "s", Type: &schema.Primitive{Name: schema.String}, Nullable: true},
	}}
	if _, err := deltalite.Create(context.Background(), uri, sc, deltalite.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return uri
}

// TestIdentityLostRaceNumbersAgain forces the race of two inserters into
// an identity table: another writer's append numbers ids 1 and 2 after an
// append, an upsert or a MERGE read the table and numbered its own rows
// from the same high watermark. Spark fails the loser
// (MetadataChangedException); each of ours lands instead, with ids 3..5
// (the append numbers its written rows again and commits its plan, the
// upsert and MERGE plan again on the newer table), no value given twice,
// the high watermark 5, the commits tagged as Spark tags a commit that
// only advances high watermarks, and no data file of the lost attempt
// left behind.
func TestIdentityLostRaceNumbersAgain(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		run  func(uri string, src array.RecordReader) error
		// readVersion is what the landed commit read: the append commits
		// the plan it made on version 0, the others planned again on 1.
		readVersion int64
		blind       bool
	}{
		{"append", func(uri string, src array.RecordReader) error {
			_, err := deltalite.Write(ctx, uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend})
			return err
		}, 0, true},
		{"upsert", func(uri string, src array.RecordReader) error {
			_, err := openT(t, uri).Upsert(ctx, src, deltalite.UpsertOptions{PrimaryKeys: []string{"v"}})
			return err
		}, 1, false},
		{"merge", func(uri string, src array.RecordReader) error {
			_, err := openT(t, uri).Merge(ctx, src, deltalite.MergeOptions{Predicate: "t.v = s.v", MergeType: "deduplicate_insert"})
			return err
		}, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			uri := identityVTable(t)
			raced := false
			src := &raceReader{RecordReader: vRows(1, 2, 3), race: func() {
				raced = true
				if _, err := deltalite.Write(ctx, uri, vRows(100, 101), deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
					t.Errorf("the winner's append: %v", err)
				}
			}}
			if err := tc.run(uri, src); err != nil {
				t.Fatalf("the loser of the race: %v", err)
			}
			if !raced {
				t.Fatal("the race did not run")
			}
			ids := map[string]string{} // v -> id
			for _, r := range readRows(t, uri) {
				f := strings.Split(r, ", ")
				ids[f[2]] = f[0]
			}
			if ids["v=100"] != "id=1" || ids["v=101"] != "id=2" {
				t.Fatalf("the winner's rows lost their ids: %v", ids)
			}
			got := []string{ids["v=1"], ids["v=2"], ids["v=3"]}
			slices.Sort(got)
			if strings.Join(got, " ") != "id=3 id=4 id=5" {
				t.Fatalf("the loser's ids %v, want 3, 4 and 5 (all ids: %v)", got, ids)
			}
			tb := openT(t, uri)
			if tb.Version() != 2 {
				t.Fatalf("version %d, want 2 (create, the winner, the loser)", tb.Version())
			}
			if hwm := highWaterMark(t, tb); hwm != float64(5) {
				t.Fatalf("high watermark %v, want 5", hwm)
			}
			ci := lastCommitInfo(t, uri)
			if ci.ReadVersion == nil || *ci.ReadVersion != tc.readVersion {
				t.Fatalf("the landed commit read version %v, want %d", ci.ReadVersion, tc.readVersion)
			}
			if tags, _ := ci.Raw["tags"].(map[string]any); tags[txn.IdentityCommitTag] != "true" {
				t.Fatalf("commitInfo tags %v lack %s", ci.Raw["tags"], txn.IdentityCommitTag)
			}
			if ci.IsBlindAppend == nil || *ci.IsBlindAppend != tc.blind {
				t.Fatalf("isBlindAppend %v, want %v", ci.IsBlindAppend, tc.blind)
			}
			assertOnlyLiveDataFiles(t, uri)
		})
	}
}

// assertOnlyLiveDataFiles fails for a data file under uri that the table's
// latest version does not hold: one a lost attempt left behind.
func assertOnlyLiveDataFiles(t *testing.T, uri string) {
	t.Helper()
	live := map[string]bool{}
	for _, a := range openT(t, uri).Snapshot().Files() {
		p, _ := protocol.DecodePath(a.Path)
		live[filepath.FromSlash(p)] = true
	}
	err := filepath.WalkDir(uri, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".parquet") {
			if rel, _ := filepath.Rel(uri, p); !live[rel] {
				t.Errorf("data file %s of the lost attempt left behind", rel)
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// An append to a partitioned identity table (start 10, step 5) whose
// generated partition column reads another column loses the race: its
// rows, read back from its files with their partition values, are
// numbered again past the winner and land in their partitions.
func TestIdentityLostRaceNumbersAgainPartitioned(t *testing.T) {
	ctx := context.Background()
	uri := identityTable(t, true)
	src := &raceReader{RecordReader: jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-01T10:00:00Z","v":1},{"ts":"2024-03-02T10:00:00Z","v":2}]`),
		race: func() {
			mustWrite(t, uri, jsonSource(t, []arrow.Field{fTS, fV}, `[{"ts":"2024-03-01T11:00:00Z","v":100}]`), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
		}}
	if _, err := deltalite.Write(ctx, uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend}); err != nil {
		t.Fatalf("the loser of the race: %v", err)
	}
	assertRows(t, uri, []string{
		`d=2024-03-01, id=10, ts=2024-03-01T11:00:00.000000Z, v=100`,
		`d=2024-03-01, id=15, ts=2024-03-01T10:00:00.000000Z, v=1`,
		`d=2024-03-02, id=20, ts=2024-03-02T10:00:00.000000Z, v=2`,
	})
	if hwm := highWaterMark(t, openT(t, uri)); hwm != float64(20) {
		t.Fatalf("high watermark %v, want 20", hwm)
	}
	assertOnlyLiveDataFiles(t, uri)
}

// Where Spark fails the loser, so do we: an append that numbered rows and
// also evolves the schema (Spark's case (1): both commits carry metaData,
// not merged) fails with a commit conflict that says why, commits nothing
// and leaves no data file behind.
func TestIdentityLostRaceWithSchemaChangeFails(t *testing.T) {
	ctx := context.Background()
	uri := identityVTable(t)
	extra := arrow.Field{Name: "w", Type: arrow.PrimitiveTypes.Int64, Nullable: true}
	src := &raceReader{RecordReader: jsonSource(t, []arrow.Field{fV, extra}, `[{"v":1,"w":7}]`), race: func() {
		mustWrite(t, uri, vRows(100), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	}}
	_, err := deltalite.Write(ctx, uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend, SchemaMode: deltalite.SchemaMerge})
	var ce *txn.ConflictError
	if !errors.Is(err, deltalite.ErrCommitConflict) || !errors.As(err, &ce) || ce.Rule != txn.RuleIdentityHighWaterMark ||
		!strings.Contains(err.Error(), "changes the table's metadata") {
		t.Fatalf("an evolving append that lost a numbering race: %v", err)
	}
	if v := openT(t, uri).Version(); v != 1 {
		t.Fatalf("version %d, want 1 (the winner's alone)", v)
	}
	assertRows(t, uri, []string{`id=1, s="w", v=100`})
	assertOnlyLiveDataFiles(t, uri)
}
