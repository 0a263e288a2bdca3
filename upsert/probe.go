package upsert

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	pqschema "github.com/apache/arrow-go/v18/parquet/schema"

	"github.com/deltalite-go/deltalite/internal/dv"
	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/limits"
	"github.com/deltalite-go/deltalite/scan"
	"github.com/deltalite-go/deltalite/schema"
	"github.com/deltalite-go/deltalite/storage"
)

// errFallback sends a file the narrow reader cannot read exactly (INT96,
// nested or re-typed key columns, unresolvable paths) to scan.
var errFallback = errors.New("read the file through scan")

// minProbeBatchBytes is the smallest reservation of a probe batch.
const minProbeBatchBytes = 16 << 10

// probeFile reads only the key columns of a file, row group by row group,
// and stops at the first row whose key is a source key. Row groups whose
// Parquet statistics or bloom filters rule out every source key are not
// read at all.
func (r *run) probeFile(ctx context.Context, p *part, fw *fileWork) error {
	fw.probed = true
	if fw.key != "" {
		err := r.probeNarrow(ctx, p, fw)
		if !errors.Is(err, errFallback) {
			if tr := r.c.trace; tr != nil && err == nil {
				tr.narrowFiles.Add(1)
			}
			return err
		}
	}
	if tr := r.c.trace; tr != nil {
		tr.scanFiles.Add(1)
	}
	return r.probeScan(ctx, p, fw)
}

func (r *run) probeNarrow(ctx context.Context, p *part, fw *fileWork) error {
	c := r.c
	st := r.snap.Store()
	rd, err := st.Open(ctx, fw.key)
	if err != nil {
		if errors.Is(err, storage.ErrNotExist) {
			return errs.Wrap(errs.NotFound, fw.key, err, "data file listed in the table log is missing")
		}
		return errs.Wrap(errs.Internal, fw.key, err, "opening data file")
	}
	defer rd.Close()
	props := parquet.NewReaderProperties(c.mem)
	props.BufferedStreamEnabled = true
	pf, err := file.NewParquetReader(io.NewSectionReader(rd, 0, rd.Size()), file.WithReadProps(props))
	if err != nil {
		return errs.Wrap(errs.CorruptTable, fw.key, err, "data file is not a readable Parquet file")
	}
	defer pf.Close()
	md := pf.MetaData()
	fw.bytesPerRow, fw.overhead = readCost(md, nil)
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: int64(c.ReadBatchSize), PreAllocBinaryData: true}, c.mem)
	if err != nil {
		return errFallback
	}
	top := make([]*arrow.Field, len(fr.Manifest.Fields))
	for i := range fr.Manifest.Fields {
		top[i] = fr.Manifest.Fields[i].Field
	}
	leaves := make([]int, len(c.keyFields))
	descrs := make([]*pqschema.Column, len(c.keyFields))
	for j, f := range c.keyFields {
		k := scan.MatchField(top, f, c.mode)
		if k < 0 {
			// The file predates the key column: its keys are all null.
			fw.why = "key column " + f.Name + " is not in the file"
			return nil
		}
		sf := &fr.Manifest.Fields[k]
		if !sf.IsLeaf() {
			return errFallback
		}
		descrs[j] = md.Schema.Column(sf.ColIndex)
		if descrs[j].PhysicalType() == parquet.Types.Int96 {
			return errFallback
		}
		leaves[j] = sf.ColIndex
	}
	if !r.bindable(p, fr, leaves) {
		return errFallback
	}
	_, overhead := readCost(md, leaves)
	var deleted bitmapView
	if d := fw.add.DeletionVector; d != nil {
		bm, err := dv.Load(ctx, st, d)
		if err != nil {
			return err
		}
		deleted = bm
	}
	var bloom *metadata.BloomFilterReader
	res, err := r.budget.AcquireBytes(ctx, overhead+minProbeBatchBytes)
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "probing")
	}
	defer res.Release()
	var base int64
	cleared := 0
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rgm := md.RowGroup(rg)
		n := rgm.NumRows()
		if n == 0 {
			continue
		}
		skip, keyBytes := r.skipRowGroup(p, rgm, descrs, leaves, n)
		if skip {
			r.c.count(func(tr *trace) { tr.rowGroupsSkippedStats.Add(1) })
		} else if hasBloom(rgm, leaves) {
			if bloom == nil {
				bloom = pf.GetBloomFilterReader()
			}
			if skip = r.bloomSkips(p, bloom, rg, descrs, leaves); skip {
				r.c.count(func(tr *trace) { tr.rowGroupsSkippedBloom.Add(1) })
			}
		}
		if skip {
			if rg == cleared {
				cleared++
				fw.checkFrom = base + n
			}
			base += n
			continue
		}
		r.c.count(func(tr *trace) { tr.rowGroupsRead.Add(1) })
		hit, err := r.probeRowGroup(ctx, p, fw, fr, res, overhead, leaves, rg, n, base, keyBytes, deleted)
		if err != nil {
			return errs.Wrap(errs.CorruptTable, fw.key, err, "probing row group %d", rg)
		}
		if hit {
			fw.rewrite = true
			if !r.fullProbe {
				return nil
			}
		}
		if rg == cleared {
			cleared++
			fw.checkFrom = base + n
		}
		base += n
	}
	if !fw.rewrite {
		fw.why = "no source key in the file"
	}
	return nil
}

