package upserttest

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/upsert"
)

// writerPlan is the batches of one upsert process.
type writerPlan struct {
	name    string
	batches [][][]any
	files   []string
}

// runWriters writes each plan's batches and runs one upsert process per
// plan, each starting its i-th batch at the same moment as the others
// (rounds interval apart, or as soon as it can); it returns their results.
func runWriters(t *testing.T, dir, uri string, g *gen, plans []*writerPlan, retries int, interval time.Duration) map[string][]procResult {
	t.Helper()
	for _, p := range plans {
		for i, rows := range p.batches {
			path := filepath.Join(dir, fmt.Sprintf("%s-%d.parquet", p.name, i))
			rec := record(g.cols, allColumns(g.cols), rows, plain, "", nil)
			writeParquet(t, path, rec)
			rec.Release()
			p.files = append(p.files, path)
		}
	}
	start := time.Now().Add(500 * time.Millisecond).UnixNano()
	results := map[string][]procResult{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, p := range plans {
		cmd := upsertProcess(t, procSpec{
			Table: uri, Batches: p.files, AppID: p.name, FirstVersion: 1, StartAt: start, Interval: int64(interval),
			Keys: g.sc.keyNames(), CommitMaxRetries: retries, PruneStrategy: upsert.PruneNone,
		})
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := cmd.Wait()
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("writer %s: %v", p.name, err)
				return
			}
			results[p.name] = parseResults(t, out.Bytes())
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, p := range plans {
		rs := results[p.name]
		if len(rs) != len(p.batches) {
			t.Fatalf("writer %s reported %d upserts, want %d", p.name, len(rs), len(p.batches))
		}
		for _, r := range rs {
			if r.Error != "" {
				t.Errorf("writer %s, batch %d: %s (conflict: %t)", p.name, r.Seq, r.Error, r.Conflict)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	contended := 0
	for _, rs := range results {
		for _, r := range rs {
			if r.Stats.Version > r.Before+1 {
				contended++
			}
		}
	}
	t.Logf("%d of the upserts committed after other writers' commits made during their run", contended)
	return results
}

// commitOrder reads the history: the versions must be contiguous from 0,
// and the commits after initial must each carry a writer and a sequence
// number. It returns them in version order.
func commitOrder(t *testing.T, uri string, initial int64) []struct {
	writer string
	seq    int
} {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	h, err := tb.History(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(h, func(i, j int) bool { return h[i].Version < h[j].Version })
	var out []struct {
		writer string
		seq    int
	}
	for i, c := range h {
		if c.Version != int64(i) {
			t.Fatalf("history: version %d at position %d: versions are not contiguous", c.Version, i)
		}
		if c.Version <= initial {
			continue
		}
		if c.Info == nil {
			t.Fatalf("version %d has no commitInfo", c.Version)
		}
		w, _ := c.Info.Raw["writer"].(string)
		seq, ok := c.Info.Raw["seq"].(float64)
		if w == "" || !ok {
			t.Fatalf("version %d: commitInfo without writer and seq: %v", c.Version, c.Info.Raw)
		}
		if c.Info.Operation != "MERGE" {
			t.Errorf("version %d: operation %q, want MERGE", c.Version, c.Info.Operation)
		}
		out = append(out, struct {
			writer string
			seq    int
		}{w, int(seq)})
	}
	return out
}

// noOrphans checks that every data file in the table directory is live or
// removed by a commit: an attempt that conflicted and planned again left
// no file behind.
func noOrphans(t *testing.T, uri string) {
	t.Helper()
	tb, err := deltalite.Open(context.Background(), uri)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	add := func(p string) {
		if u, err := url.PathUnescape(p); err == nil {
			p = u
		}
		known[filepath.Join(uri, filepath.FromSlash(p))] = true
	}
	for _, a := range tb.Snapshot().Files() {
		add(a.Path)
	}
	for _, r := range tb.Snapshot().Tombstones() {
		add(r.Path)
	}
	var orphans []string
	for _, f := range dataFiles(t, uri) {
		if !known[f] {
			orphans = append(orphans, f)
		}
	}
	if len(orphans) > 0 {
		t.Errorf("%d data files are neither live nor removed by a commit: %v", len(orphans), orphans)
	}
}

// concurrencyTable makes a table of string keys partitioned by day with
// perPart rows in each of the first parts partitions.
func concurrencyTable(t *testing.T, name string, parts, perPart int) (*gen, string) {
	sc := base(name, column{name: "id", kind: kString})
	sc.partValues = days(8)
	sc.initParts = parts
	sc.initRows = parts * perPart
	g := newGen(&sc)
	uri := filepath.Join(t.TempDir(), "table")
	writeTable(t, uri, g, g.initial(), 2)
	return g, uri
}

// plannedBatch makes a batch of partition p: updates of n existing keys
// (from the model, not applied), inserts of fresh keys named prefix-j, the
// extra keys given, and a null key.
func plannedBatch(g *gen, p []any, n, inserts int, prefix string, extra ...string) [][]any {
	by, _ := g.existing()
	old := by[g.partKey(p)]
	b := g.newBatchState()
	for _, i := range g.r.Perm(len(old))[:min(n, len(old))] {
		b.update(old[i])
	}
	for j := range inserts {
		b.add(g.row(p, []any{fmt.Sprintf("%s-%d", prefix, j)}))
	}
	for _, k := range extra {
		b.add(g.row(p, []any{k}))
	}
	b.add(g.row(p, nil))
	return b.rows
}

// TestConcurrentDisjointPartitions: upsert processes writing disjoint
// partitions at the same time all land: contiguous versions, one commit
// per batch, and the content is the union of every batch.
func TestConcurrentDisjointPartitions(t *testing.T) {
	writers, perWriter := 3, 5
	if testing.Short() {
		writers, perWriter = 2, 3
	}
	g, uri := concurrencyTable(t, "disjoint", writers, 200)
	var plans []*writerPlan
	for w := range writers {
		p := &writerPlan{name: fmt.Sprintf("w%d", w)}
		for i := range perWriter {
			g.step = 100*(w+1) + i
			rows := plannedBatch(g, g.sc.partValues[w], 20, 10, fmt.Sprintf("w%d-%d", w, i))
			if i == perWriter-1 { // and a new partition of its own
				rows = append(rows, plannedBatch(g, g.sc.partValues[writers+w], 0, 5, fmt.Sprintf("w%d-new", w))...)
			}
			g.m.apply(rows, nil) // disjoint: any interleaving ends here
			p.batches = append(p.batches, rows)
		}
		plans = append(plans, p)
	}
	runWriters(t, t.TempDir(), uri, g, plans, 0, 150*time.Millisecond)
	order := commitOrder(t, uri, 1)
	if len(order) != writers*perWriter {
		t.Fatalf("%d commits after the initial ones, want %d", len(order), writers*perWriter)
	}
	next := map[string]int{}
	for _, c := range order {
		if c.seq != next[c.writer] {
			t.Fatalf("writer %s committed batch %d before batch %d", c.writer, c.seq, next[c.writer])
		}
		next[c.writer]++
	}
	got, _ := readLines(t, uri)
	sameLines(t, "content after the concurrent upserts", got, g.m.lines(), "table", "union of the batches")
	for _, p := range plans {
		if v, _ := appVersion(t, uri, p.name); v != int64(perWriter) {
			t.Errorf("writer %s: app version %d, want %d", p.name, v, perWriter)
		}
	}
	noOrphans(t, uri)
	t.Logf("commit order: %v", order)
}

// TestConcurrentSamePartition: upsert processes writing the same partition
// at the same time, with overlapping keys and the same new keys inserted
// by every process: every batch lands once, and the content equals
// applying the batches in commit order (read from the history). A new key
// that several processes insert at once is in the table once.
func TestConcurrentSamePartition(t *testing.T) {
	writers, perWriter := 3, 4
	if testing.Short() {
		writers, perWriter = 2, 3
	}
	g, uri := concurrencyTable(t, "same", 2, 3000)
	initial := g.m.clone()
	target := g.sc.partValues[0]
	var plans []*writerPlan
	for w := range writers {
		p := &writerPlan{name: fmt.Sprintf("w%d", w)}
		for i := range perWriter {
			g.step = 100*(w+1) + i
			// Updates of shared keys, fresh keys of its own, and new keys
			// every process inserts: race-i in the i-th batches, race-all
			// in all of them.
			rows := plannedBatch(g, target, 25, 5, fmt.Sprintf("w%d-%d", w, i), fmt.Sprintf("race-%d", i), "race-all")
			if i%2 == 1 {
				rows = append(rows, plannedBatch(g, g.sc.partValues[1], 5, 1, fmt.Sprintf("w%d-%d-q", w, i))...)
			}
			p.batches = append(p.batches, rows)
		}
		plans = append(plans, p)
	}
	results := runWriters(t, t.TempDir(), uri, g, plans, 100, 250*time.Millisecond)
	order := commitOrder(t, uri, 1)
	if len(order) != writers*perWriter {
		t.Fatalf("%d commits after the initial ones, want %d", len(order), writers*perWriter)
	}
	// Replay the batches in commit order.
	replay := initial.clone()
	byName := map[string]*writerPlan{}
	for _, p := range plans {
		byName[p.name] = p
	}
	next := map[string]int{}
	var seq []string
	for _, c := range order {
		if c.seq != next[c.writer] {
			t.Fatalf("writer %s committed batch %d before batch %d", c.writer, c.seq, next[c.writer])
		}
		next[c.writer]++
		// Every batch writes the shared partition, so each commit was
		// planned on the version just before it: its counts are the
		// replay's.
		want := replay.apply(byName[c.writer].batches[c.seq], nil)
		st := results[c.writer][c.seq].Stats
		if st.RowsUpdated != want.updated || st.RowsInserted != want.inserted {
			t.Errorf("%s/%d: stats %v, want updated=%d inserted=%d", c.writer, c.seq, st, want.updated, want.inserted)
		}
		seq = append(seq, fmt.Sprintf("%s/%d", c.writer, c.seq))
	}
	got, _ := readLines(t, uri)
	sameLines(t, "content after the concurrent upserts", got, replay.lines(), "table", "batches in commit order")
	// Every race key is there once.
	for _, k := range append([]string{"race-all"}, func() []string {
		var ks []string
		for i := range perWriter {
			ks = append(ks, fmt.Sprintf("race-%d", i))
		}
		return ks
	}()...) {
		n := 0
		needle := fmt.Sprintf("id=%q", k)
		for _, l := range got {
			if strings.Contains(l, needle+",") || strings.HasSuffix(l, needle) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("key %s is in the table %d times, want once", k, n)
		}
	}
	for _, p := range plans {
		if v, _ := appVersion(t, uri, p.name); v != int64(perWriter) {
			t.Errorf("writer %s: app version %d, want %d", p.name, v, perWriter)
		}
	}
	noOrphans(t, uri)
	t.Logf("commit order: %s", strings.Join(seq, " "))
}
