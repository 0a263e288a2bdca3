package op_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/op"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/jsonrows"
	"github.com/deltalite-go/deltalite/write"
)

var testSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "p", Type: arrow.BinaryTypes.String, Nullable: true},
}, nil)

// newTable is a table partitioned by p with one append of ids 1..3.
func newTable(t *testing.T) *snapshot.Snapshot {
	t.Helper()
	st, err := storage.NewLocal(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	snap := empty(t, st, "p")
	rec := jsonrows.Record(t, memory.DefaultAllocator, testSchema, `[{"id":1,"p":"a"},{"id":2,"p":"a"},{"id":3,"p":"b"}]`)
	rr, _ := array.NewRecordReader(testSchema, []arrow.RecordBatch{rec})
	if _, snap, err = write.Run(context.Background(), snap, rr, write.Options{Mode: write.ModeAppend}); err != nil {
		t.Fatal(err)
	}
	return snap
}

// empty is the table of testSchema partitioned by parts, not yet created in st.
func empty(t *testing.T, st storage.Store, parts ...string) *snapshot.Snapshot {
	t.Helper()
	sc, err := op.SourceSchema(st.URL(), testSchema)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := op.Empty(st, sc, op.NewTableOptions{PartitionBy: parts})
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

// Replan plans again after a conflict another writer resolves, and not
// after one that planning again cannot resolve.
func TestReplan(t *testing.T) {
	snap := newTable(t)
	calls := 0
	got, err := op.Replan(context.Background(), snap, 3, func(ctx context.Context, s *snapshot.Snapshot) (int, error) {
		calls++
		if calls < 3 {
			return 0, &txn.ConflictError{Rule: txn.RuleConcurrentDeleteRead}
		}
		return 7, nil
	})
	if err != nil || got != 7 || calls != 3 {
		t.Errorf("replannable: %d %v after %d calls", got, err, calls)
	}
	calls = 0
	_, err = op.Replan(context.Background(), snap, 3, func(ctx context.Context, s *snapshot.Snapshot) (int, error) {
		calls++
		return 0, &txn.ConflictError{Rule: txn.RuleMetadataChanged}
	})
	if err == nil || calls != 1 {
		t.Errorf("not replannable: %v after %d calls", err, calls)
	}
	calls = 0
	_, err = op.Replan(context.Background(), snap, -1, func(ctx context.Context, s *snapshot.Snapshot) (int, error) {
		calls++
		return 0, &txn.ConflictError{Rule: txn.RuleConcurrentAppend}
	})
	if err == nil || calls != 1 {
		t.Errorf("no retries: %v after %d calls", err, calls)
	}
}

// A commit that carries new metadata and an app transaction records both
// with its files.
func TestCommitMetadataAndAppTxn(t *testing.T) {
	snap := newTable(t)
	md := *snap.Metadata()
	desc := "evolved"
	md.Description = &desc
	o := txn.Operation{Name: txn.OpMerge, Parameters: map[string]any{"predicate": "true"}}
	post, v, err := op.Commit{Op: o, NewMetadata: &md, AppID: "loader", AppVersion: 3}.Run(context.Background(), snap)
	if err != nil {
		t.Fatal(err)
	}
	if v != snap.Version()+1 || post == nil || post.Version() != v {
		t.Fatalf("version %d, post %v", v, post)
	}
	if d := post.Metadata().Description; d == nil || *d != desc {
		t.Fatalf("metadata not committed: %+v", post.Metadata())
	}
	if !txn.AppTxnApplied(post, "loader", 3) || txn.AppTxnApplied(post, "loader", 4) {
		t.Fatal("app transaction not recorded")
	}
}

// An attempt that was creating the table plans again on the table another
// writer created first when it has the same shape, and is refused, naming
// the race, when it has another.
func TestReplanAfterCreateRace(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		theirParts []string
		want       error
	}{{"same shape", []string{"p"}, nil}, {"other partitioning", nil, errs.ErrTableExists}} {
		t.Run(c.name, func(t *testing.T) {
			st, err := storage.NewLocal(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			mine := empty(t, st, "p")
			// Another writer creates the table before this attempt commits.
			if _, _, err := (op.Commit{Op: txn.Operation{Name: txn.OpCreateTable}}).Run(ctx, empty(t, st, c.theirParts...)); err != nil {
				t.Fatal(err)
			}
			var versions []int64
			_, err = op.Replan(ctx, mine, 3, func(ctx context.Context, s *snapshot.Snapshot) (int, error) {
				versions = append(versions, s.Version())
				_, _, err := op.Commit{Op: txn.Operation{Name: txn.OpWrite}}.Run(ctx, s)
				return 0, err
			})
			if !errors.Is(err, c.want) {
				t.Fatalf("error %v, want %v", err, c.want)
			}
			if c.want == nil && !slices.Equal(versions, []int64{-1, 0}) {
				t.Errorf("attempts on versions %v, want [-1 0]", versions)
			}
			if c.want != nil && (len(versions) != 1 || !strings.Contains(err.Error(), "another writer created the table first")) {
				t.Errorf("attempts on versions %v, error %q", versions, err)
			}
		})
	}
}
