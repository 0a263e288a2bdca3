package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/deltalite-go/deltalite/internal/checkpoint"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

// LongLogOptions shape the long-log table.
type LongLogOptions struct {
	Commits         int    // versions 0 .. Commits-1
	Files           int    // add actions across all commits
	Partitions      int    // values of the "region" partition column
	CheckpointEvery int    // a checkpoint at every multiple of this version
	CompactEvery    int    // every n-th commit is a compaction
	CompactFiles    int    // files one compaction rewrites into one
	Seed            uint64 // makes the table reproducible
}

// DefaultLongLog is the shape the harness uses unless told otherwise.
var DefaultLongLog = LongLogOptions{
	Commits: 5000, Files: 50000, Partitions: 8, CheckpointEvery: 1000,
	CompactEvery: 10, CompactFiles: 8, Seed: 1,
}

// baseTime is the first commit's timestamp; fixed so that two runs of the
// generator produce the same bytes.
var baseTime = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

func longLogSchema() string {
	return schemaString([]deltaField{
		{"region", "string", true, map[string]any{}},
		{"id", "long", true, map[string]any{}},
		{"value", "double", true, map[string]any{}},
		{"name", "string", true, map[string]any{}},
		{"ts", "timestamp", true, map[string]any{}},
	})
}

// logState is the generator's own bookkeeping of the table, kept apart from
// the engine's replay so that the manifest is an independent expectation.
type logState struct {
	live       map[string]*protocol.Add
	byRegion   [][]string // live, not yet compacted paths per partition, oldest first
	tombstones map[string]*protocol.Remove
	txns       map[string]*protocol.Txn
}

// LongLog writes the long-log table into dir (which must not hold a table)
// and its manifest.
func LongLog(ctx context.Context, dir string, o LongLogOptions) (*Manifest, error) {
	if o.Commits < 2 || o.Files < 1 || o.Partitions < 1 || o.CheckpointEvery < 1 || o.CompactEvery < 2 || o.CompactFiles < 2 {
		return nil, fmt.Errorf("long log: invalid options %+v", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err == nil {
		return nil, fmt.Errorf("long log: %s already holds a table", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		return nil, err
	}
	store, err := storage.NewLocal(dir)
	if err != nil {
		return nil, err
	}
	r := rand.New(rand.NewPCG(o.Seed, 0x10c))
	regions := make([]string, o.Partitions)
	for i := range regions {
		regions[i] = fmt.Sprintf("r%02d", i)
	}
	st := &logState{
		live:       map[string]*protocol.Add{},
		byRegion:   make([][]string, o.Partitions),
		tombstones: map[string]*protocol.Remove{},
		txns:       map[string]*protocol.Txn{},
	}
	proto := &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	created := baseTime.UnixMilli()
	meta := &protocol.Metadata{
		ID:               "5f1c3f0e-6b1d-4c8e-9a51-bench0longlog",
		Format:           protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString:     longLogSchema(),
		PartitionColumns: []string{"region"},
		Configuration:    map[string]string{"delta.checkpointInterval": strconv.Itoa(o.CheckpointEvery)},
		CreatedTime:      &created,
	}

	// Spread the adds: compactions add one file each, regular commits the rest.
	compactions := (o.Commits - 1) / o.CompactEvery
	regular := o.Commits - 1 - compactions
	toSpread := max(o.Files-compactions, regular)

	m := &Manifest{Kind: "longlog", Options: map[string]any{
		"commits": o.Commits, "files": o.Files, "partitions": o.Partitions,
		"checkpointEvery": o.CheckpointEvery, "compactEvery": o.CompactEvery,
		"compactFiles": o.CompactFiles, "seed": o.Seed,
	}}
	m.Latest = int64(o.Commits - 1)
	m.Mid = int64(o.Commits / 2)
	regularSeen := 0
	for v := int64(0); v < int64(o.Commits); v++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		ts := baseTime.Add(time.Duration(v) * time.Minute).UnixMilli()
		var actions []protocol.Action
		op := "WRITE"
		switch {
		case v == 0:
			op = "CREATE TABLE"
			actions = append(actions, protocol.Action{Protocol: proto}, protocol.Action{Metadata: meta})
		case v%int64(o.CompactEvery) == 0:
			op = "OPTIMIZE"
			actions = append(actions, st.compact(r, regions, o.CompactFiles, ts)...)
		default:
			// Integer spreading: commit k of R adds floor((k+1)M/R) - floor(kM/R).
			n := (regularSeen+1)*toSpread/regular - regularSeen*toSpread/regular
			regularSeen++
			app := fmt.Sprintf("ingest-%d", v%3)
			txn := &protocol.Txn{AppID: app, Version: v, LastUpdated: &ts}
			st.txns[app] = txn
			actions = append(actions, protocol.Action{Txn: txn})
			for range n {
				a := newAdd(r, regions[r.IntN(len(regions))], ts)
				st.addFile(a, regions)
				actions = append(actions, protocol.Action{Add: a})
			}
		}
		for _, a := range actions {
			if a.Add != nil {
				m.Adds++
			}
			if a.Remove != nil {
				m.Removes++
			}
		}
		info := &protocol.CommitInfo{Timestamp: &ts, Operation: op,
			OperationParameters: map[string]any{"mode": "Append"}}
		if op == "OPTIMIZE" {
			info.OperationParameters = map[string]any{"targetSize": "104857600"}
		}
		actions = append([]protocol.Action{{CommitInfo: info}}, actions...)
		body, err := protocol.EncodeCommit(actions)
		if err != nil {
			return nil, err
		}
		// Plain writes: the generator is the only writer, and thousands of
		// fsyncs would only slow generation down.
		if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(protocol.CommitKey(v))), body, 0o644); err != nil {
			return nil, err
		}
		if v > 0 && v%int64(o.CheckpointEvery) == 0 {
			if err := st.checkpoint(ctx, store, v, proto, meta); err != nil {
				return nil, err
			}
			m.Checkpoints = append(m.Checkpoints, v)
		}
		if v == m.Mid {
			m.MidFiles = len(st.live)
		}
	}
	m.LatestFiles = len(st.live)
	return m, writeManifest(dir, m)
}

