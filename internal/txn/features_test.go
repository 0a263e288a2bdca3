package txn

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// copyTable copies a conformance table into a temporary directory, so
// that commits never touch the corpus.
func copyTable(t *testing.T, rel string) *storage.Local {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dst, os.DirFS(corpus.Path(t, rel))); err != nil {
		t.Fatal(err)
	}
	st, err := storage.NewLocal(dst)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestWriterFeaturesOnConformanceTables(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		table string
		op    string
		want  []string // named in the refusal; nil = writable
	}{
		{"dat/generated_columns/delta", OpWrite, []string{"generatedColumns (columns "}},
		{"dat/check_constraints/delta", OpWrite, []string{"checkConstraints (CHECK constraints const1)"}},
		{"dat/iceberg_compat_v1/delta", OpWrite, []string{"icebergCompatV1"}},
		{"dat/cdf/delta", OpDelete, []string{"changeDataFeed"}},
		{"dat/cdf/delta", OpWrite, nil},
		{"dat/column_mapping/delta", OpWrite, nil},
		{"dat/deletion_vectors/delta", OpWrite, nil},
		{"dat/timestamp_ntz/delta", OpWrite, nil},
		{"dat/basic_partitioned/delta", OpWrite, nil},
		{"delta-rs/checkpoint-v2-table", OpWrite, []string{"identityColumns (columns id)"}},
	}
	for _, c := range cases {
		t.Run(c.table+"/"+c.op, func(t *testing.T) {
			st := copyTable(t, c.table)
			snap := load(t, st)
			checkErr := CheckWritable(snap, Operation{Name: c.op})
			tx := Begin(snap, Operation{Name: c.op}, fast())
			a := addIn("")
			a.PartitionValues = map[string]string{}
			for _, p := range snap.PartitionColumns() {
				a.PartitionValues[p] = ""
			}
			tx.Add(addAction(a))
			res, commitErr := tx.Commit(ctx)
			if c.want == nil {
				if checkErr != nil || commitErr != nil {
					t.Fatalf("writable table refused: check %v, commit %v", checkErr, commitErr)
				}
				if s := load(t, st); s.Version() != res.Version || paths(s.Files())[a.Path] != 1 {
					t.Fatalf("commit %d not in the table", res.Version)
				}
				return
			}
			for _, err := range []error{checkErr, commitErr} {
				if !errors.Is(err, errs.ErrUnsupportedTable) {
					t.Fatalf("want UnsupportedTable, got %v", err)
				}
				for _, w := range c.want {
					if !strings.Contains(err.Error(), w) {
						t.Fatalf("%v does not name %q", err, w)
					}
				}
			}
			if s := load(t, st); s.Version() != snap.Version() {
				t.Fatal("a refused commit landed")
			}
		})
	}
}

// simple_table_features lists features no engine knows and reader
// version 5: no snapshot can be built, so the check runs on its actions.
func TestWriterFeaturesUnreadableTable(t *testing.T) {
	st := copyTable(t, "delta-rs/simple_table_features")
	actions := commitOf(t, st, 0)
	var p *protocol.Protocol
	var md *protocol.Metadata
	for _, a := range actions {
		if a.Protocol != nil {
			p = a.Protocol
		}
		if a.Metadata != nil {
			md = a.Metadata
		}
	}
	err := CheckProtocolWritable(p, md, Operation{Name: OpWrite})
	if !errors.Is(err, errs.ErrUnsupportedTable) {
		t.Fatalf("want UnsupportedTable, got %v", err)
	}
	for _, f := range []string{"readerVersion 5", "blahabl", "icebergCompatV1"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("%v does not name %s", err, f)
		}
	}
	// Features the engine supports are not named.
	for _, f := range []string{"deletionVectors", "appendOnly", "domainMetadata"} {
		if strings.Contains(err.Error(), f) {
			t.Errorf("%v names supported feature %s", err, f)
		}
	}
}