// bitmapView is the part of a deletion vector the probe needs.
type bitmapView interface{ Contains(uint64) bool }

// bindable checks that the key set can read the key columns as the file
// stores them, before any data is read.
func (r *run) bindable(p *part, fr *pqarrow.FileReader, leaves []int) bool {
	cols := make([]arrow.Array, len(leaves))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for j, leaf := range leaves {
		var t arrow.DataType
		for i := range fr.Manifest.Fields {
			if sf := &fr.Manifest.Fields[i]; sf.IsLeaf() && sf.ColIndex == leaf {
				t = sf.Field.Type
			}
		}
		if t == nil {
			return false
		}
		cols[j] = array.MakeArrayOfNull(r.c.mem, t, 0)
	}
	_, err := p.keys.set.Bind(cols)
	return err == nil
}

// skipRowGroup decides from Parquet statistics alone whether a row group
// can hold no source key. It also returns the key columns' decoded size.
func (r *run) skipRowGroup(p *part, rgm *metadata.RowGroupMetaData, descrs []*pqschema.Column, leaves []int, rows int64) (bool, int64) {
	var keyBytes int64
	skip := false
	for j, leaf := range leaves {
		cc, err := rgm.ColumnChunk(leaf)
		if err != nil {
			continue
		}
		keyBytes += cc.TotalUncompressedSize()
		if skip {
			continue
		}
		lo, hi, nulls := chunkBounds(cc, descrs[j], r.c.keyFields[j])
		if nulls == rows || ((lo.Known() || hi.Known()) && !p.keys.values[j].anyIn(lo, hi)) {
			skip = true
		}
	}
	return skip, keyBytes
}

func hasBloom(rgm *metadata.RowGroupMetaData, leaves []int) bool {
	for _, leaf := range leaves {
		if cc, err := rgm.ColumnChunk(leaf); err == nil && cc.BloomFilterOffset() > 0 {
			return true
		}
	}
	return false
}

