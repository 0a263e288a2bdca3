package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/peers"
)

// peerScript reads jobs (a JSON list on stdin) and prints, for each, what
// delta-rs sees of the table (version, row count, and each file with its
// statistics as delta-rs parsed them) and, when a checkpoint file is
// named, what pyarrow reads from it. One process serves every job: the
// interpreter and its imports take seconds to start.
const peerScript = `
import json, sys
import pyarrow as pa, pyarrow.parquet as pq
from deltalake import DeltaTable, QueryBuilder

def view(job):
    dt = DeltaTable(job["table"])
    rows = pa.table(QueryBuilder().register("t", dt).execute("select count(*) as n from t").read_all()).to_pylist()[0]["n"]
    adds = pa.table(dt.get_add_actions(flatten=True)).to_pylist()
    adds = sorted((json.loads(json.dumps(a, default=str)) for a in adds), key=lambda a: a["path"])
    for a in adds:
        a.pop("modification_time", None)
    out = {"version": dt.version(), "rows": rows, "adds": adds}
    if job.get("checkpoint"):
        t = pq.read_table(job["checkpoint"])
        add = [a for a in t.column("add").to_pylist() if a is not None]
        out["checkpoint"] = {
            "rows": t.num_rows,
            "adds": len(add),
            "add_fields": [f.name for f in t.schema.field("add").type],
            "protocol": [p for p in t.column("protocol").to_pylist() if p is not None],
        }
    return out

print(json.dumps([view(j) for j in json.load(sys.stdin)]))
`

type peerJob struct {
	Table      string `json:"table"`
	Checkpoint string `json:"checkpoint,omitempty"`
}

type peerView struct {
	Version    int64            `json:"version"`
	Rows       int64            `json:"rows"`
	Adds       []map[string]any `json:"adds"`
	Checkpoint *struct {
		Rows      int64            `json:"rows"`
		Adds      int              `json:"adds"`
		AddFields []string         `json:"add_fields"`
		Protocol  []map[string]any `json:"protocol"`
	} `json:"checkpoint"`
}

func runPeer(t *testing.T, py string, jobs []peerJob) []peerView {
	t.Helper()
	in, _ := json.Marshal(jobs)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(py, "-c", peerScript)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = bytes.NewReader(in), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("peer: %v\n%s", err, stderr.String())
	}
	var v []peerView
	if err := json.Unmarshal(stdout.Bytes(), &v); err != nil || len(v) != len(jobs) {
		t.Fatalf("peer output %q: %v", stdout.String(), err)
	}
	return v
}

// delta-rs and pyarrow read the checkpoints this package writes: a copy of
// a real table whose checkpoint (and the commits it covers) is replaced by
// ours opens in delta-rs at the same version with the same rows, files,
// partition values and statistics as the original; with stats only as
// stats_parsed, delta-rs takes the statistics from there.
type interopCase struct {
	table   string
	version int64
	mode    string // json, json+struct or struct
}

var interopCases = []interopCase{
	{"dat/with_checkpoint/delta", 2, "json"},
	{"kernel-rs/v1-multi-part-partitioned-struct-stats-only", 5, "json+struct"},
	{"kernel-rs/v1-multi-part-partitioned-struct-stats-only", 5, "struct"},
}

