package cloudtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/deltalite-go/deltalite"
)

// smallMultipart makes every data file above 1 MiB a multipart upload in
// parts of 5 MiB (the smallest S3 allows).
var smallMultipart = map[string]string{
	"MULTIPART_THRESHOLD_BYTES": "1048576",
	"MULTIPART_PART_SIZE_BYTES": "5242880",
}

// blobSchema: an id and an incompressible payload, so that file size
// follows row count.
var blobSchema = arrow.NewSchema([]arrow.Field{
	{Name: "id", Type: arrow.PrimitiveTypes.Int64},
	{Name: "payload", Type: arrow.BinaryTypes.Binary},
}, nil)

// blobBatch is rows ids [from, from+n) with random payloads of size bytes,
// and the SHA-256 of each payload by id.
func blobBatch(from, n, size int, sums map[int64][32]byte) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, blobSchema)
	defer b.Release()
	buf := make([]byte, size)
	for i := range n {
		_, _ = rand.Read(buf)
		id := int64(from + i)
		b.Field(0).(*array.Int64Builder).Append(id)
		b.Field(1).(*array.BinaryBuilder).Append(buf)
		if sums != nil {
			sums[id] = sha256.Sum256(buf)
		}
	}
	return b.NewRecordBatch()
}

// blobSums reads a blob table back as the SHA-256 of each payload by id.
func blobSums(t *testing.T, tb *deltalite.Table) map[int64][32]byte {
	t.Helper()
	_, batches, err := tb.Scan().Records(ctxFor(t, time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64][32]byte{}
	for rec, err := range batches {
		if err != nil {
			t.Fatal(err)
		}
		ids := rec.Column(0).(*array.Int64)
		payloads := rec.Column(1).(*array.Binary)
		for i := range int(rec.NumRows()) {
			if _, dup := out[ids.Value(i)]; dup {
				t.Fatalf("id %d read twice", ids.Value(i))
			}
			out[ids.Value(i)] = sha256.Sum256(payloads.Value(i))
		}
	}
	return out
}

// TestMultipartDataFile: a 12 MiB data file goes up in parts (three on S3
// and Azure, where the server shows it) and reads back byte for byte.
func TestMultipartDataFile(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("multipart-")
		opts := with(c.opts, smallMultipart)
		sums := map[int64][32]byte{}
		var recs []arrow.RecordBatch
		for i := range 4 { // 4 batches of 24 rows of 128 KiB
			recs = append(recs, blobBatch(i*24, 24, 128<<10, sums))
		}
		rr, err := array.NewRecordReader(blobSchema, recs)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs {
			r.Release()
		}
		defer rr.Release()
		res, err := deltalite.Write(ctxFor(t, 2*time.Minute), uri, rr, deltalite.WriteOptions{Mode: deltalite.ModeError,
			StorageOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		if res.FilesAdded != 1 || res.RowsWritten != 96 || res.BytesWritten < 12<<20 {
			t.Fatalf("write: %+v; want one file of more than 12 MiB", res)
		}
		var data []string
		for _, k := range c.keys(t, uri) {
			if strings.HasSuffix(k, ".parquet") {
				data = append(data, k)
			}
		}
		if len(data) != 1 {
			t.Fatalf("data files %v", data)
		}
		switch parts := c.parts(t, keyOf(uri, data[0])); {
		case parts == -1:
			t.Logf("%s does not show how an object was uploaded", c.name)
		case parts != 3:
			t.Fatalf("%s holds the %d-byte data file as %d parts, want 3 of 5 MiB", c.name, res.BytesWritten, parts)
		}
		// A reader with the default options reads it.
		checkSums(t, c.open(t, uri), sums)

		// An upsert on a store opened with the default sizes sizes its own
		// uploads: replacing 24 rows rewrites the file, again in 3 parts.
		tb := c.open(t, uri)
		src := blobBatch(24, 24, 128<<10, sums)
		defer src.Release()
		stats, err := tb.UpsertBatch(ctxFor(t, 2*time.Minute), src, deltalite.UpsertOptions{
			PrimaryKeys: []string{"id"}, MultipartThreshold: 1 << 20, MultipartPartSize: 5 << 20})
		if err != nil {
			t.Fatal(err)
		}
		if stats.RowsUpdated != 24 || stats.FilesAdded != 1 || stats.FilesRemoved != 1 {
			t.Fatalf("upsert: %v; want 24 rows updated in one rewritten file", stats)
		}
		for _, k := range c.keys(t, uri) {
			if strings.HasSuffix(k, ".parquet") && k != data[0] {
				if parts := c.parts(t, keyOf(uri, k)); parts != -1 && parts != 3 {
					t.Fatalf("%s holds the upserted data file as %d parts, want 3 of 5 MiB", c.name, parts)
				}
			}
		}
		checkSums(t, c.open(t, uri), sums)
		if _, err := tb.UpsertBatch(t.Context(), src, deltalite.UpsertOptions{
			PrimaryKeys: []string{"id"}, MultipartPartSize: 1 << 20}); !errors.Is(err, deltalite.ErrInvalidArgument) {
			t.Fatalf("upsert with 1 MiB parts: %v; want an invalid-argument error", err)
		}
	})
}

// checkSums reads the blob table and compares each row's payload digest.
func checkSums(t *testing.T, tb *deltalite.Table, sums map[int64][32]byte) {
	t.Helper()
	got := blobSums(t, tb)
	if len(got) != len(sums) {
		t.Fatalf("read %d rows, wrote %d", len(got), len(sums))
	}
	for id, s := range sums {
		if got[id] != s {
			t.Fatalf("payload of row %d differs", id)
		}
	}
}

// brokenReader yields batches of 3 MiB; after the given number it calls
// atBreak, then fails (Err) or cancels the write's context and goes on.
type brokenReader struct {
	n, after int
	atBreak  func()
	cancel   context.CancelFunc // nil: fail instead
	cur      arrow.RecordBatch
	err      error
}

var errSourceBroke = errors.New("the source connection dropped")

func (r *brokenReader) Retain()                        {}
func (r *brokenReader) Release()                       { r.drop() }
func (r *brokenReader) Schema() *arrow.Schema          { return blobSchema }
func (r *brokenReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *brokenReader) Record() arrow.RecordBatch      { return r.cur }
func (r *brokenReader) Err() error                     { return r.err }

func (r *brokenReader) drop() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *brokenReader) Next() bool {
	r.drop()
	if r.n == r.after {
		r.atBreak()
		if r.cancel == nil {
			r.err = errSourceBroke
			return false
		}
		r.cancel()
	}
	if r.n > r.after+12 {
		return false
	}
	r.cur = blobBatch(1000*r.n, 24, 128<<10, nil)
	r.n++
	return true
}

