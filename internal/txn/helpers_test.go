package txn

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync/atomic"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/snapshot"
	"github.com/deltalite-go/deltalite/storage"
)

const testSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
	`{"name":"part","type":"string","nullable":true,"metadata":{}}]}`

var fileSeq atomic.Int64

// addIn is a new data file action in partition part ("" for an
// unpartitioned table).
func addIn(part string) *protocol.Add {
	n := fileSeq.Add(1)
	pv := map[string]string{}
	p := fmt.Sprintf("part-%05d.parquet", n)
	if part != "" {
		pv["part"] = part
		p = "part=" + part + "/" + p
	}
	return &protocol.Add{Path: p, PartitionValues: pv, Size: 100 + n, ModificationTime: 1_700_000_000_000, DataChange: true,
		Stats: fmt.Sprintf(`{"numRecords":1,"minValues":{"id":%d},"maxValues":{"id":%d},"nullCount":{"id":0}}`, n, n)}
}

func removeOf(a *protocol.Add, dataChange bool) *protocol.Remove {
	ts := int64(1_700_000_000_000)
	ext := true
	size := a.Size
	return &protocol.Remove{Path: a.Path, DeletionTimestamp: &ts, DataChange: dataChange, ExtendedFileMetadata: &ext,
		PartitionValues: a.PartitionValues, Size: &size}
}

func addAction(a *protocol.Add) protocol.Action       { return protocol.Action{Add: a} }
func removeAction(r *protocol.Remove) protocol.Action { return protocol.Action{Remove: r} }

type tableSpec struct {
	partitioned bool
	props       map[string]string
	proto       *protocol.Protocol
}

func newMetadata(spec tableSpec) *protocol.Metadata {
	created := int64(1_700_000_000_000)
	md := &protocol.Metadata{ID: newUUID(), Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString: testSchema, PartitionColumns: []string{}, Configuration: map[string]string{}, CreatedTime: &created}
	if spec.partitioned {
		md.PartitionColumns = []string{"part"}
	}
	for k, v := range spec.props {
		md.Configuration[k] = v
	}
	return md
}

// create makes a table with the test schema and the given adds at version 0.
func create(t *testing.T, st storage.Store, spec tableSpec, adds ...*protocol.Add) *snapshot.Snapshot {
	t.Helper()
	p := spec.proto
	if p == nil {
		p = &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	}
	if _, set := spec.props[protocol.PropEnableDeletionVectors]; p.HasFeature("deletionVectors") && !set {
		// A table with the feature has new vectors allowed unless the spec
		// says otherwise, as Spark creates it.
		spec.props = maps.Clone(spec.props)
		if spec.props == nil {
			spec.props = map[string]string{}
		}
		spec.props[protocol.PropEnableDeletionVectors] = "true"
	}
	var actions []protocol.Action
	for _, a := range adds {
		actions = append(actions, addAction(a))
	}
	res, err := Create(context.Background(), st, p, newMetadata(spec), actions, Operation{Name: OpCreateTable}, Options{})
	if err != nil {
		t.Fatalf("create: %v", err)
	}
	if res.Version != 0 || res.Snapshot == nil || res.Snapshot.Version() != 0 {
		t.Fatalf("create: result %+v", res)
	}
	return res.Snapshot
}

func load(t *testing.T, st storage.Store) *snapshot.Snapshot {
	t.Helper()
	s, err := snapshot.Load(context.Background(), st)
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return s
}

// commitOf reads and decodes commit v.
func commitOf(t *testing.T, st storage.Store, v int64) []protocol.Action {
	t.Helper()
	actions, err := readCommit(context.Background(), st, v)
	if err != nil || actions == nil {
		t.Fatalf("commit %d: %v (missing: %v)", v, err, actions == nil)
	}
	return actions
}

func commitInfoOf(t *testing.T, st storage.Store, v int64) *protocol.CommitInfo {
	t.Helper()
	actions := commitOf(t, st, v)
	if actions[0].CommitInfo == nil {
		t.Fatalf("commit %d: first action is not commitInfo", v)
	}
	return actions[0].CommitInfo
}

func paths(adds []*protocol.Add) map[string]int {
	out := map[string]int{}
	for _, a := range adds {
		out[a.Path]++
	}
	return out
}

// conflictRule returns the rule of a commit conflict error, failing the
// test when err is not one.
func conflictRule(t *testing.T, err error) *ConflictError {
	t.Helper()
	if !errors.Is(err, errs.ErrCommitConflict) {
		t.Fatalf("want a commit conflict, got %v", err)
	}
	var c *ConflictError
	if !errors.As(err, &c) {
		t.Fatalf("commit conflict without ConflictError: %v", err)
	}
	return c
}

func noBackoff(int) time.Duration { return 0 }

func fast() Options { return Options{Backoff: noBackoff} }
