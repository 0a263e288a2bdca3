package checkpoint

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
)

// batchRows is the number of checkpoint rows decoded at a time: large
// enough to amortise the per-batch setup, small enough that a batch of
// actions with long stats stays a few megabytes.
const batchRows = 8192

// trackedReader remembers the first error of the reader it is handed, so that a
// failure of the medium is not reported as a damaged file.
type trackedReader struct {
	r   io.ReaderAt
	mu  sync.Mutex
	err error
}

func (t *trackedReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := t.r.ReadAt(p, off)
	if err != nil && !errors.Is(err, io.EOF) {
		t.mu.Lock()
		if t.err == nil {
			t.err = err
		}
		t.mu.Unlock()
	}
	return n, err
}

func (t *trackedReader) ioErr() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.err
}

// projection is the set of leaf columns to read from one checkpoint file.
type projection struct {
	main []int // every wanted action column but the add.*_parsed ones
	// parsed are the leaves of add.stats_parsed and add.partitionValues_parsed,
	// read only for the batches that need them.
	parsed                 []int
	hasStatsParsed, hasPVP bool
}

func leaves(f *pqarrow.SchemaField, out []int) []int {
	if f.IsLeaf() {
		return append(out, f.ColIndex)
	}
	for i := range f.Children {
		out = leaves(&f.Children[i], out)
	}
	return out
}

func project(m *pqarrow.SchemaManifest) projection {
	var p projection
	want := make(map[string]bool, len(actionColumns))
	for _, c := range actionColumns {
		want[c] = true
	}
	for i := range m.Fields {
		f := &m.Fields[i]
		if !want[f.Field.Name] {
			continue
		}
		if f.Field.Name != "add" {
			p.main = leaves(f, p.main)
			continue
		}
		for j := range f.Children {
			c := &f.Children[j]
			switch c.Field.Name {
			case statsParsedCol:
				n := len(p.parsed)
				p.parsed = leaves(c, p.parsed)
				p.hasStatsParsed = len(p.parsed) > n
			case pvParsedCol:
				n := len(p.parsed)
				p.parsed = leaves(c, p.parsed)
				p.hasPVP = len(p.parsed) > n
			default:
				p.main = leaves(c, p.main)
			}
		}
	}
	return p
}

// decodeParquet streams the actions of one Parquet checkpoint (or sidecar)
// file to fn, row group by row group.
func decodeParquet(ctx context.Context, key string, r File, fn func(protocol.Action) error) error {
	tr := &trackedReader{r: r}
	pr := &parquetReader{ctx: ctx, key: key}
	err := pr.run(io.NewSectionReader(tr, 0, r.Size()), r.Size(), fn)
	if err == nil {
		return nil
	}
	if ce, ok := err.(*callerErr); ok {
		return ce.err
	}
	// A failure of the store or a cancellation is not a damaged file.
	if ioErr := tr.ioErr(); ioErr != nil {
		return errs.Wrap(errs.Internal, key, ioErr, "reading checkpoint")
	}
	if ctx.Err() != nil {
		return errs.Wrap(errs.Canceled, key, ctx.Err(), "reading checkpoint")
	}
	return err
}

type parquetReader struct {
	ctx context.Context
	key string
	fr  *pqarrow.FileReader
	p   projection
}

func (pr *parquetReader) corrupt(err error, what string) error {
	return errs.Wrap(errs.CorruptTable, pr.key, err, "%s", what)
}

func (pr *parquetReader) open(src parquet.ReaderAtSeeker, size int64) (err error) {
	defer recovered(pr.key, &err)
	pf, err := file.NewParquetReader(src, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		return pr.corrupt(err, "not a readable Parquet file")
	}
	pr.fr, err = pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchRows, PreAllocBinaryData: true}, memory.DefaultAllocator)
	if err != nil {
		return pr.corrupt(err, "Parquet schema cannot be read")
	}
	pr.p = project(pr.fr.Manifest)
	if len(pr.p.main) == 0 {
		return errs.New(errs.CorruptTable, pr.key, "Parquet file has none of the checkpoint action columns")
	}
	return pr.checkChunks(pf, size)
}

// checkChunks verifies that every column chunk to be read lies inside the
// file. The Parquet reader sets up nested columns on goroutines of its own,
// where a bad offset or length would be a panic no recover here can catch.
func (pr *parquetReader) checkChunks(pf *file.Reader, size int64) error {
	md := pf.MetaData()
	ncols := md.Schema.NumColumns()
	cols := append(append([]int(nil), pr.p.main...), pr.p.parsed...)
	for rg := 0; rg < pf.NumRowGroups(); rg++ {
		rgm := md.RowGroup(rg)
		if rgm.NumColumns() != ncols || rgm.NumRows() < 0 {
			return errs.New(errs.CorruptTable, pr.key, "row group %d has %d columns and %d rows for a schema of %d columns", rg, rgm.NumColumns(), rgm.NumRows(), ncols)
		}
		for _, c := range cols {
			cc, err := rgm.ColumnChunk(c)
			if err != nil {
				return pr.corrupt(err, "bad column chunk metadata")
			}
			start := cc.DataPageOffset()
			if cc.HasDictionaryPage() && cc.DictionaryPageOffset() > 0 && start > cc.DictionaryPageOffset() {
				start = cc.DictionaryPageOffset()
			}
			n := cc.TotalCompressedSize()
			if start < 0 || n < 0 || start > size || n > size-start {
				return errs.New(errs.CorruptTable, pr.key, "row group %d column %d spans bytes %d+%d of a %d-byte file", rg, c, start, n, size)
			}
		}
	}
	return nil
}