// TestFailedWriteLeavesNoTrace: a write whose source fails, or whose
// context is cancelled, after 72 MiB fails with the cause, and the table
// keeps its version, its rows and its objects. By then the first 32 MiB row
// group has gone up into a multipart upload that stays open, as its file is
// not complete (the writer encodes a row group while the next one buffers,
// and waits for it before it flushes the second, at 64 MiB; S3 and Azure
// show the upload open); on S3 the failed write aborts it. (Azure has no abort: blocks never
// committed are invisible and expire; GCS shows neither.)
func TestFailedWriteLeavesNoTrace(t *testing.T) {
	eachCloud(t, true, func(t *testing.T, c *cloud) {
		uri := c.tableURI("failed-")
		opts := with(c.opts, smallMultipart)
		seed := blobBatch(-10, 2, 1024, nil)
		rr, err := array.NewRecordReader(blobSchema, []arrow.RecordBatch{seed})
		seed.Release()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := deltalite.Write(ctxFor(t, time.Minute), uri, rr, deltalite.WriteOptions{Mode: deltalite.ModeError, StorageOptions: opts}); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		before := c.keys(t, uri)
		wantSums := blobSums(t, c.open(t, uri))

		check := func(t *testing.T) {
			t.Helper()
			tb := c.open(t, uri)
			if tb.Version() != 0 {
				t.Fatalf("the failed write moved the table to version %d", tb.Version())
			}
			got := blobSums(t, tb)
			if len(got) != len(wantSums) {
				t.Fatalf("%d rows after the failed write, want %d", len(got), len(wantSums))
			}
			if after := c.keys(t, uri); !slices.Equal(after, before) {
				t.Fatalf("objects changed:\nbefore %v\nafter  %v", before, after)
			}
			if n := c.pendingUploads(t, keyOf(uri, "")); n > 0 && c.abortsUploads {
				t.Fatalf("%d multipart uploads left open under the table", n)
			}
		}

		// inFlight checks, when the source breaks, that an upload is open.
		inFlight := func() {
			if n := c.pendingUploads(t, keyOf(uri, "")); n == 0 {
				t.Errorf("no upload was under way when the source broke")
			}
		}
		t.Run("SourceFails", func(t *testing.T) {
			src := &brokenReader{after: 24, atBreak: inFlight}
			started := time.Now()
			_, err := deltalite.Write(ctxFor(t, time.Minute), uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend, StorageOptions: opts})
			src.Release()
			if !errors.Is(err, errSourceBroke) {
				t.Fatalf("Write with a failing source: %v; want the source's error", err)
			}
			t.Logf("failed after %v: %v", time.Since(started).Round(time.Millisecond), err)
			check(t)
		})
		t.Run("Cancelled", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			src := &brokenReader{after: 24, atBreak: inFlight, cancel: cancel}
			_, err := deltalite.Write(ctx, uri, src, deltalite.WriteOptions{Mode: deltalite.ModeAppend, StorageOptions: opts})
			src.Release()
			if !errors.Is(err, deltalite.ErrCanceled) && !errors.Is(err, context.Canceled) {
				t.Fatalf("Write with a cancelled context: %v; want a cancellation", err)
			}
			check(t)
		})
	})
}