// compact replaces up to CompactFiles live files of one partition with one,
// as OPTIMIZE does: removes with dataChange=false and one add.
func (st *logState) compact(r *rand.Rand, regions []string, files int, ts int64) []protocol.Action {
	ri := r.IntN(len(regions))
	for range len(regions) {
		if len(st.byRegion[ri]) >= 2 {
			break
		}
		ri = (ri + 1) % len(regions)
	}
	paths := st.byRegion[ri]
	k := min(files, len(paths))
	victims := paths[:k]
	st.byRegion[ri] = paths[k:]
	var out []protocol.Action
	var total int64
	for _, p := range victims {
		a := st.live[p]
		delete(st.live, p)
		size := a.Size
		ext := true
		rm := &protocol.Remove{Path: p, DeletionTimestamp: &ts, DataChange: false, ExtendedFileMetadata: &ext,
			PartitionValues: a.PartitionValues, Size: &size}
		st.tombstones[p] = rm
		out = append(out, protocol.Action{Remove: rm})
		total += a.Size
	}
	add := newAdd(r, regions[ri], ts)
	add.Size = total
	add.DataChange = false
	// Compacted files are not compacted again, so they stay out of byRegion.
	st.live[add.Path] = add
	return append(out, protocol.Action{Add: add})
}

func (st *logState) addFile(a *protocol.Add, regions []string) {
	st.live[a.Path] = a
	for i, reg := range regions {
		if reg == a.PartitionValues["region"] {
			st.byRegion[i] = append(st.byRegion[i], a.Path)
		}
	}
}

// checkpoint writes the reconciled state at v as a classic checkpoint and
// points _last_checkpoint at it.
func (st *logState) checkpoint(ctx context.Context, store storage.Store, v int64, proto *protocol.Protocol, meta *protocol.Metadata) error {
	actions := []protocol.Action{{Protocol: proto}, {Metadata: meta}}
	for _, app := range sortedKeys(st.txns) {
		actions = append(actions, protocol.Action{Txn: st.txns[app]})
	}
	for _, p := range sortedKeys(st.live) {
		actions = append(actions, protocol.Action{Add: st.live[p]})
	}
	for _, p := range sortedKeys(st.tombstones) {
		actions = append(actions, protocol.Action{Remove: st.tombstones[p]})
	}
	// The table's own settings: stats as JSON strings, as Delta writes by default.
	opt, err := checkpoint.OptionsFor(meta)
	if err != nil {
		return err
	}
	lc, err := txn.PutCheckpoint(ctx, store, v, actions, opt)
	if err != nil {
		return fmt.Errorf("checkpoint at %d: %w", v, err)
	}
	body, err := checkpoint.EncodeLastCheckpoint(lc)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(store.(*storage.Local).Root(), filepath.FromSlash(protocol.LastCheckpointKey)), body, 0o644)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// newAdd makes an add action shaped like a streaming writer's: one Parquet
// file of 10k-1M rows with min/max/null counts for the data columns.
func newAdd(r *rand.Rand, region string, ts int64) *protocol.Add {
	rows := 10_000 + r.Int64N(990_000)
	idLo := r.Int64N(1 << 40)
	vLo := r.Float64() * 1000
	tsLo := ts - r.Int64N(3_600_000)
	nulls := r.Int64N(rows / 100)
	name1, name2 := "user_"+strconv.FormatInt(r.Int64N(1e6), 36), "user_"+strconv.FormatInt(1e6+r.Int64N(1e6), 36)
	stats := fmt.Sprintf(`{"numRecords":%d,"minValues":{"id":%d,"value":%g,"name":%q,"ts":%q},`+
		`"maxValues":{"id":%d,"value":%g,"name":%q,"ts":%q},"nullCount":{"id":0,"value":%d,"name":0,"ts":0}}`,
		rows, idLo, vLo, name1, statsTime(tsLo), idLo+rows, vLo+r.Float64()*1e6, name2, statsTime(ts), nulls)
	return &protocol.Add{
		Path:             fmt.Sprintf("region=%s/part-%05d-%s-c000.snappy.parquet", region, r.IntN(100000), uuidLike(r)),
		PartitionValues:  map[string]string{"region": region},
		Size:             1<<20 + r.Int64N(127<<20),
		ModificationTime: ts,
		DataChange:       true,
		Stats:            stats,
	}
}

// statsTime renders a timestamp as Delta statistics do (milliseconds, UTC).
func statsTime(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}
