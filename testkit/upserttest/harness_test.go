package upserttest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/tablerows"
)

// mergeAvailable reports whether delta-rs can serve as the reference. When
// peers are required (CI) a missing environment fails the test; otherwise,
// and in -short mode, the parity tests compare with the model alone.
func mergeAvailable(t *testing.T) bool {
	t.Helper()
	if testing.Short() {
		return false
	}
	if peers.Required() {
		peers.Python(t)
		return true
	}
	root := peers.Root(t)
	for _, p := range []string{".venv/bin/python", ".venv/.deltalite-requirements"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			return false
		}
	}
	return true
}

// writeParquet writes rec as a Parquet file with its Arrow schema stored,
// so that pyarrow reads back the exact types.
func writeParquet(t testing.TB, path string, rec arrow.RecordBatch) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// readLines reads the table at uri with this engine, freshly opened, as
// canonical rows.
func readLines(t testing.TB, uri string) ([]string, int64) {
	t.Helper()
	ctx := context.Background()
	tb, err := deltalite.Open(ctx, uri)
	if err != nil {
		t.Fatalf("open %s: %v", uri, err)
	}
	return tablerows.Scan(t, tb), tb.Version()
}

// diffLines returns the rows only in a and only in b (multisets).
func diffLines(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

// sameLines fails the test when got and want differ, naming the rows.
func sameLines(t testing.TB, what string, got, want []string, gotName, wantName string) bool {
	t.Helper()
	onlyGot, onlyWant := diffLines(got, want)
	if len(onlyGot) == 0 && len(onlyWant) == 0 {
		return true
	}
	clip := func(s []string) string {
		if len(s) == 0 {
			return "(none)"
		}
		if len(s) > 8 {
			return strings.Join(s[:8], "\n    ") + fmt.Sprintf("\n    ... (%d more)", len(s)-8)
		}
		return strings.Join(s, "\n    ")
	}
	t.Errorf("%s: %d rows in %s, %d in %s\n  only in %s:\n    %s\n  only in %s:\n    %s",
		what, len(got), gotName, len(want), wantName, gotName, clip(onlyGot), wantName, clip(onlyWant))
	return false
}

// mergeStep is parity_merge.py's report of one step.
type mergeStep struct {
	OK      bool    `json:"ok"`
	Version int64   `json:"version"`
	Error   string  `json:"error"`
	Seconds float64 `json:"seconds"`
}

// mergeRun is parity_merge.py's report.
type mergeRun struct {
	CreatedVersion int64       `json:"created_version"`
	CreateSeconds  float64     `json:"create_seconds"`
	Steps          []mergeStep `json:"steps"`
}

// sourceReader is the engine's source for a batch: upserts and deletes
// shuffled together, dictionary columns encoded, the delete flag column
// when the batch deletes, columns dropped or reversed as the batch says,
// split into bt.chunks record batches.
func sourceReader(t testing.TB, g *gen, bt *batch, withDeletes bool) array.RecordReader {
	t.Helper()
	pick := allColumns(g.cols)
	if bt.dropOpt {
		pick = slices.DeleteFunc(pick, func(i int) bool { return i == g.valueCol(colOpt) })
	}
	if bt.reorder {
		slices.Reverse(pick)
	}
	rows := slices.Clone(bt.upserts)
	flags := make([]bool, len(rows))
	rows = append(rows, bt.deletes...)
	for range bt.deletes {
		flags = append(flags, true)
	}
	// A deterministic interleaving of deletes among upserts.
	perm := g.r.Perm(len(rows))
	shuffled := make([][]any, len(rows))
	sflags := make([]bool, len(rows))
	for i, p := range perm {
		shuffled[i], sflags[i] = rows[p], flags[p]
	}
	var extra []bool
	if withDeletes {
		extra = sflags
	}
	rec := record(g.cols, pick, shuffled, encoding{dicts: true, widen: bt.widen}, deleteColumn, extra)
	defer rec.Release()
	var recs []arrow.RecordBatch
	n := int(rec.NumRows())
	if n > 0 {
		cuts := []int{0}
		for range bt.chunks - 1 {
			cuts = append(cuts, g.r.IntN(n+1))
		}
		cuts = append(cuts, n)
		slices.Sort(cuts)
		for i := 1; i < len(cuts); i++ {
			recs = append(recs, rec.NewSlice(int64(cuts[i-1]), int64(cuts[i])))
		}
	} else if bt.chunks > 1 {
		rec.Retain()
		recs = append(recs, rec) // one empty batch; otherwise none at all
	}
	rr, err := array.NewRecordReader(rec.Schema(), recs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		r.Release()
	}
	return rr
}

// parityResult summarises a run for the test log.
type parityResult struct {
	mergeTime, oursTime time.Duration
	// deletionVectors are the files the engine's upserts gave a deletion
	// vector (sc.dvs).
	deletionVectors int
}

// runParity runs a scenario: the same initial table through delta-rs MERGE
// (when available) and through the engine, compared with each other and
// with the model after every batch.
func runParity(t *testing.T, sc scenario) parityResult {
	t.Helper()
	ctx := context.Background()
	var res parityResult
	dir := t.TempDir()
	g := newGen(&sc)
	var initRows [][]any
	var initLines []string
	var batches []*batch
	if sc.script != nil {
		initRows, batches = sc.script(g)
		initLines = lines(g.cols, initRows)
	} else {
		initRows = g.initial()
		initLines = g.m.lines()
		batches = make([]*batch, len(sc.steps))
		for i, k := range sc.steps {
			batches[i] = g.next(k)
		}
	}

	// Files: the initial rows split into appends, and each batch's upserts
	// and deletes as MERGE sees them (every column, plain types).
	all := allColumns(g.cols)
	chunks := splitRows(g, initRows, sc.appends)
	var initFiles []string
	for i, rows := range chunks {
		p := filepath.Join(dir, fmt.Sprintf("init%d.parquet", i))
		rec := record(g.cols, all, rows, plain, "", nil)
		writeParquet(t, p, rec)
		rec.Release()
		initFiles = append(initFiles, p)
	}
	withMerge := mergeAvailable(t)
	oursURI := filepath.Join(dir, "ours")
	var mergeLines [][]string
	if withMerge {
		type step struct {
			Upsert string `json:"upsert,omitempty"`
			Delete string `json:"delete,omitempty"`
			Out    string `json:"out"`
		}
		spec := map[string]any{
			"table":        filepath.Join(dir, "merge"),
			"copy_to":      oursURI,
			"keys":         sc.keyNames(),
			"partition_by": sc.partNames(),
			"create": map[string]any{
				"files":              initFiles,
				"max_row_group_size": sc.rowGroup,
				"target_file_size":   sc.fileSize,
			},
		}
		var steps []step
		for i, bt := range batches {
			st := step{Out: filepath.Join(dir, fmt.Sprintf("merge%d.json", i))}
			st.Upsert = filepath.Join(dir, fmt.Sprintf("upsert%d.parquet", i))
			rec := record(g.cols, all, bt.upserts, plain, "", nil)
			writeParquet(t, st.Upsert, rec)
			rec.Release()
			if len(bt.deletes) > 0 {
				st.Delete = filepath.Join(dir, fmt.Sprintf("delete%d.parquet", i))
				rec := record(g.cols, all, bt.deletes, plain, "", nil)
				writeParquet(t, st.Delete, rec)
				rec.Release()
			}
			steps = append(steps, st)
		}
		spec["steps"] = steps
		specPath := filepath.Join(dir, "spec.json")
		b, _ := json.Marshal(spec)
		if err := os.WriteFile(specPath, b, 0o644); err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		out := peers.RunPythonWith(t, peers.Options{Timeout: 4 * time.Minute}, "parity_merge.py", specPath)
		res.mergeTime = time.Since(started)
		var run mergeRun
		if err := json.Unmarshal(out, &run); err != nil {
			t.Fatalf("parity_merge.py output %q: %v", out, err)
		}
		secs := []string{fmt.Sprintf("create %.2fs", run.CreateSeconds)}
		for i, st := range run.Steps {
			secs = append(secs, fmt.Sprintf("%s %.2fs", batches[i].kind, st.Seconds))
		}
		t.Logf("delta-rs: %s", strings.Join(secs, ", "))
		for i, st := range run.Steps {
			if !st.OK {
				if batches[i].kind == stepEmpty {
					t.Logf("step %d (empty): delta-rs MERGE refused the empty batch: %s", i, st.Error)
					mergeLines = append(mergeLines, nil)
					continue
				}
				t.Fatalf("step %d (%s): delta-rs MERGE failed: %s", i, batches[i].kind, st.Error)
			}
			doc, err := os.ReadFile(steps[i].Out)
			if err != nil {
				t.Fatal(err)
			}
			tb, err := peers.DecodeTable(doc)
			if err != nil {
				t.Fatal(err)
			}
			mergeLines = append(mergeLines, tb.Lines(t))
		}
	} else {
		for i, rows := range chunks {
			rec := record(g.cols, all, rows, plain, "", nil)
			rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
			rec.Release()
			if err != nil {
				t.Fatal(err)
			}
			_, err = deltalite.Write(ctx, oursURI, rr, deltalite.WriteOptions{
				Mode: deltalite.ModeAppend, PartitionBy: sc.partNames(), TargetFileSize: int64(sc.fileSize),
			})
			rr.Release()
			if err != nil {
				t.Fatalf("initial append %d: %v", i, err)
			}
		}
	}

	got, version := readLines(t, oursURI)
	if !sameLines(t, "initial table", got, initLines, "table", "model") {
		t.FailNow()
	}
	tb, err := deltalite.Open(ctx, oursURI)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("initial table: %d rows in %d files", len(initLines), tb.Snapshot().NumFiles())
	if sc.dvs {
		if err := tb.SetProperties(ctx, map[string]string{protocol.PropEnableDeletionVectors: "true"}, deltalite.PropertiesOptions{}); err != nil {
			t.Fatal(err)
		}
		version++
	}
	started := time.Now()
	for i, bt := range batches {
		label := fmt.Sprintf("step %d (%s, %d upserts, %d deletes)", i, bt.kind, len(bt.upserts), len(bt.deletes))
		deletes := len(bt.deletes) > 0 && !sc.noDeletes
		if len(bt.deletes) > 0 && sc.noDeletes {
			t.Fatalf("%s: the scenario cannot delete", label)
		}
		opts := sc.opts
		opts.PrimaryKeys = sc.keyNames()
		if i%2 == 0 && len(sc.parts) > 0 {
			opts.PartitionBy = sc.partNames()
		}
		if deletes {
			opts.DeleteColumn = deleteColumn
		}
		opts.CommitMetadata = map[string]any{"parity_step": i}
		rr := sourceReader(t, g, bt, deletes)
		st, err := tb.Upsert(ctx, rr, opts)
		rr.Release()
		if err != nil {
			t.Fatalf("%s: upsert: %v", label, err)
		}
		checkStats(t, label, st, bt, version)
		res.deletionVectors += st.DeletionVectorsAdded
		if st.DeletionVectorsAdded > 0 && st.RowsCopied != 0 {
			t.Errorf("%s: %d rows copied by an upsert that wrote deletion vectors", label, st.RowsCopied)
		}
		if bt.rows() > 0 {
			version++
		}
		got, v := readLines(t, oursURI)
		if v != version {
			t.Errorf("%s: table at version %d, want %d", label, v, version)
		}
		ok := sameLines(t, label+": engine vs model", got, bt.lines, "engine", "model")
		if withMerge && mergeLines[i] != nil {
			ok = sameLines(t, label+": engine vs delta-rs MERGE", got, mergeLines[i], "engine", "MERGE") && ok
			sameLines(t, label+": model vs delta-rs MERGE", bt.lines, mergeLines[i], "model", "MERGE")
		}
		if !ok {
			t.FailNow()
		}
	}
	res.oursTime = time.Since(started)
	if withMerge {
		// delta-rs reads what the engine wrote.
		final := peers.ReadTable(t, peers.DeltaRS, oursURI, peers.ReadOptions{}).Lines(t)
		sameLines(t, "delta-rs reading the engine's table", final, batches[len(batches)-1].lines, "delta-rs", "model")
	}
	t.Logf("%s: %d steps; MERGE side %v, engine side %v", sc.name, len(batches), res.mergeTime.Round(time.Millisecond), res.oursTime.Round(time.Millisecond))
	return res
}

// checkStats compares an upsert's stats with what the model did.
func checkStats(t *testing.T, label string, st deltalite.UpsertStats, bt *batch, before int64) {
	t.Helper()
	if bt.rows() == 0 {
		if st.Version != before || st.FilesAdded != 0 || st.FilesRemoved != 0 {
			t.Errorf("%s: an empty batch committed: %v", label, st)
		}
		return
	}
	if st.Version != before+1 {
		t.Errorf("%s: committed version %d, want %d", label, st.Version, before+1)
	}
	w := bt.want
	if st.RowsUpdated != w.updated || st.RowsInserted != w.inserted || st.RowsDeleted != w.deleted || st.NullPKRows < w.nullKeys {
		t.Errorf("%s: stats %v, want updated=%d inserted=%d deleted=%d null_pk_rows>=%d", label, st, w.updated, w.inserted, w.deleted, w.nullKeys)
	}
	if st.SourceRows != int64(bt.rows()) {
		t.Errorf("%s: source_rows %d, want %d", label, st.SourceRows, bt.rows())
	}
	if st.Skipped {
		t.Errorf("%s: skipped without an AppID", label)
	}
}