// bloomSkips reports whether, for some key column, the row group's bloom
// filter holds none of the source values: then no source tuple can be
// there. A filter that cannot be read or used decides nothing.
func (r *run) bloomSkips(p *part, bloom *metadata.BloomFilterReader, rg int, descrs []*pqschema.Column, leaves []int) bool {
	rgb, err := bloom.RowGroup(rg)
	if err != nil {
		return false
	}
	for j, leaf := range leaves {
		bf, err := rgb.GetColumnBloomFilter(leaf)
		if err != nil || bf == nil {
			continue
		}
		hashes, ok := p.bloomHashes(j, descrs[j], r.c.keyFields[j], bf.Hasher())
		if !ok {
			continue
		}
		any := false
		for _, h := range hashes {
			if bf.CheckHash(h) {
				any = true
				break
			}
		}
		if !any {
			return true
		}
	}
	return false
}

// bloomHashes caches the bloom hashes of a key column's source values per
// physical representation.
func (p *part) bloomHashes(j int, descr *pqschema.Column, f *schema.Field, h metadata.Hasher) ([]uint64, bool) {
	key := fmt.Sprintf("%d/%d/%d/%s", j, descr.PhysicalType(), descr.TypeLength(), descr.LogicalType())
	p.bloomMu.Lock()
	defer p.bloomMu.Unlock()
	if e, ok := p.bloomCache[key]; ok {
		return e.hashes, e.ok
	}
	hs, ok := bloomHashes(p.keys.values[j], descr, f, h)
	if p.bloomCache == nil {
		p.bloomCache = map[string]bloomEntry{}
	}
	p.bloomCache[key] = bloomEntry{hs, ok}
	return hs, ok
}

type bloomEntry struct {
	hashes []uint64
	ok     bool
}

// probeRowGroup reads one row group's key columns batch by batch under the
// budget and reports whether a live row holds a source key; with
// fullProbe it reads them all, recording every such row in fw.hits.
func (r *run) probeRowGroup(ctx context.Context, p *part, fw *fileWork, fr *pqarrow.FileReader, res *limits.Reservation, overhead int64,
	leaves []int, rg int, rows, base, keyBytes int64, deleted bitmapView) (bool, error) {
	batch := min(int64(r.c.ReadBatchSize), rows)
	est := max(keyBytes*batch/rows*2, minProbeBatchBytes)
	if err := res.Resize(ctx, overhead+est); err != nil {
		return false, err
	}
	rr, err := fr.GetRecordReader(ctx, leaves, []int{rg})
	if err != nil {
		return false, err
	}
	defer rr.Release()
	pos, hit := base, false
	for rr.Next() {
		rec := rr.RecordBatch()
		if got := overhead + recordBytes(rec); got > res.Bytes() {
			if err := res.Resize(ctx, got); err != nil {
				return false, err
			}
		}
		b, err := p.keys.set.Bind(rec.Columns())
		if err != nil {
			return false, err
		}
		n := int(rec.NumRows())
		for i := 0; i < n; i++ {
			if deleted != nil && deleted.Contains(uint64(pos+int64(i))) {
				continue
			}
			e := b.Find(i)
			if e < 0 {
				continue
			}
			if !r.fullProbe {
				return true, nil
			}
			hit = true
			if fw.hits == nil {
				fw.hits = dv.NewBitmap()
			}
			fw.hits.Add(uint64(pos + int64(i)))
			p.keys.markMatched(e)
			if p.keys.isDelete(e) {
				fw.hitDeletes++
			} else {
				fw.hitUpdates++
			}
		}
		pos += int64(n)
		if err := ctx.Err(); err != nil {
			return false, err
		}
	}
	return hit, rr.Err()
}

