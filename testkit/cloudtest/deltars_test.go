package cloudtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/deltalite-go/deltalite"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// deltaRS is a python/cloud_peer.py process: delta-rs answering requests
// one JSON line at a time, so that a test pays Python's start once.
type deltaRS struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *strings.Builder
	uri    string
	opts   map[string]string
}

// startDeltaRS starts the peer for one table, or skips the test when the
// Python environment is missing (fails it when peers are required).
func startDeltaRS(t *testing.T, uri string, opts map[string]string) *deltaRS {
	t.Helper()
	py := peers.Python(t)
	script := peers.Script(t, "cloud_peer.py")
	cmd := exec.Command(py, script)
	cmd.Env = append(os.Environ(), "DELTALITE_ROOT="+peers.Root(t), "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &deltaRS{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), stderr: &strings.Builder{}, uri: uri, opts: opts}
	cmd.Stderr = &lockedWriter{w: p.stderr}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return p
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// errPeer is a request delta-rs answered with an error.
var errPeer = errors.New("delta-rs refused")

// send writes one request for the table; receive reads its answer.
func (p *deltaRS) send(t *testing.T, req map[string]any) {
	t.Helper()
	req["uri"], req["storage_options"] = p.uri, p.opts
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Fatalf("delta-rs peer: %v\n%s", err, p.stderr.String())
	}
}

func (p *deltaRS) receive(t *testing.T, into any) error {
	t.Helper()
	type answer struct {
		line []byte
		err  error
	}
	ch := make(chan answer, 1)
	go func() {
		line, err := p.out.ReadBytes('\n')
		ch <- answer{line, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-time.After(2 * time.Minute):
		_ = p.cmd.Process.Kill()
		t.Fatalf("delta-rs peer did not answer within 2 minutes\n%s", p.stderr.String())
	}
	if a.err != nil {
		t.Fatalf("delta-rs peer: %v\n%s", a.err, p.stderr.String())
	}
	var status struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(a.line, &status); err != nil {
		t.Fatalf("delta-rs peer answered %q: %v", a.line, err)
	}
	if !status.OK {
		return fmt.Errorf("%w: %s", errPeer, status.Error)
	}
	if into != nil {
		if err := json.Unmarshal(a.line, into); err != nil {
			t.Fatalf("delta-rs peer answered %q: %v", a.line, err)
		}
	}
	return nil
}

// call is send and receive; an error answer fails the test.
func (p *deltaRS) call(t *testing.T, req map[string]any, into any) {
	t.Helper()
	p.send(t, req)
	if err := p.receive(t, into); err != nil {
		t.Fatalf("delta-rs %s: %v", req["op"], err)
	}
}

// read returns the version delta-rs read (the latest, or version) and its
// rows as arrowrows lines.
func (p *deltaRS) read(t *testing.T, version *int64) (int64, []string) {
	t.Helper()
	req := map[string]any{"op": "read"}
	if version != nil {
		req["version"] = *version
	}
	p.send(t, req)
	var raw json.RawMessage
	if err := p.receive(t, &raw); err != nil {
		t.Fatalf("delta-rs read: %v", err)
	}
	tb, err := peers.DecodeTable(raw)
	if err != nil {
		t.Fatal(err)
	}
	if tb.Version == nil {
		t.Fatalf("delta-rs read without a version")
	}
	return *tb.Version, tb.Lines(t)
}

type peerCommit struct {
	Version   int64  `json:"version"`
	Operation string `json:"operation"`
}

func (p *deltaRS) history(t *testing.T) []peerCommit {
	t.Helper()
	var h struct {
		Commits []peerCommit `json:"commits"`
	}
	p.call(t, map[string]any{"op": "history"}, &h)
	return h.Commits
}

// TestDeltaRSAlternating: deltalite and delta-rs take turns writing one S3
// table (create, appends, replace-where overwrites of a partition), with the
// same storage options. After every turn both read the same version and
// the same rows; at the end both list the same contiguous history and read
// every version alike.
func TestDeltaRSAlternating(t *testing.T) {
	if testing.Short() {
		t.Skip("delta-rs interop: skipped in -short mode")
	}
	c := s3Cloud(t)
	uri := c.tableURI("alternate-")
	rs := startDeltaRS(t, uri, c.opts)

	a1, b2, c1, d3 := person{1, "a", "d1"}, person{2, "b", "d2"}, person{3, "c", "d1"}, person{4, "d", "d3"}
	x1, y2, z4 := person{10, "x", "d1"}, person{20, "y", "d2"}, person{30, "z", "d4"}
	type turn struct {
		who     string
		run     func()
		content []person
	}
	ours := func(wo deltalite.WriteOptions, rows ...person) func() {
		return func() { c.write(t, uri, people(rows...), wo) }
	}
	theirs := func(mode, predicate string, rows ...person) func() {
		return func() {
			req := map[string]any{"op": "write", "mode": mode, "schema": peerSchema, "rows": peerRows(rows...)}
			if predicate != "" {
				req["predicate"] = predicate
			}
			rs.call(t, req, nil)
		}
	}
	turns := []turn{
		{"deltalite", ours(deltalite.WriteOptions{Mode: deltalite.ModeError, PartitionBy: []string{"day"}}, a1, b2), []person{a1, b2}},
		{"delta-rs", theirs("append", "", c1), []person{a1, b2, c1}},
		{"deltalite", ours(deltalite.WriteOptions{Mode: deltalite.ModeAppend}, d3), []person{a1, b2, c1, d3}},
		{"delta-rs", theirs("overwrite", "day = 'd1'", x1), []person{x1, b2, d3}},
		{"deltalite", ours(deltalite.WriteOptions{Mode: deltalite.ModeOverwrite, ReplaceWhere: "day = 'd2'"}, y2), []person{x1, y2, d3}},
		{"delta-rs", theirs("append", "", z4), []person{x1, y2, d3, z4}},
	}
	for v, tu := range turns {
		tu.run()
		want := lines(tu.content...)
		ov, orows := c.readLines(t, uri)
		tv, trows := rs.read(t, nil)
		if ov != int64(v) || tv != int64(v) {
			t.Fatalf("after %s's turn %d: deltalite reads version %d, delta-rs %d", tu.who, v, ov, tv)
		}
		sameLines(t, fmt.Sprintf("deltalite after %s's turn %d", tu.who, v), orows, want)
		sameLines(t, fmt.Sprintf("delta-rs after %s's turn %d", tu.who, v), trows, want)
	}

	tb := c.open(t, uri)
	ourHist, err := tb.History(ctxFor(t, 30*time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	theirHist := rs.history(t)
	if len(ourHist) != len(turns) || len(theirHist) != len(turns) {
		t.Fatalf("history: deltalite lists %d commits, delta-rs %d, want %d", len(ourHist), len(theirHist), len(turns))
	}
	for i := range ourHist {
		if ourHist[i].Version != int64(len(turns)-1-i) || theirHist[i].Version != ourHist[i].Version {
			t.Fatalf("history[%d]: deltalite version %d, delta-rs version %d", i, ourHist[i].Version, theirHist[i].Version)
		}
		if ourHist[i].Info.Operation != theirHist[i].Operation {
			t.Fatalf("version %d: deltalite reads operation %q, delta-rs %q", ourHist[i].Version, ourHist[i].Info.Operation, theirHist[i].Operation)
		}
	}
	for v, tu := range turns {
		_, orows := c.readLines(t, uri, deltalite.WithVersion(int64(v)))
		tv, trows := rs.read(t, peers.Int64(int64(v)))
		if tv != int64(v) {
			t.Fatalf("delta-rs asked for version %d read %d", v, tv)
		}
		sameLines(t, fmt.Sprintf("deltalite at version %d", v), orows, lines(tu.content...))
		sameLines(t, fmt.Sprintf("delta-rs at version %d", v), trows, lines(tu.content...))
	}
}

// TestDeltaRSRace: deltalite and delta-rs append to one S3 table at the same
// time, one row per commit. Both engines commit with If-None-Match, so each
// version has one winner: the versions are contiguous, every version adds
// exactly one row, every row lands once, and both engines read the same.
func TestDeltaRSRace(t *testing.T) {
	if testing.Short() {
		t.Skip("delta-rs interop: skipped in -short mode")
	}
	const n = 8
	c := s3Cloud(t)
	uri := c.tableURI("rs-race-")
	rs := startDeltaRS(t, uri, c.opts)
	seed := person{-1, "seed", "seed"}
	c.write(t, uri, people(seed), deltalite.WriteOptions{Mode: deltalite.ModeError})

	var batches [][]map[string]any
	want := []person{seed}
	for i := range n {
		p := person{int64(1000 + i), "rs", "theirs"}
		batches = append(batches, peerRows(p))
		want = append(want, p, person{int64(i), "go", "ours"})
	}
	// Warm the peer up (imports, first connection) so that both sides
	// start writing together.
	rs.read(t, nil)
	rs.send(t, map[string]any{"op": "appends", "schema": peerSchema, "batches": batches})
	for i := range n {
		c.write(t, uri, people(person{int64(i), "go", "ours"}), deltalite.WriteOptions{Mode: deltalite.ModeAppend})
	}
	var res struct {
		Conflicts int `json:"conflicts"`
	}
	if err := rs.receive(t, &res); err != nil {
		t.Fatalf("delta-rs appends: %v", err)
	}

	tb := c.open(t, uri)
	if tb.Version() != 2*n {
		t.Fatalf("table at version %d after %d appends", tb.Version(), 2*n)
	}
	sameLines(t, "deltalite after the race", scanLines(t, tb), lines(want...))
	tv, trows := rs.read(t, nil)
	if tv != 2*n {
		t.Fatalf("delta-rs reads version %d", tv)
	}
	sameLines(t, "delta-rs after the race", trows, lines(want...))

	// Every version adds exactly one row; note which engine won it.
	prev := lines(seed)
	order := ""
	for v := int64(1); v <= 2*n; v++ {
		_, rows := c.readLines(t, uri, deltalite.WithVersion(v))
		var added []string
		for _, r := range rows {
			if !slices.Contains(prev, r) {
				added = append(added, r)
			}
		}
		if len(rows) != len(prev)+1 || len(added) != 1 {
			t.Fatalf("version %d adds %v to %d rows", v, added, len(prev))
		}
		if strings.Contains(added[0], `name="go"`) {
			order += "g"
		} else {
			order += "r"
		}
		prev = rows
	}
	hist, err := tb.History(ctxFor(t, 30*time.Second), 0)
	if err != nil {
		t.Fatal(err)
	}
	retried := 0 // commits won after losing the race for an earlier version
	for _, h := range hist {
		if h.Info != nil && h.Info.ReadVersion != nil && *h.Info.ReadVersion < h.Version-1 {
			retried++
		}
	}
	t.Logf("winners by version (g deltalite, r delta-rs): %s; %d commits were won after losing a race; delta-rs gave up %d", order, retried, res.Conflicts)
}
