package gen

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite/internal/datafile"
	"github.com/deltalite-go/deltalite/internal/txn"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// SmallFilesOptions shape the maintenance benchmark's tables: many small
// files, spread evenly over the partitions, that OPTIMIZE compacts or
// z-orders and whose removal VACUUM then cleans up.
type SmallFilesOptions struct {
	Files      int    // data files in all
	Partitions int    // values of the partition column part (p00, p01, ...)
	Bytes      int64  // about the table's size on disk
	Seed       uint64 // makes the table reproducible
}

// smallFilesSchema: id is unique (row number), x and y are uniform random
// (the z-order columns), cat comes from a 50-word vocabulary and note is 24
// random hex digits, so that the files compress as real data does.
const smallFilesSchema = `{"type":"struct","fields":[` +
	`{"name":"id","type":"long","nullable":true,"metadata":{}},` +
	`{"name":"x","type":"long","nullable":true,"metadata":{}},` +
	`{"name":"y","type":"double","nullable":true,"metadata":{}},` +
	`{"name":"cat","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"note","type":"string","nullable":true,"metadata":{}},` +
	`{"name":"part","type":"string","nullable":true,"metadata":{}}]}`

// smallFileRowBytes is a first guess of a row's size in the files, which
// the generator corrects after the first file.
const smallFileRowBytes = 55

// SmallFiles writes the table into dir (which must not hold a table):
// Files Parquet files of about Bytes/Files each, file i in partition
// i mod Partitions, added with statistics by one commit.
func SmallFiles(ctx context.Context, dir string, o SmallFilesOptions) (*Manifest, error) {
	if o.Files < 1 || o.Partitions < 1 || o.Partitions > o.Files || o.Bytes < int64(o.Files)*1024 {
		return nil, fmt.Errorf("small files: invalid options %+v: want at least one file per partition and 1 KiB per file", o)
	}
	if _, err := os.Stat(filepath.Join(dir, "_delta_log")); err == nil {
		return nil, fmt.Errorf("small files: %s already holds a table", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	st, err := storage.NewLocal(dir)
	if err != nil {
		return nil, err
	}
	sc, err := schema.Parse(smallFilesSchema)
	if err != nil {
		return nil, err
	}
	as, err := schema.ToArrow(sc, schema.ArrowOptions{})
	if err != nil {
		return nil, err
	}
	perFile := o.Bytes / int64(o.Files)
	rowBytes := float64(smallFileRowBytes)
	var (
		actions []protocol.Action
		rows    int64
		m       = &Manifest{Kind: "smallfiles", Options: map[string]any{
			"files": o.Files, "partitions": o.Partitions, "bytes": o.Bytes, "seed": o.Seed}}
	)
	for i := range o.Files {
		n := max(int64(float64(perFile)/rowBytes), 1)
		a, err := writeSmallFile(ctx, st, sc, as, o, i, rows, n)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			rowBytes = float64(a.Size) / float64(n)
		}
		actions = append(actions, protocol.Action{Add: a})
		rows += n
		m.Bytes += a.Size
	}
	p := protocol.Protocol{MinReaderVersion: 1, MinWriterVersion: 2}
	md := &protocol.Metadata{ID: "0b7d2b4c-2f64-4c2e-8d07-bench0small0", Format: protocol.Format{Provider: "parquet", Options: map[string]string{}},
		SchemaString: smallFilesSchema, PartitionColumns: []string{"part"}, Configuration: map[string]string{}}
	res, err := txn.Create(ctx, st, &p, md, actions, txn.Operation{Name: txn.OpWrite, Parameters: map[string]any{"mode": "Append"}}, txn.Options{})
	if err != nil {
		return nil, err
	}
	m.Latest, m.LatestFiles = res.Version, o.Files
	m.Mid, m.MidFiles = res.Version, o.Files
	m.Adds, m.Rows = o.Files, rows
	for _, f := range sc.Fields {
		m.Columns = append(m.Columns, f.Name)
	}
	return m, writeManifest(dir, m)
}

// writeSmallFile writes rows [first, first+n) as file i, in its partition.
func writeSmallFile(ctx context.Context, st storage.Store, sc *schema.Struct, as *arrow.Schema, o SmallFilesOptions, i int, first, n int64) (*protocol.Add, error) {
	r := rand.New(rand.NewPCG(o.Seed, uint64(i)+1))
	b := array.NewRecordBuilder(memory.DefaultAllocator, as)
	defer b.Release()
	b.Reserve(int(n))
	part := fmt.Sprintf("p%02d", i%o.Partitions)
	const hex = "0123456789abcdef"
	var note [24]byte
	for k := range n {
		b.Field(0).(*array.Int64Builder).Append(first + k)
		b.Field(1).(*array.Int64Builder).Append(r.Int64N(1_000_000_000))
		b.Field(2).(*array.Float64Builder).Append(r.Float64())
		b.Field(3).(*array.StringBuilder).Append(smallFilesWords[r.IntN(len(smallFilesWords))])
		for j := range note {
			note[j] = hex[r.IntN(16)]
		}
		b.Field(4).(*array.StringBuilder).Append(string(note[:]))
		b.Field(5).(*array.StringBuilder).Append(part)
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	w, err := datafile.NewWriter(ctx, st, datafile.Options{Schema: sc, PartitionColumns: []string{"part"},
		Properties: protocol.Properties{}, TargetFileSize: 1 << 40, EncodeWorkers: 1, DataChange: true})
	if err != nil {
		return nil, err
	}
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	adds, err := w.Close()
	if err != nil {
		return nil, err
	}
	if len(adds) != 1 {
		return nil, fmt.Errorf("small files: file %d came out as %d files", i, len(adds))
	}
	return adds[0], nil
}

// smallFilesWords is the vocabulary of the cat column.
var smallFilesWords = func() []string {
	w := make([]string, 50)
	for i := range w {
		w[i] = fmt.Sprintf("category-%02d", i)
	}
	return w
}()