// withOurCheckpoint copies a corpus table to a temporary directory and
// replaces its checkpoint at c.version by ours, removing the commits before
// it and the old _last_checkpoint, so that a peer can only build the table
// from our file. The commit at the checkpoint's version stays, as metadata
// cleanup leaves it (Spark needs it for the version's timestamp). It returns the original root, the copy, and what
// Write returned.
func withOurCheckpoint(t *testing.T, c interopCase) (root, dir string, lc LastCheckpoint, opt WriteOptions) {
	t.Helper()
	src, root := table(t, c.table)
	orig := readAll(t, src, checkpointParts(t, root, c.version))
	dir = t.TempDir()
	copyTree(t, root, dir)
	logDir := filepath.Join(dir, "_delta_log")
	ents, _ := os.ReadDir(logDir)
	for _, e := range ents {
		name := e.Name()
		var v int64
		if _, err := fmt.Sscanf(name, "%020d", &v); err == nil && v < c.version || strings.HasPrefix(name, fmt.Sprintf("%020d.checkpoint", c.version)) || strings.HasSuffix(name, ".crc") || name == "_last_checkpoint" {
			if err := os.RemoveAll(filepath.Join(logDir, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	opt = statsModeOptions(t, orig, c.mode)
	st, _ := storage.NewLocal(dir)
	lc, err := writeStore(context.Background(), st, c.version, orig, opt)
	if err != nil {
		t.Fatal(err)
	}
	b, err := EncodeLastCheckpoint(lc)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Put(context.Background(), protocol.LastCheckpointKey, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	return root, dir, lc, opt
}

// delta-rs and pyarrow read the checkpoints this package writes: a copy of
// a real table whose checkpoint (and the commits it covers) is replaced by
// ours opens in delta-rs at the same version with the same rows, files,
// partition values and statistics as the original; with stats only as
// stats_parsed, delta-rs takes the statistics from there (it prefers them
// even when both forms are written).
func TestInteropPeersReadWrittenCheckpoint(t *testing.T) {
	py := peers.Python(t)
	var jobs []peerJob
	var written []LastCheckpoint
	for _, c := range interopCases {
		root, dir, lc, _ := withOurCheckpoint(t, c)
		jobs = append(jobs, peerJob{Table: root}, peerJob{Table: dir, Checkpoint: filepath.Join(dir, filepath.FromSlash(protocol.CheckpointKey(c.version)))})
		written = append(written, lc)
	}
	views := runPeer(t, py, jobs)
	for i, c := range interopCases {
		want, got, lc := views[2*i], views[2*i+1], written[i]
		name := c.table + "/" + c.mode
		if len(want.Adds) == 0 || got.Version != want.Version || got.Rows != want.Rows {
			t.Errorf("%s: delta-rs sees version %d with %d rows, want %d with %d (%d files)", name, got.Version, got.Rows, want.Version, want.Rows, len(want.Adds))
		}
		if !reflect.DeepEqual(got.Adds, want.Adds) {
			t.Errorf("%s: delta-rs files and stats differ:\n got %v\nwant %v", name, got.Adds, want.Adds)
		}
		cp := got.Checkpoint
		if cp == nil || cp.Rows != lc.Size || int64(cp.Adds) != lc.NumOfAddFiles || len(cp.Protocol) != 1 {
			t.Errorf("%s: pyarrow reads the checkpoint as %+v; last checkpoint %+v", name, cp, lc)
			continue
		}
		has := "," + strings.Join(cp.AddFields, ",") + ","
		if strings.Contains(has, ",stats_parsed,") != strings.Contains(c.mode, "struct") || strings.Contains(has, ",stats,") != (c.mode != "struct") {
			t.Errorf("%s: add fields %v", name, cp.AddFields)
		}
	}
}

// Spark (Delta Lake, through testkit/peers) reads the same copies to the
// same rows as the originals.
func TestInteropSparkReadsWrittenCheckpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("Spark takes tens of seconds to start")
	}
	spark := peers.Spark(t)
	var ops []peers.Op
	for _, c := range interopCases[:2] {
		root, dir, _, _ := withOurCheckpoint(t, c)
		ops = append(ops, peers.ReadOp(root, peers.ReadOptions{}), peers.ReadOp(dir, peers.ReadOptions{}))
	}
	res := spark.Run(t, ops...)
	for i := 0; i < len(ops); i += 2 {
		want, got := res[i].Table(t), res[i+1].Table(t)
		if want.NumRows == 0 || !reflect.DeepEqual(got.Lines(t), want.Lines(t)) {
			t.Errorf("%s: Spark reads %d rows with our checkpoint, %d without, or other rows", interopCases[i/2].table, got.NumRows, want.NumRows)
		}
	}
}