func (pr *parquetReader) run(src parquet.ReaderAtSeeker, size int64, fn func(protocol.Action) error) error {
	if err := pr.open(src, size); err != nil {
		return err
	}
	var actions []protocol.Action
	for rg := 0; rg < pr.fr.ParquetReader().NumRowGroups(); rg++ {
		if err := pr.ctx.Err(); err != nil {
			return err
		}
		rgr := &rowGroupReader{pr: pr, rg: rg}
		err := func() error {
			defer rgr.release()
			for {
				if err := pr.ctx.Err(); err != nil {
					return err
				}
				var more bool
				var err error
				actions, more, err = rgr.next(actions[:0])
				if err != nil {
					return err
				}
				for _, a := range actions {
					if err := fn(a); err != nil {
						return &callerErr{err}
					}
				}
				if !more {
					return nil
				}
			}
		}()
		if err != nil {
			return err
		}
	}
	return nil
}

// callerErr carries an error of the caller's callback through unchanged.
type callerErr struct{ err error }

func (c *callerErr) Error() string { return c.err.Error() }

// rowGroupReader decodes one row group batch by batch. The typed
// add.*_parsed columns are read by a second reader over the same rows,
// created and positioned only when a batch needs them.
type rowGroupReader struct {
	pr        *parquetReader
	rg        int
	main      pqarrow.RecordReader
	parsed    pqarrow.RecordReader
	pos       int64 // first row of the next main batch
	parsedPos int64 // first row of the next parsed batch
}

func (r *rowGroupReader) release() {
	if r.main != nil {
		r.main.Release()
	}
	if r.parsed != nil {
		r.parsed.Release()
	}
}

// next decodes the next batch into out; more is false after the last one.
func (r *rowGroupReader) next(out []protocol.Action) (_ []protocol.Action, more bool, err error) {
	key := r.pr.key
	defer recovered(key, &err)
	if r.main == nil {
		r.main, err = r.pr.fr.GetRecordReader(r.pr.ctx, r.pr.p.main, []int{r.rg})
		if err != nil {
			return out, false, r.pr.corrupt(err, "reading row group")
		}
	}
	if !r.main.Next() {
		if err := r.main.Err(); err != nil {
			return out, false, r.pr.corrupt(err, "reading row group")
		}
		return out, false, nil
	}
	rec := r.main.RecordBatch()
	n := rec.NumRows()
	d, err := newBatchDecoder(key, rec)
	if err != nil {
		return out, false, err
	}
	if len(r.pr.p.parsed) > 0 && d.needsParsed(r.pr.p.hasStatsParsed, r.pr.p.hasPVP) {
		prec, err := r.parsedBatch(n)
		if err != nil {
			return out, false, err
		}
		if err := d.setParsed(prec); err != nil {
			return out, false, err
		}
	}
	r.pos += n
	out, err = d.decode(out)
	return out, true, err
}

// parsedBatch returns the batch of typed columns for rows [pos, pos+n).
func (r *rowGroupReader) parsedBatch(n int64) (arrow.RecordBatch, error) {
	var err error
	if r.parsed == nil {
		r.parsed, err = r.pr.fr.GetRecordReader(r.pr.ctx, r.pr.p.parsed, []int{r.rg})
		if err != nil {
			return nil, r.pr.corrupt(err, "reading row group")
		}
	}
	// Skip to the batch of the main reader by reading: the reader's own
	// seek runs on a goroutine, out of reach of this package's recover.
	// Typed columns are needed for every batch or for none in the common
	// cases, so this rarely skips anything.
	for r.parsedPos < r.pos {
		if !r.parsed.Next() {
			break
		}
		r.parsedPos += r.parsed.RecordBatch().NumRows()
	}
	if r.parsedPos != r.pos || !r.parsed.Next() {
		err := r.parsed.Err()
		if err == nil {
			err = errors.New("fewer rows than the action columns")
		}
		return nil, r.pr.corrupt(err, "reading add.stats_parsed")
	}
	rec := r.parsed.RecordBatch()
	if rec.NumRows() != n {
		return nil, errs.New(errs.CorruptTable, r.pr.key, "add.stats_parsed batch of %d rows for %d action rows", rec.NumRows(), n)
	}
	r.parsedPos += n
	return rec, nil
}
