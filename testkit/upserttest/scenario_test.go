package upserttest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/deltalite-go/deltalite/upsert"
)

// stepKind is the shape of one generated batch.
type stepKind int

const (
	// stepMixed updates and inserts in one to three partitions, with null
	// keys and now and then a new partition.
	stepMixed stepKind = iota
	// stepAllUpdate replaces every row of one partition and half of another.
	stepAllUpdate
	// stepAllInsert inserts new keys only, into an old and a new partition.
	stepAllInsert
	// stepMissingColumn is stepMixed without the "opt" column (null-filled).
	stepMissingColumn
	// stepEmpty has no rows.
	stepEmpty
	// stepDeletes is stepMixed plus rows deleting keys (existing ones,
	// absent ones and a null key).
	stepDeletes
	// stepMoves puts existing keys into other partitions (inserts there).
	stepMoves
	// stepAllPartitions updates and inserts in every partition.
	stepAllPartitions
)

var stepNames = map[stepKind]string{
	stepMixed: "mixed", stepAllUpdate: "all-update", stepAllInsert: "all-insert", stepMissingColumn: "missing-column",
	stepEmpty: "empty", stepDeletes: "deletes", stepMoves: "moves", stepAllPartitions: "all-partitions",
}

func (s stepKind) String() string { return stepNames[s] }

// defaultSteps cover every step kind once, with mixed batches around them.
var defaultSteps = []stepKind{stepMixed, stepAllUpdate, stepAllInsert, stepMissingColumn, stepEmpty, stepDeletes, stepMoves, stepAllPartitions, stepMixed}

// scenario is one parity sequence: a table, its initial rows and a
// sequence of generated batches.
type scenario struct {
	name string
	// dvs turns deletion vectors on in the engine's table before the
	// batches (delta-rs MERGE rewrites files in its own).
	dvs   bool
	keys  []column // primary key columns
	parts []column // partition columns (none: unpartitioned)
	// partValues are partition tuples; the first initParts hold the initial
	// rows, the others become new partitions.
	partValues [][]any
	initParts  int
	initRows   int
	appends    int // initial appends (files per partition)
	rowGroup   int // max row group rows of delta-rs's files (0: default)
	fileSize   int // delta-rs target file size (0: default)
	batchRows  int
	steps      []stepKind
	seed       uint64
	opts       upsert.Options // engine knobs; keys and deletes set by the harness
	// partKeys also lists the partition columns among the primary keys
	// (first), which changes nothing: the partition is in the identity.
	partKeys bool
	// noDeletes keeps DeleteColumn off even in a deletes step (the step
	// then only upserts).
	noDeletes bool
	// script, when set, replaces the generator: it returns the initial rows
	// and the batches (made with gen.fixed), in place of steps.
	script func(g *gen) (initial [][]any, batches []*batch)
}

const deleteColumn = "_delete"

// columns of the scenario's table: keys, partitions, then values.
func (sc *scenario) columns() (cols []column, keys, parts []int) {
	for _, k := range sc.keys {
		keys = append(keys, len(cols))
		cols = append(cols, k)
	}
	for _, p := range sc.parts {
		parts = append(parts, len(cols))
		cols = append(cols, p)
	}
	cols = append(cols, column{name: "v", kind: kInt64}, column{name: "s", kind: kString}, column{name: "opt", kind: kF64})
	return cols, keys, parts
}

func (sc *scenario) keyNames() []string {
	var out []string
	if sc.partKeys {
		out = sc.partNames()
	}
	for _, k := range sc.keys {
		out = append(out, k.name)
	}
	return out
}

func (sc *scenario) partNames() []string {
	var out []string
	for _, p := range sc.parts {
		out = append(out, p.name)
	}
	return out
}

// batch is one generated step.
type batch struct {
	kind    stepKind
	upserts [][]any
	deletes [][]any
	dropOpt bool // the source lacks the "opt" column
	reorder bool // the engine's source lists its columns in reverse order
	widen   bool // the engine's source has wider types than the table
	chunks  int  // record batches of the engine's source
	want    counts
	lines   []string // the model's content after the batch
	newPart []any    // the partition an all-insert batch opened
}

