package dv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
	"github.com/deltalite-go/deltalite/testkit/corpus"
)

// TestFileWriterMatchesSparkBytes re-packs the DVs of every DV file in the
// conformance corpus (Spark and delta-rs test tables, some holding two DVs
// at offsets) through a FileWriter and compares the file byte for byte.
func TestFileWriterMatchesSparkBytes(t *testing.T) {
	ctx := context.Background()
	var files, multi int
	err := filepath.WalkDir(corpus.Path(t, "."), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.Contains(d.Name(), "deletion_vector_") || !strings.HasSuffix(d.Name(), ".bin") {
			return err
		}
		want, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st := storage.NewMemory()
		w := NewFileWriter(ctx, st)
		var wantOffsets []int32
		for pos := 1; pos < len(want); {
			size := int(binary.BigEndian.Uint32(want[pos:]))
			b, err := Decode(want[pos+4 : pos+4+size])
			if err != nil {
				t.Fatalf("%s at %d: %v", p, pos, err)
			}
			desc, err := w.Add(b)
			if err != nil {
				t.Fatal(err)
			}
			if *desc.Offset != int32(pos) || int(desc.SizeInBytes) != size || desc.Cardinality != int64(b.Cardinality()) {
				t.Fatalf("%s: DV at %d of %d bytes got descriptor %s", p, pos, size, fmtDescriptor(desc))
			}
			wantOffsets = append(wantOffsets, int32(pos))
			pos += 4 + size + 4
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		keys := w.Written()
		if len(keys) != 1 {
			t.Fatalf("%s: %d DVs went to %d files, want 1", p, len(wantOffsets), len(keys))
		}
		got, err := storage.ReadAll(ctx, st, keys[0])
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: re-packed file differs (%d bytes, Spark's %d)", p, len(got), len(want))
		}
		files++
		if len(wantOffsets) > 1 {
			multi++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 || multi < 9 {
		t.Fatalf("compared %d files, %d with several DVs: the corpus has at least 100 and 9", files, multi)
	}
}

func TestFileWriterPacksAndRolls(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	samples := sampleBitmaps()
	far := NewBitmap()
	for i := uint64(1 << 20); i < 1<<20+20000; i += 3 {
		far.Add(i) // a bitset container, as big as "dense"
	}
	bs := []*Bitmap{samples["small"], samples["dense"], far, samples["wide"], NewBitmap(5)}
	frame := func(b *Bitmap) int { return 8 + len(Encode(b)) }
	// A target that fits "small" and "dense" together; "far" does not fit
	// beside them nor "wide" beside "far"; "wide" and {5} share the last.
	target := 1 + frame(bs[0]) + frame(bs[1])
	w := NewFileWriter(ctx, st, WithTargetSize(target), WithRandomPrefix(2))
	if d, err := w.Add(NewBitmap()); d != nil || err != nil {
		t.Fatalf("an empty DV got descriptor %v, %v; want none", d, err)
	}
	var ds []*protocol.DeletionVector
	for _, b := range bs {
		d, err := w.Add(b)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	if n := len(w.Written()); n != 2 {
		t.Fatalf("%d files stored before Close, want 2 (small+dense, far)", n)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := w.Add(NewBitmap(1)); !errors.Is(err, errs.ErrInternal) {
		t.Fatalf("Add after Close: %v", err)
	}
	type at struct {
		file   string
		offset int32
	}
	var got []at
	for _, d := range ds {
		if d.StorageType != "u" || len(d.PathOrInlineDv) != 22 {
			t.Fatalf("descriptor %+v: want storage type u and a 2-character prefix", d)
		}
		got = append(got, at{d.PathOrInlineDv, *d.Offset})
	}
	want := []at{{got[0].file, 1}, {got[0].file, int32(1 + frame(bs[0]))}, {got[2].file, 1}, {got[3].file, 1}, {got[3].file, int32(1 + frame(bs[3]))}}
	if fmt.Sprint(got) != fmt.Sprint(want) || got[2].file == got[0].file || got[3].file == got[2].file {
		t.Fatalf("packing: got %v, want %v in three files", got, want)
	}
	if len(w.Written()) != 3 {
		t.Fatalf("stored %v, want 3 files", w.Written())
	}
	for i, d := range ds {
		b, err := Load(ctx, st, d)
		if err != nil {
			t.Fatal(err)
		}
		if !b.Equal(bs[i]) {
			t.Fatalf("DV %d: rows differ after Load", i)
		}
	}
	// A DV past the target alone still gets a file, one per DV.
	w = NewFileWriter(ctx, st, WithTargetSize(10))
	d1, _ := w.Add(NewBitmap(1))
	d2, _ := w.Add(NewBitmap(2))
	if err := w.Close(); err != nil || d1.PathOrInlineDv == d2.PathOrInlineDv || *d2.Offset != 1 || len(w.Written()) != 2 {
		t.Fatalf("tiny target: %v, %v, %v, %v", err, d1, d2, w.Written())
	}
	// Nothing added, nothing stored.
	w = NewFileWriter(ctx, st)
	if _, err := w.Add(nil); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil || len(w.Written()) != 0 {
		t.Fatalf("an empty writer stored %v (%v)", w.Written(), err)
	}
	// Rows Delta cannot store are refused before anything is written.
	if _, err := NewFileWriter(ctx, st).Add(NewBitmap(1 << 63)); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Fatalf("row 2^63: %v", err)
	}
}

// failingStore fails every PutIfAbsent, as a full disk or a lost network does.
type failingStore struct{ storage.Store }

func (failingStore) PutIfAbsent(context.Context, string, []byte) error {
	return errors.New("disk full")
}

func TestFileWriterStoreFailure(t *testing.T) {
	w := NewFileWriter(context.Background(), failingStore{storage.NewMemory()})
	if _, err := w.Add(NewBitmap(1)); err != nil {
		t.Fatal(err) // nothing stored yet
	}
	err := w.Close()
	if err == nil || !strings.Contains(err.Error(), "deletion_vector_") || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("Close: want an error naming the DV file and the cause, got %v", err)
	}
	if len(w.Written()) != 0 {
		t.Fatalf("a failed file is listed as written: %v", w.Written())
	}
}