func TestWriterFeatureRules(t *testing.T) {
	col := func(meta string) string {
		return `{"type":"struct","fields":[{"name":"id","type":"long","nullable":true,"metadata":{}},` +
			`{"name":"s","type":{"type":"struct","fields":[{"name":"x","type":"long","nullable":true,"metadata":` + meta + `}]},"nullable":true,"metadata":{}}]}`
	}
	w7 := func(features ...string) *protocol.Protocol {
		return &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: features}
	}
	cases := []struct {
		name   string
		p      *protocol.Protocol
		schema string
		conf   map[string]string
		op     string
		want   string // "" = writable
	}{
		{"plain w2", &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, testSchema, nil, OpWrite, ""},
		{"nested invariant", &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}, col(`{"delta.invariants":"{\"expression\":{\"expression\":\"x > 3\"}}"}`), nil, OpWrite, "invariants (columns s.x)"},
		{"identity column", w7("identityColumns"), col(`{"delta.identity.start":1,"delta.identity.step":1}`), nil, OpWrite, "identityColumns (columns s.x)"},
		{"identity feature without a column", w7("identityColumns"), testSchema, nil, OpWrite, ""},
		{"writer version 8", &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 8}, testSchema, nil, OpWrite, "writerVersion 8"},
		{"append-only delete", w7("appendOnly"), testSchema, map[string]string{protocol.PropAppendOnly: "true"}, OpDelete, "appendOnly"},
		{"append-only write", w7("appendOnly"), testSchema, map[string]string{protocol.PropAppendOnly: "true"}, OpWrite, ""},
		{"cdf merge", w7("changeDataFeed"), testSchema, map[string]string{protocol.PropEnableChangeDataFeed: "true"}, OpMerge, "changeDataFeed"},
		{"cdf off merge", w7("changeDataFeed"), testSchema, map[string]string{protocol.PropEnableChangeDataFeed: "false"}, OpMerge, ""},
		{"cdf typo counts as on", w7("changeDataFeed"), testSchema, map[string]string{protocol.PropEnableChangeDataFeed: "yes"}, OpUpdate, "changeDataFeed"},
		{"every supported feature", w7("appendOnly", "invariants", "checkConstraints", "changeDataFeed", "generatedColumns", "columnMapping",
			"deletionVectors", "timestampNtz", "domainMetadata", "v2Checkpoint", "inCommitTimestamp", "vacuumProtocolCheck", "identityColumns", "typeWidening"),
			testSchema, nil, OpMerge, ""},
		{"unknown feature", w7("clustering", "icebergCompatV1"), testSchema, nil, OpWrite, "icebergCompatV1"},
		{"row tracking append", w7("rowTracking", "domainMetadata"), testSchema, map[string]string{protocol.PropEnableRowTracking: "true"}, OpWrite, ""},
		{"row tracking supported delete", w7("rowTracking", "domainMetadata"), testSchema, nil, OpDelete, ""},
		{"row tracking enabled delete", w7("rowTracking", "domainMetadata"), testSchema, map[string]string{protocol.PropEnableRowTracking: "true"}, OpDelete, "rowTracking"},
	}
	for _, c := range cases {
		md := newMetadata(tableSpec{props: c.conf})
		md.SchemaString = c.schema
		err := CheckProtocolWritable(c.p, md, Operation{Name: c.op})
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.want != "" && (!errors.Is(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want UnsupportedTable naming %q", c.name, err, c.want)
		}
	}
}

func TestAppendOnlyEnforced(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	f1, f2 := addIn(""), addIn("")
	snap := create(t, st, tableSpec{props: map[string]string{protocol.PropAppendOnly: "true"}}, f1, f2)

	tx := Begin(snap, Operation{Name: OpWrite}, fast())
	tx.ReadWholeTable()
	tx.Add(removeAction(removeOf(f1, true)), addAction(addIn("")))
	if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrInvalidArgument) || !strings.Contains(err.Error(), "append-only") {
		t.Fatalf("overwrite of an append-only table: %v", err)
	}
	// Compaction (dataChange=false) rearranges, which is allowed.
	tx = compaction("f1", "f2")(env{snap: snap, files: map[string]*protocol.Add{"f1": f1, "f2": f2}})
	if res, err := tx.Commit(ctx); err != nil || res.Version != 1 {
		t.Fatalf("compaction of an append-only table: %v", err)
	}
}

func TestCDFAllowsWholeFileChanges(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	f := addIn("")
	p := &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 4}
	snap := create(t, st, tableSpec{proto: p, props: map[string]string{protocol.PropEnableChangeDataFeed: "true"}}, f)
	tx := Begin(snap, Operation{Name: OpWrite, Parameters: map[string]any{"mode": "Overwrite"}}, fast())
	tx.ReadWholeTable()
	tx.Add(removeAction(removeOf(f, true)), addAction(addIn("")))
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatalf("overwrite with change data feed on: %v", err)
	}
}