func (b *batch) rows() int { return len(b.upserts) + len(b.deletes) }

// gen generates a scenario's rows, applying every batch to a model.
type gen struct {
	r     *rand.Rand
	sc    *scenario
	cols  []column
	keys  []int
	parts []int
	m     *model
	step  int
	seq   int64
	// nextPart is the next partValues tuple to open as a new partition.
	nextPart int
}

const (
	colV = iota
	colS
	colOpt
)

func newGen(sc *scenario) *gen {
	cols, keys, parts := sc.columns()
	if len(parts) == 0 {
		sc.partValues = [][]any{{}}
		sc.initParts = 1
	}
	return &gen{
		r:     rand.New(rand.NewPCG(sc.seed, 0x5eed)),
		sc:    sc,
		cols:  cols,
		keys:  keys,
		parts: parts,
		m:     newModel(cols, keys, parts),
		nextPart: func() int {
			if len(parts) == 0 {
				return 1
			}
			return sc.initParts
		}(),
	}
}

func (g *gen) valueCol(which int) int { return len(g.keys) + len(g.parts) + which }

// keyTuple is the i-th key tuple; composite keys combine components so
// that tuples share single components.
func (g *gen) keyTuple(i int) []any {
	if len(g.keys) == 1 {
		return []any{g.cols[g.keys[0]].kind.keyValue(i)}
	}
	out := make([]any, len(g.keys))
	for j, ki := range g.keys {
		k := g.cols[ki].kind
		var idx int
		switch j {
		case 0:
			idx = i / 4
		case 1:
			idx = i % 4
		default:
			idx = (i/4 + (i%4)*13) % 97
		}
		out[j] = k.keyValue(idx % k.domain())
	}
	return out
}

func (g *gen) keyDomain() int {
	if len(g.keys) == 1 {
		return g.cols[g.keys[0]].kind.domain()
	}
	return 4 * min(g.cols[g.keys[0]].kind.domain(), 1<<20)
}

// row makes a row of partition tuple p with key tuple key (nil: a null key
// with at least one null component).
func (g *gen) row(p []any, key []any) []any {
	row := make([]any, len(g.cols))
	if key == nil {
		key = g.keyTuple(g.r.IntN(g.keyDomain()))
		nulls := 0
		for j := range key {
			if g.r.IntN(2) == 0 {
				key[j] = nil
				nulls++
			}
		}
		if nulls == 0 {
			key[g.r.IntN(len(key))] = nil
		}
	}
	for j, ki := range g.keys {
		row[ki] = key[j]
	}
	for j, pi := range g.parts {
		row[pi] = p[j]
	}
	g.seq++
	row[g.valueCol(colV)] = int64(g.step)*1_000_000 + g.seq
	row[g.valueCol(colS)] = randomValue(g.r, kString)
	row[g.valueCol(colOpt)] = randomValue(g.r, kF64)
	return row
}

// keyIndex picks a key index: half the time from a small pool shared by
// every partition (edge values live at the low indices), else anywhere.
func (g *gen) keyIndex() int {
	d := g.keyDomain()
	if g.r.IntN(2) == 0 {
		return g.r.IntN(min(d, max(2*g.sc.initRows, 16)))
	}
	return g.r.IntN(d)
}

// batchState tracks the identities a batch already uses.
type batchState struct {
	g    *gen
	used map[string]bool
	rows [][]any
}

func (g *gen) newBatchState() *batchState { return &batchState{g: g, used: map[string]bool{}} }

// add adds row unless its identity is taken (null keys always go in).
func (b *batchState) add(row []any) bool {
	if id, ok := b.g.m.identity(row); ok {
		if b.used[id] {
			return false
		}
		b.used[id] = true
	}
	b.rows = append(b.rows, row)
	return true
}

