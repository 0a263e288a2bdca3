package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/protocol"
)

// WideOptions shape the wide table.
type WideOptions struct {
	Files    int    // data files
	Rows     int    // rows per file
	Columns  int    // columns, cycling int64, float64, string, timestamp, bool
	RowGroup int    // rows per Parquet row group
	Workers  int    // files written in parallel
	Seed     uint64 // makes the table reproducible
}

// DefaultWide is the shape the harness uses unless told otherwise.
var DefaultWide = WideOptions{Files: 32, Rows: 100_000, Columns: 100, RowGroup: 100_000, Workers: 2, Seed: 1}

// statsColumns is how many leading columns get min/max statistics, as
// delta.dataSkippingNumIndexedCols defaults to.
const statsColumns = 32

type colKind int

const (
	kInt colKind = iota
	kFloat
	kString
	kTimestamp
	kBool
	numKinds
)

var kindNames = [...]string{"long", "double", "string", "timestamp", "boolean"}

var tsType = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

func wideColumns(n int) ([]arrow.Field, []deltaField) {
	af := make([]arrow.Field, n)
	df := make([]deltaField, n)
	for i := range n {
		k := colKind(i % int(numKinds))
		name := fmt.Sprintf("c%03d_%s", i, kindNames[k])
		var t arrow.DataType
		switch k {
		case kInt:
			t = arrow.PrimitiveTypes.Int64
		case kFloat:
			t = arrow.PrimitiveTypes.Float64
		case kString:
			t = arrow.BinaryTypes.String
		case kTimestamp:
			t = tsType
		case kBool:
			t = arrow.FixedWidthTypes.Boolean
		}
		af[i] = arrow.Field{Name: name, Type: t, Nullable: true}
		df[i] = deltaField{name, kindNames[k], true, map[string]any{}}
	}
	return af, df
}

// Wide writes the wide table into dir (which must not hold a table): Files
// Parquet files and one commit that adds them with statistics.
func Wide(ctx context.Context, dir string, o WideOptions) (*Manifest, error) {
	if o.Files < 1 || o.Rows < 1 || o.Columns < 1 || o.RowGroup < 1 {
		return nil, fmt.Errorf("wide: invalid options %+v", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err == nil {
		return nil, fmt.Errorf("wide: %s already holds a table", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, "_delta_log"), 0o755); err != nil {
		return nil, err
	}
	af, df := wideColumns(o.Columns)
	sc := arrow.NewSchema(af, nil)
	ts := baseTime.UnixMilli()

	adds := make([]*protocol.Add, o.Files)
	errs := make([]error, o.Files)
	sem := make(chan struct{}, max(o.Workers, 1))
	var wg sync.WaitGroup
	for i := range o.Files {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			if err := ctx.Err(); err != nil {
				errs[i] = err
				return
			}
			adds[i], errs[i] = writeWideFile(dir, sc, o, i, ts)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}

	created := ts
	actions := []protocol.Action{
		{CommitInfo: &protocol.CommitInfo{Timestamp: &ts, Operation: "WRITE", OperationParameters: map[string]any{"mode": "Append"}}},
		{Protocol: &protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}},
		{Metadata: &protocol.Metadata{
			ID:               "0b7d2b4c-2f64-4c2e-8d07-bench00wide00",
			Format:           protocol.Format{Provider: "parquet", Options: map[string]string{}},
			SchemaString:     schemaString(df),
			PartitionColumns: []string{},
			Configuration:    map[string]string{},
			CreatedTime:      &created,
		}},
	}
	m := &Manifest{Kind: "wide", Options: map[string]any{
		"files": o.Files, "rows": o.Rows, "columns": o.Columns, "rowGroup": o.RowGroup, "seed": o.Seed,
	}}
	for _, a := range adds {
		actions = append(actions, protocol.Action{Add: a})
		m.Bytes += a.Size
	}
	body, err := protocol.EncodeCommit(actions)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(protocol.CommitKey(0))), body, 0o644); err != nil {
		return nil, err
	}
	m.Latest, m.LatestFiles = 0, o.Files
	m.Mid, m.MidFiles = 0, o.Files
	m.Adds = o.Files
	m.Rows = int64(o.Files) * int64(o.Rows)
	for _, f := range af {
		m.Columns = append(m.Columns, f.Name)
	}
	return m, writeManifest(dir, m)
}

// colStats accumulates the Delta statistics of one column, typed so that
// the per-value update does not allocate.
type colStats struct {
	nulls      int64
	seen       bool
	imin, imax int64
	fmin, fmax float64
	smin, smax string
}

