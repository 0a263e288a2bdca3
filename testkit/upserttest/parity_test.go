package upserttest

import (
	"fmt"
	"hash/fnv"
	"math"
	"os"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/deltalite-go/deltalite/upsert"
)

func days(n int) [][]any {
	out := make([][]any, n)
	for i := range out {
		out[i] = []any{fmt.Sprintf("2026-07-%02d", 20+i)}
	}
	return out
}

// hostile are partition values that need escaping in paths and SQL.
var hostile = []string{
	"../x", "a/b", "50%", "emoji 🎉", "o'brien", "sp ace", "k=v", "#?&", `back\slash`, "üñîçødé", "a,b", `quote"dq`,
}

// seedOf derives a scenario's seed from its name, and from
// DELTALITE_PARITY_SEED when set (to explore other sequences).
func seedOf(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	h.Write([]byte(os.Getenv("DELTALITE_PARITY_SEED")))
	return h.Sum64()
}

// knobs vary the engine's options from one scenario to the next: every
// prune strategy, small files, small read batches, one or several
// partitions and files at a time.
func knobs(i int) upsert.Options {
	o := upsert.Options{PruneStrategy: []string{upsert.PruneProbe, upsert.PruneStats, upsert.PruneNone}[i%3]}
	switch i % 4 {
	case 0:
		o.TargetFileSize = 4 << 10
		o.ReadBatchSize = 7
	case 1:
		o.MaxParallelPartitions = 1
		o.MaxParallelFiles = 1
		o.MaxBufferedBytes = 1 << 20
	case 2:
		o.TargetFileSize = 32 << 10
		o.MaxParallelPartitions = 3
		o.ProbeConcurrency = 1
	}
	return o
}

// base is a scenario with the given keys, partitioned by day, at the size
// the test mode allows.
func base(name string, keys ...column) scenario {
	sc := scenario{
		name:       name,
		keys:       keys,
		parts:      []column{{name: "day", kind: kString}},
		partValues: days(6),
		initParts:  3,
		initRows:   240,
		appends:    3,
		rowGroup:   16,
		batchRows:  40,
		steps:      defaultSteps,
		seed:       seedOf(name),
	}
	if testing.Short() {
		sc.initRows = 60
		sc.batchRows = 12
		sc.steps = []stepKind{stepMixed, stepAllUpdate, stepMissingColumn, stepEmpty, stepDeletes, stepMoves}
	}
	return sc
}

// parityScenarios are the sequences of the parity suite.
func parityScenarios() []scenario {
	var out []scenario
	// Every key type of the matrix, alone.
	for _, k := range []kind{kInt8, kInt16, kInt32, kInt64, kString, kBinary, kDate, kTS, kTSNTZ, kDec10, kDec38, kF32, kF64, kBool} {
		sc := base("key_"+k.String(), column{name: "k", kind: k})
		if k == kBool || k == kInt8 {
			sc.initRows = min(sc.initRows, 60)
		}
		out = append(out, sc)
	}
	out = append(out, base("key_dictionary_string", column{name: "k", kind: kString, dict: true}))
	// Composite keys, nulls in any component.
	out = append(out,
		base("composite_string_int64", column{name: "id", kind: kString}, column{name: "tenant", kind: kInt64}),
		base("composite_string_int64_timestamp", column{name: "id", kind: kString, dict: true},
			column{name: "tenant", kind: kInt64}, column{name: "at", kind: kTS}),
		base("composite_date_decimal_binary", column{name: "d", kind: kDate}, column{name: "amount", kind: kDec10},
			column{name: "b", kind: kBinary}),
	)
	// Unpartitioned.
	un := base("unpartitioned", column{name: "id", kind: kInt64})
	un.parts = nil
	out = append(out, un)
	// Hostile partition values.
	h := base("hostile_partitions", column{name: "id", kind: kString})
	h.partValues = nil
	for _, v := range hostile {
		h.partValues = append(h.partValues, []any{v})
	}
	h.initParts = 8
	h.parts[0].dict = true // the engine's source has dictionary-encoded partition values
	out = append(out, h)
	// The partition column among the primary keys.
	pk := base("partition_in_primary_key", column{name: "id", kind: kInt32})
	pk.partKeys = true
	out = append(out, pk)
	// Two partition columns of other types than strings.
	two := base("two_partition_columns", column{name: "id", kind: kInt64})
	two.parts = []column{{name: "region", kind: kString}, {name: "bucket", kind: kInt32}}
	two.partValues = nil
	for i, r := range []string{"eu", "us/east", "ap 1", "eu"} {
		for b := range 2 {
			two.partValues = append(two.partValues, []any{r, int64(i*10 + b - 5)})
		}
	}
	two.partValues = two.partValues[:7]
	two.initParts = 4
	out = append(out, two)
	dp := base("date_partition", column{name: "id", kind: kString})
	dp.parts = []column{{name: "day", kind: kDate}}
	dp.partValues = [][]any{{int64(20650)}, {int64(-3)}, {int64(0)}, {int64(20651)}, {int64(10)}}
	out = append(out, dp)
	// Partition columns whose values the log stores as text in a
	// type-specific form: timestamps (with and without zone), booleans,
	// decimals, small integers. (Not negative decimals: delta-rs writes
	// -3703.71 as "-3703.-71".)
	typed := base("typed_partitions", column{name: "id", kind: kInt64})
	typed.parts = []column{{name: "at", kind: kTS}, {name: "flag", kind: kBool}}
	typed.partValues = [][]any{{int64(1_784_000_000_123_456), true}, {int64(0), false}, {int64(-86_400_000_000), true},
		{int64(1_784_000_000_000_000), false}, {int64(1), true}}
	out = append(out, typed)
	typed2 := base("typed_partitions_ntz_decimal", column{name: "id", kind: kString})
	typed2.parts = []column{{name: "local", kind: kTSNTZ}, {name: "amount", kind: kDec10}, {name: "small", kind: kInt8}}
	typed2.partValues = [][]any{
		{int64(1_784_000_000_500_000), kDec10.keyValue(2), int64(-128)},
		{int64(-1), kDec10.keyValue(0), int64(0)},
		{int64(1_784_000_000_000_000), kDec10.keyValue(4), int64(127)},
		{int64(86_400_000_000), kDec10.keyValue(6), int64(5)},
	}
	out = append(out, typed2)
	// Many files and many row groups per partition.
	many := base("many_files_and_row_groups", column{name: "id", kind: kString})
	many.initParts = 2
	many.initRows = 2400
	many.appends = 10
	many.rowGroup = 50
	many.fileSize = 8 << 10
	many.batchRows = 120
	if testing.Short() {
		many.initRows = 600
		many.batchRows = 40
	}
	out = append(out, many)
	for i := range out {
		out[i].opts = knobs(i)
	}
	if testing.Short() {
		out = slices.DeleteFunc(out, func(sc scenario) bool { return !shortSet[sc.name] })
	}
	return out
}