// insert adds a row with a key absent from partition p (in the table and
// in the batch); false when none could be found.
func (b *batchState) insert(p []any) bool {
	g := b.g
	for try := 0; try < 64; try++ {
		i := g.keyIndex()
		if try > 48 {
			i = g.r.IntN(g.keyDomain())
		}
		row := g.row(p, g.keyTuple(i))
		id, _ := g.m.identity(row)
		if _, exists := g.m.rows[id]; exists || b.used[id] {
			continue
		}
		return b.add(row)
	}
	if d := g.keyDomain(); d <= 1<<12 { // small domains: scan for a free key
		for i := range d {
			row := g.row(p, g.keyTuple(i))
			id, _ := g.m.identity(row)
			if _, exists := g.m.rows[id]; !exists && !b.used[id] {
				return b.add(row)
			}
		}
	}
	return false
}

// update adds a new version of an existing row.
func (b *batchState) update(old []any) bool {
	g := b.g
	key := make([]any, len(g.keys))
	for j, ki := range g.keys {
		key[j] = old[ki]
	}
	p := make([]any, len(g.parts))
	for j, pi := range g.parts {
		p[j] = old[pi]
	}
	return b.add(g.row(p, key))
}

// existing returns the keyed rows of the table by partition, in a
// deterministic order.
func (g *gen) existing() (map[string][][]any, []string) {
	ids := make([]string, 0, len(g.m.rows))
	for id := range g.m.rows {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	by := map[string][][]any{}
	for _, id := range ids {
		row := g.m.rows[id]
		p := g.m.partition(row)
		by[p] = append(by[p], row)
	}
	parts := make([]string, 0, len(by))
	for p := range by {
		parts = append(parts, p)
	}
	sort.Strings(parts)
	return by, parts
}

// partKey is the canonical partition of tuple p.
func (g *gen) partKey(p []any) string {
	row := make([]any, len(g.cols))
	for j, pi := range g.parts {
		row[pi] = p[j]
	}
	return g.m.partition(row)
}

// partTuple returns the tuple of a canonical partition.
func (g *gen) partTuple(p string) []any {
	for _, t := range g.sc.partValues {
		if g.partKey(t) == p {
			return t
		}
	}
	panic("unknown partition " + p)
}

// openPartitions are the tuples that hold or held rows.
func (g *gen) openPartitions() [][]any { return g.sc.partValues[:g.nextPart] }

// newPartition opens the next partition tuple, or returns an open one
// when every tuple is in use.
func (g *gen) newPartition() []any {
	if g.nextPart < len(g.sc.partValues) {
		g.nextPart++
		return g.sc.partValues[g.nextPart-1]
	}
	open := g.openPartitions()
	return open[g.r.IntN(len(open))]
}

// initial generates the initial rows.
func (g *gen) initial() [][]any {
	b := g.newBatchState()
	parts := g.sc.partValues[:g.sc.initParts]
	for i := range g.sc.initRows {
		p := parts[i%len(parts)]
		if g.r.IntN(40) == 0 {
			b.add(g.row(p, nil))
			continue
		}
		b.insert(p)
	}
	rows := b.rows
	g.m.apply(rows, nil)
	return rows
}

// next generates the batch of step kind k and applies it to the model.
func (g *gen) next(k stepKind) *batch {
	g.step++
	n := g.sc.batchRows
	bt := &batch{kind: k, chunks: 1 + g.r.IntN(3), reorder: g.r.IntN(3) == 0, widen: g.r.IntN(3) == 0}
	by, parts := g.existing()
	b := g.newBatchState()
	pick := func() []any {
		if len(parts) == 0 || g.r.IntN(8) == 0 {
			return g.newPartition()
		}
		return g.partTuple(parts[g.r.IntN(len(parts))])
	}
	mixed := func(rows int) {
		targets := [][]any{pick()}
		for range g.r.IntN(3) {
			targets = append(targets, pick())
		}
		for i := range rows {
			p := targets[i%len(targets)]
			old := by[g.partKey(p)]
			switch r := g.r.IntN(10); {
			case r < 4 && len(old) > 0:
				b.update(old[g.r.IntN(len(old))])
			default:
				b.insert(p)
			}
		}
		for range 1 + g.r.IntN(2) {
			b.add(g.row(targets[0], nil))
		}
	}
	switch k {
	case stepMixed:
		mixed(n)
	case stepMissingColumn:
		mixed(n)
		bt.dropOpt = true
	case stepAllUpdate:
		if len(parts) > 0 {
			first := g.r.IntN(len(parts))
			for _, row := range by[parts[first]] {
				b.update(row)
			}
			if len(parts) > 1 {
				other := by[parts[(first+1)%len(parts)]]
				for _, row := range other[:len(other)/2] {
					b.update(row)
				}
			}
		}
	case stepAllInsert:
		for i := range n {
			p := g.sc.partValues[0]
			if i%2 == 1 {
				p = g.newPartitionOnce(bt)
			}
			b.insert(p)
		}
	case stepEmpty:
	case stepDeletes:
		mixed(n / 2)
		d := g.newBatchState()
		d.used = b.used
		for _, p := range parts {
			old := by[p]
			for _, row := range old {
				if g.r.IntN(4) == 0 {
					d.update(row)
				}
			}
		}
		for range 2 {
			d.insert(g.openPartitions()[0])
		}
		d.add(g.row(g.openPartitions()[0], nil))
		bt.deletes = d.rows
	case stepMoves:
		if len(parts) > 1 {
			for i := range n {
				from := parts[g.r.IntN(len(parts))]
				to := g.partTuple(parts[(slices.Index(parts, from)+1+i%(len(parts)-1))%len(parts)])
				old := by[from]
				src := old[g.r.IntN(len(old))]
				key := make([]any, len(g.keys))
				for j, ki := range g.keys {
					key[j] = src[ki]
				}
				row := g.row(to, key)
				if id, _ := g.m.identity(row); g.m.rows[id] == nil {
					b.add(row)
				}
			}
		}
		mixed(n / 4)
	case stepAllPartitions:
		for _, p := range parts {
			old := by[p]
			for range max(n/len(parts), 2) {
				if g.r.IntN(2) == 0 {
					b.update(old[g.r.IntN(len(old))])
				} else {
					b.insert(g.partTuple(p))
				}
			}
		}
	default:
		panic(fmt.Sprintf("step %d", k))
	}
	bt.upserts = b.rows
	if bt.dropOpt {
		for _, row := range bt.upserts {
			row[g.valueCol(colOpt)] = nil
		}
	}
	g.r.Shuffle(len(bt.upserts), func(i, j int) { bt.upserts[i], bt.upserts[j] = bt.upserts[j], bt.upserts[i] })
	bt.want = g.m.apply(bt.upserts, bt.deletes)
	bt.lines = g.m.lines()
	return bt
}

// newPartitionOnce opens one new partition per batch.
func (g *gen) newPartitionOnce(bt *batch) []any {
	if bt.newPart == nil {
		bt.newPart = g.newPartition()
	}
	return bt.newPart
}

// fixed makes a scripted batch and applies it to the model; the initial
// rows of a script go through fixed too (as its first, unused, batch).
func (g *gen) fixed(upserts, deletes [][]any) *batch {
	g.step++
	bt := &batch{kind: stepMixed, chunks: 1, upserts: upserts, deletes: deletes}
	bt.want = g.m.apply(upserts, deletes)
	bt.lines = g.m.lines()
	return bt
}

// fixedRow is a row of a scripted scenario: key values, partition values,
// then v.
func (g *gen) fixedRow(vals ...any) []any {
	row := make([]any, len(g.cols))
	copy(row, vals[:len(g.keys)+len(g.parts)])
	row[g.valueCol(colV)] = vals[len(vals)-1]
	return row
}

// splitRows splits rows into n appends so that each append holds rows of
// every partition (one file per partition and append).
func splitRows(g *gen, rows [][]any, n int) [][][]any {
	n = max(n, 1)
	chunks := make([][][]any, n)
	seen := map[string]int{}
	for _, row := range rows {
		p := g.m.partition(row)
		chunks[seen[p]%n] = append(chunks[seen[p]%n], row)
		seen[p]++
	}
	return chunks
}