func writeWideFile(dir string, sc *arrow.Schema, o WideOptions, idx int, ts int64) (*protocol.Add, error) {
	r := rand.New(rand.NewPCG(o.Seed, uint64(idx)+1))
	mem := memory.NewGoAllocator()
	rec, stats := wideBatch(mem, sc, r, idx, o.Rows)
	defer rec.Release()

	name := fmt.Sprintf("part-%05d-%s-c000.snappy.parquet", idx, uuidLike(r))
	path := filepath.Join(dir, name)
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	props := parquet.NewWriterProperties(
		parquet.WithCompression(compress.Codecs.Snappy),
		parquet.WithMaxRowGroupLength(int64(o.RowGroup)),
		parquet.WithDictionaryDefault(true),
		parquet.WithAllocator(mem),
	)
	w, err := pqarrow.NewFileWriter(sc, f, props, pqarrow.NewArrowWriterProperties(pqarrow.WithAllocator(mem)))
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := w.Close(); err != nil { // closes f
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	return &protocol.Add{
		Path:             name,
		PartitionValues:  map[string]string{},
		Size:             fi.Size(),
		ModificationTime: ts,
		DataChange:       true,
		Stats:            statsJSON(sc, stats, int64(o.Rows)),
	}, nil
}

// wideBatch makes one file's rows. Values are shaped for realistic
// compression: ids ascending, measures random, half the string columns from
// a small vocabulary and half nearly unique, a few percent nulls.
func wideBatch(mem memory.Allocator, sc *arrow.Schema, r *rand.Rand, idx, rows int) (arrow.RecordBatch, []colStats) {
	b := array.NewRecordBuilder(mem, sc)
	defer b.Release()
	stats := make([]colStats, sc.NumFields())
	vocab := make([]string, 500)
	for i := range vocab {
		vocab[i] = "category_" + strconv.FormatInt(r.Int64N(1<<30), 36)
	}
	base := baseTime.UnixMicro() + int64(idx)*int64(rows)*1000
	for c := range sc.NumFields() {
		k := colKind(c % int(numKinds))
		nullPct := 0
		if c%7 == 3 {
			nullPct = 5
		}
		st := &stats[c]
		fb := b.Field(c)
		fb.Reserve(rows)
		for i := range rows {
			if nullPct > 0 && r.IntN(100) < nullPct {
				fb.AppendNull()
				st.nulls++
				continue
			}
			switch k {
			case kInt:
				var v int64
				if c == 0 {
					v = int64(idx)*int64(rows) + int64(i)
				} else {
					v = r.Int64N(1_000_000) * int64(c)
				}
				fb.(*array.Int64Builder).UnsafeAppend(v)
				st.int(v)
			case kFloat:
				v := math.Round(r.NormFloat64()*1e6) / 100
				fb.(*array.Float64Builder).UnsafeAppend(v)
				st.float(v)
			case kString:
				var v string
				if (c/int(numKinds))%2 == 0 {
					v = vocab[r.IntN(len(vocab))]
				} else {
					v = "id-" + strconv.FormatUint(r.Uint64(), 36)
				}
				fb.(*array.StringBuilder).Append(v)
				st.str(v)
			case kTimestamp:
				// Whole milliseconds, so millisecond statistics are exact.
				v := base + int64(i)*1000 + r.Int64N(1000)*1000*int64(c%3)
				fb.(*array.TimestampBuilder).UnsafeAppend(arrow.Timestamp(v))
				st.int(v)
			case kBool:
				fb.(*array.BooleanBuilder).UnsafeAppend(r.IntN(2) == 1)
			}
		}
	}
	return b.NewRecordBatch(), stats
}

func (s *colStats) int(v int64) {
	if !s.seen || v < s.imin {
		s.imin = v
	}
	if !s.seen || v > s.imax {
		s.imax = v
	}
	s.seen = true
}

func (s *colStats) float(v float64) {
	if !s.seen || v < s.fmin {
		s.fmin = v
	}
	if !s.seen || v > s.fmax {
		s.fmax = v
	}
	s.seen = true
}

func (s *colStats) str(v string) {
	if !s.seen || v < s.smin {
		s.smin = v
	}
	if !s.seen || v > s.smax {
		s.smax = v
	}
	s.seen = true
}

// bounds returns the JSON values of min and max for a column of kind k.
func (s *colStats) bounds(k colKind) (any, any) {
	switch k {
	case kInt:
		return s.imin, s.imax
	case kFloat:
		return s.fmin, s.fmax
	case kString:
		return s.smin, s.smax
	case kTimestamp:
		return statsTime(s.imin / 1000), statsTime(s.imax / 1000)
	}
	return nil, nil
}

func statsJSON(sc *arrow.Schema, stats []colStats, rows int64) string {
	mins, maxs, nulls := map[string]any{}, map[string]any{}, map[string]any{}
	for c, f := range sc.Fields() {
		nulls[f.Name] = stats[c].nulls
		if c >= statsColumns || !stats[c].seen {
			continue
		}
		mn, mx := stats[c].bounds(colKind(c % int(numKinds)))
		if mn == nil {
			continue // booleans carry no min/max
		}
		mins[f.Name], maxs[f.Name] = mn, mx
	}
	b, err := json.Marshal(map[string]any{"numRecords": rows, "minValues": mins, "maxValues": maxs, "nullCount": nulls})
	if err != nil {
		panic(err) // only numbers and strings
	}
	return string(b)
}