// TestSetPropertiesNeedsFeatures: a commit that sets table properties is
// validated as Delta validates them, and a property that needs a feature
// is refused unless the commit's protocol carries the feature (and this
// engine can write it).
func TestSetPropertiesNeedsFeatures(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	snap := create(t, st, tableSpec{})
	set := func(props map[string]string, p *protocol.Protocol) error {
		md := *snap.Metadata()
		md.Configuration = props
		tx := Begin(snap, Operation{Name: OpSetProperties}, fast())
		if p != nil {
			tx.Add(protocol.Action{Protocol: p})
		}
		tx.Add(protocol.Action{Metadata: &md})
		_, err := tx.Commit(ctx)
		return err
	}
	w7 := func(features ...string) *protocol.Protocol {
		return &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 7, WriterFeatures: append([]string{"appendOnly", "invariants"}, features...)}
	}
	refused := []struct {
		props map[string]string
		p     *protocol.Protocol
		kind  error
		want  string
	}{
		{map[string]string{protocol.PropEnableChangeDataFeed: "true"}, nil, errs.ErrInvalidArgument,
			"table property delta.enableChangeDataFeed = true needs the changeDataFeed table feature, which the protocol r1/w2 lacks"},
		{map[string]string{"delta.enableIcebergCompatV1": "true"}, w7("icebergCompatV1"), errs.ErrUnsupportedTable,
			"delta.enableIcebergCompatV1 = true needs the icebergCompatV1 table feature"},
		{map[string]string{protocol.PropAppendOnly: "maybe"}, nil, errs.ErrInvalidArgument, `delta.appendOnly = "maybe" is not valid: use true or false`},
		{map[string]string{"delta.nope": "1"}, nil, errs.ErrInvalidArgument, "unknown table property delta.nope"},
		{map[string]string{"delta.APPENDONLY": "true"}, nil, errs.ErrInvalidArgument, "table property delta.APPENDONLY = true must be spelled delta.appendOnly = true"},
		{map[string]string{"delta.appendOnly": "TRUE"}, nil, errs.ErrInvalidArgument, "table property delta.appendOnly = TRUE must be spelled delta.appendOnly = true"},
	}
	for _, c := range refused {
		if err := set(c.props, c.p); !errors.Is(err, c.kind) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: want %v naming %q, got %v", c.props, c.kind, c.want, err)
		}
	}
	if v := load(t, st).Version(); v != 0 {
		t.Fatalf("a refused commit landed: version %d", v)
	}
	if err := set(map[string]string{protocol.PropEnableChangeDataFeed: "true", protocol.PropEnableTypeWidening: "true", "owner": "x"},
		&protocol.Protocol{MinReaderVersion: 3, MinWriterVersion: 7, ReaderFeatures: []string{"typeWidening"},
			WriterFeatures: []string{"appendOnly", "invariants", "changeDataFeed", "typeWidening"}}); err != nil {
		t.Fatalf("properties with their features: %v", err)
	}
	if got := load(t, st).Properties(); got[protocol.PropEnableTypeWidening] != "true" || got["owner"] != "x" {
		t.Fatalf("properties %v", got)
	}
}

// TestChangeDataFeedRefusesRowRewrites: a commit marked as rewriting rows
// is refused when change data feed is on (legacy key included), at the
// check before writing and at commit.
func TestChangeDataFeedRefusesRowRewrites(t *testing.T) {
	ctx := context.Background()
	for _, key := range []string{protocol.PropEnableChangeDataFeed, protocol.PropEnableChangeDataCapture} {
		st := storage.NewMemory()
		f := addIn("")
		snap := create(t, st, tableSpec{proto: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 4}, props: map[string]string{key: "true"}}, f)
		op := Operation{Name: OpWrite, Parameters: map[string]any{"mode": "Overwrite", "predicate": "id = 1"}, RewritesRows: true}
		if err := CheckWritable(snap, op); !errors.Is(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), "delta.enableChangeDataFeed is true") {
			t.Errorf("%s: check: %v", key, err)
		}
		tx := Begin(snap, op, fast())
		tx.ReadFiles(f)
		tx.Add(removeAction(removeOf(f, true)), addAction(addIn("")))
		if _, err := tx.Commit(ctx); !errors.Is(err, errs.ErrUnsupportedTable) || !strings.Contains(err.Error(), "keeping some of their rows") {
			t.Errorf("%s: commit: %v", key, err)
		}
		if load(t, st).Version() != 0 {
			t.Errorf("%s: a refused commit landed", key)
		}
	}
}