// shortSet are the scenarios of -short mode.
var shortSet = map[string]bool{
	"key_string": true, "key_float64": true, "key_timestamp": true, "key_decimal38_10": true,
	"composite_string_int64_timestamp": true, "unpartitioned": true, "hostile_partitions": true,
	"two_partition_columns": true, "many_files_and_row_groups": true,
}

// TestParity runs every scenario through delta-rs MERGE and the engine and
// compares the content after every batch (and always with the model).
func TestParity(t *testing.T) {
	for _, sc := range parityScenarios() {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runParity(t, sc)
		})
	}
}

// TestParityDeletionVectors runs the -short scenarios with deletion
// vectors on in the engine's table: the same content as the model and
// delta-rs MERGE after every batch, no row copied.
func TestParityDeletionVectors(t *testing.T) {
	var dvs atomic.Int64
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range parityScenarios() {
			if !shortSet[sc.name] {
				continue
			}
			sc.dvs = true
			t.Run(sc.name, func(t *testing.T) {
				t.Parallel()
				dvs.Add(int64(runParity(t, sc).deletionVectors))
			})
		}
	})
	if !t.Failed() && dvs.Load() == 0 {
		t.Error("deletion vectors on, and no upsert wrote one")
	}
}

// TestParitySignedZero: MERGE's equality join matches -0.0 with 0.0 (and
// NaN with NaN), in float32 and float64 keys alike.
func TestParitySignedZero(t *testing.T) {
	negZero := math.Copysign(0, -1)
	for _, k := range []kind{kF32, kF64} {
		sc := base("signed_zero_"+k.String(), column{name: "k", kind: k})
		sc.script = func(g *gen) ([][]any, []*batch) {
			init := g.fixed([][]any{
				g.fixedRow(0.0, "2026-07-20", int64(1)),
				g.fixedRow(1.5, "2026-07-20", int64(2)),
				g.fixedRow(math.NaN(), "2026-07-20", int64(3)),
				g.fixedRow(negZero, "2026-07-21", int64(4)),
			}, nil)
			b1 := g.fixed([][]any{
				g.fixedRow(negZero, "2026-07-20", int64(10)),
				g.fixedRow(0.0, "2026-07-21", int64(11)),
				g.fixedRow(math.NaN(), "2026-07-20", int64(12)),
			}, nil)
			b2 := g.fixed([][]any{
				g.fixedRow(0.0, "2026-07-20", int64(20)),
			}, nil)
			return init.upserts, []*batch{b1, b2}
		}
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			runParity(t, sc)
		})
	}
}