// probeScan probes through scan, for files the narrow reader leaves: it
// handles every physical form, at the cost of reading every row group.
func (r *run) probeScan(ctx context.Context, p *part, fw *fileWork) error {
	c := r.c
	names := make([]string, len(c.keyFields))
	for j, f := range c.keyFields {
		names[j] = f.Name
	}
	rows := c.ReadBatchSize
	res, err := r.budget.AcquireBytes(ctx, minProbeBatchBytes*scanInFlight)
	if err != nil {
		return errs.Wrap(errs.Canceled, "", err, "probing")
	}
	defer res.Release()
	sc := scan.New(r.snap, scan.WithFiles(fw.add), scan.WithColumns(names...), scan.WithBatchSize(rows),
		scan.WithParallelism(1), scan.WithAllocator(c.mem))
	_, seq, err := sc.Records(ctx)
	if err != nil {
		return err
	}
	for rec, err := range seq {
		if err != nil {
			return err
		}
		if got := recordBytes(rec) * scanInFlight; got > res.Bytes() {
			if err := res.Resize(ctx, got); err != nil {
				return errs.Wrap(errs.Canceled, "", err, "probing")
			}
		}
		b, err := p.keys.set.Bind(rec.Columns())
		if err != nil {
			return errs.Wrap(errs.Internal, fw.add.Path, err, "binding key columns")
		}
		for i := 0; i < int(rec.NumRows()); i++ {
			if b.Find(i) >= 0 {
				fw.rewrite = true
				return nil
			}
		}
	}
	fw.why = "no source key in the file"
	return nil
}

// Writers close a data page at about 1 MiB, checking only every 1024
// values or so: a page of wide values holds at least that many.
const (
	pageBytes  = 1 << 20
	pageValues = 1024
)

// readCost estimates, from a file's footer, the decoded bytes of a row
// (the largest of any row group, every column counted at its Arrow size:
// see decodedBytes) and what a reader of the given leaf columns (nil: all)
// holds besides its batches: per column a compressed and a decompressed
// page, and its dictionary.
func readCost(md *metadata.FileMetaData, leaves []int) (bytesPerRow float64, overhead int64) {
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		m := md.RowGroup(rg)
		n := m.NumRows()
		if n == 0 {
			continue
		}
		var decoded int64
		for c := range m.NumColumns() {
			if cc, err := m.ColumnChunk(c); err == nil {
				decoded += decodedBytes(cc, md.Schema.Column(c))
			}
		}
		bytesPerRow = max(bytesPerRow, float64(max(decoded, m.TotalByteSize()))/float64(n))
		var o int64
		cols := leaves
		if cols == nil {
			cols = make([]int, m.NumColumns())
			for i := range cols {
				cols[i] = i
			}
		}
		for _, c := range cols {
			cc, err := m.ColumnChunk(c)
			if err != nil {
				continue
			}
			size := cc.TotalUncompressedSize()
			page := int64(pageBytes)
			if v := cc.NumValues(); v > 0 {
				page = max(page, size/v*pageValues*5/4)
			}
			page = min(page, size)
			o += 2 * page
			if cc.HasDictionaryPage() {
				o += min(size, pageBytes)
			}
		}
		overhead = max(overhead, o)
	}
	return bytesPerRow, overhead
}

// decodedBytes estimates a column chunk's size once decoded to Arrow: its
// uncompressed Parquet bytes, but at least its values at the Arrow width of
// their type (a dictionary- or run-length-encoded chunk of timestamps is a
// few bytes on disk and 8 a value decoded), and for byte arrays a 4-byte
// offset per value on top. An estimate that falls short makes the reader
// grow its reservation on its first batch, which waits when the share has
// no bytes free.
func decodedBytes(cc *metadata.ColumnChunkMetaData, col *pqschema.Column) int64 {
	size, n := cc.TotalUncompressedSize(), cc.NumValues()
	var width int64
	switch col.PhysicalType() {
	case parquet.Types.ByteArray:
		return size + 4*n
	case parquet.Types.Boolean:
		width = 1
	case parquet.Types.Int32, parquet.Types.Float:
		width = 4
	case parquet.Types.Int64, parquet.Types.Double, parquet.Types.Int96:
		width = 8
	case parquet.Types.FixedLenByteArray:
		width = int64(col.TypeLength())
		if _, ok := col.LogicalType().(*pqschema.DecimalLogicalType); ok {
			width = max(width, 16) // decimal128
		}
	}
	return max(size, width*n)
}
