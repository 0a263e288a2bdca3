package dv

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/protocol"
	"github.com/deltalite-go/deltalite/storage"
)

func TestWriteLoadRoundTrip(t *testing.T) {
	ctx := context.Background()
	local := localStore(t, t.TempDir())
	for _, st := range []storage.Store{storage.NewMemory(), local} {
		for name, b := range sampleBitmaps() {
			for _, prefix := range []int{0, 3} {
				d, err := Write(ctx, st, b, WithRandomPrefix(prefix))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if d.StorageType != "u" || len(d.PathOrInlineDv) != 20+prefix || d.Offset == nil || *d.Offset != 1 ||
					d.Cardinality != int64(b.Cardinality()) {
					t.Fatalf("%s: descriptor %+v", name, d)
				}
				key, err := FileKey(st, d)
				if err != nil {
					t.Fatal(err)
				}
				if base := filepath.Base(key); !strings.HasPrefix(base, "deletion_vector_") || (prefix > 0) != strings.Contains(key, "/") {
					t.Fatalf("%s: key %q", name, key)
				}
				// The file layout of the protocol, byte for byte.
				raw, err := storage.ReadAll(ctx, st, key)
				if err != nil {
					t.Fatal(err)
				}
				data := Encode(b)
				if raw[0] != 1 || int(binary.BigEndian.Uint32(raw[1:])) != len(data) || int(d.SizeInBytes) != len(data) ||
					string(raw[5:5+len(data)]) != string(data) || binary.BigEndian.Uint32(raw[5+len(data):]) != crc32.ChecksumIEEE(data) ||
					len(raw) != 9+len(data) {
					t.Fatalf("%s: file layout wrong", name)
				}
				back, err := Load(ctx, st, d)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if !back.Equal(b) {
					t.Fatalf("%s: loaded rows differ", name)
				}
			}
		}
	}
	// Two writes never share a file.
	a, _ := Write(ctx, local, NewBitmap(1))
	b, _ := Write(ctx, local, NewBitmap(1))
	if a.PathOrInlineDv == b.PathOrInlineDv {
		t.Fatal("two DVs got the same UUID")
	}
}

func TestInlineRoundTrip(t *testing.T) {
	for name, b := range sampleBitmaps() {
		d, err := InlineDescriptor(b)
		if err != nil {
			t.Fatal(err)
		}
		if d.StorageType != "i" || d.Offset != nil || len(d.PathOrInlineDv)%5 != 0 {
			t.Fatalf("%s: descriptor %+v", name, d)
		}
		back, err := Load(context.Background(), nil, d)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !back.Equal(b) {
			t.Fatalf("%s: rows differ", name)
		}
	}
	if _, err := InlineDescriptor(NewBitmap(1 << 63)); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Fatalf("row 2^63: want invalid argument, got %v", err)
	}
}

// packed writes a DV file holding several DVs, as Spark packs them, and
// returns their descriptors.
func packed(t *testing.T, st storage.Store, key string, bs ...*Bitmap) []*protocol.DeletionVector {
	t.Helper()
	file := []byte{1}
	var out []*protocol.DeletionVector
	for _, b := range bs {
		data := Encode(b)
		off := int32(len(file))
		file = binary.BigEndian.AppendUint32(file, uint32(len(data)))
		file = append(file, data...)
		file = binary.BigEndian.AppendUint32(file, crc32.ChecksumIEEE(data))
		out = append(out, &protocol.DeletionVector{StorageType: "p", PathOrInlineDv: st.URL() + "/" + key,
			Offset: &off, SizeInBytes: int32(len(data)), Cardinality: int64(b.Cardinality())})
	}
	if err := st.Put(context.Background(), key, strings.NewReader(string(file))); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestLoadPackedFile(t *testing.T) {
	st := localStore(t, t.TempDir())
	want := []*Bitmap{NewBitmap(1, 2), sampleBitmaps()["dense"], NewBitmap(7 << 32)}
	for i, d := range packed(t, st, "dv/packed.bin", want...) {
		b, err := Load(context.Background(), st, d)
		if err != nil {
			t.Fatalf("DV %d at %d: %v", i, *d.Offset, err)
		}
		if !b.Equal(want[i]) {
			t.Fatalf("DV %d: rows differ", i)
		}
	}
}

func TestLoadCorruptFiles(t *testing.T) {
	ctx := context.Background()
	st := storage.NewMemory()
	good := NewBitmap(3, 4, 5)
	d, err := Write(ctx, st, good)
	if err != nil {
		t.Fatal(err)
	}
	key, _ := FileKey(st, d)
	orig, _ := storage.ReadAll(ctx, st, key)

	// rewrite replaces the DV file with a damaged copy.
	rewrite := func(f func([]byte) []byte) {
		data := f(append([]byte(nil), orig...))
		if err := st.Put(ctx, key, strings.NewReader(string(data))); err != nil {
			t.Fatal(err)
		}
	}
	withCRC := func(b []byte) []byte { // keep the checksum right after editing the payload
		binary.BigEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[5:len(b)-4]))
		return b
	}
	desc := func(f func(*protocol.DeletionVector)) *protocol.DeletionVector {
		c := *d
		off := *d.Offset
		c.Offset = &off
		f(&c)
		return &c
	}
	cases := []struct {
		name string
		file func([]byte) []byte
		desc *protocol.DeletionVector
		msg  string
	}{
		{"flipped CRC byte", func(b []byte) []byte { b[len(b)-1] ^= 1; return b }, d, "checksum"},
		{"flipped data byte", func(b []byte) []byte { b[len(b)-6] ^= 1; return b }, d, "checksum"},
		{"truncated file", func(b []byte) []byte { return b[:len(b)-3] }, d, "truncated"},
		{"wrong magic", func(b []byte) []byte { b[5] ^= 0xff; return withCRC(b) }, d, "magic"},
		{"wrong version", func(b []byte) []byte { b[0] = 2; return b }, d, "version"},
		{"wrong size field", func(b []byte) []byte { b[4]--; return b }, d, "size"},
		{"cardinality", nil, desc(func(c *protocol.DeletionVector) { c.Cardinality = 4 }), "cardinality"},
		{"size past file", nil, desc(func(c *protocol.DeletionVector) { c.SizeInBytes += 100 }), "truncated"},
		{"offset past file", nil, desc(func(c *protocol.DeletionVector) { *c.Offset = 1000 }), "truncated"},
		{"offset zero", nil, desc(func(c *protocol.DeletionVector) { *c.Offset = 0 }), "offset"},
		{"negative size", nil, desc(func(c *protocol.DeletionVector) { c.SizeInBytes = -5 }), "impossible"},
		{"negative cardinality", nil, desc(func(c *protocol.DeletionVector) { c.Cardinality = -1 }), "impossible"},
		{"missing file", nil, desc(func(c *protocol.DeletionVector) { c.PathOrInlineDv = "0000000000" + c.PathOrInlineDv[10:] }), "missing"},
		{"p outside root", nil, desc(func(c *protocol.DeletionVector) {
			c.StorageType, c.PathOrInlineDv = "p", "file:///etc/passwd"
		}), "outside"},
		{"bad inline", nil, &protocol.DeletionVector{StorageType: "i", PathOrInlineDv: "~~~~~", SizeInBytes: 12}, "Z85"},
		{"inline size", nil, func() *protocol.DeletionVector {
			i, _ := InlineDescriptor(good)
			i.SizeInBytes += 8
			return i
		}(), "decodes to"},
	}
	for _, c := range cases {
		if c.file != nil {
			rewrite(c.file)
		} else {
			rewrite(func(b []byte) []byte { return b })
		}
		_, err := Load(ctx, st, c.desc)
		kind := errs.ErrCorruptTable
		if c.name == "missing file" {
			kind = errs.ErrNotFound // a file gone (likely vacuumed), not a corrupt one
		}
		if !errors.Is(err, kind) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: want a %v error about %q, got %v", c.name, kind.Kind, c.msg, err)
			continue
		}
		if c.desc.StorageType == "u" && !strings.Contains(err.Error(), "deletion_vector_") {
			t.Errorf("%s: error does not name the DV file: %v", c.name, err)
		}
	}
	rewrite(func(b []byte) []byte { return b })
	if _, err := Load(ctx, st, d); err != nil {
		t.Fatalf("restored file: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Load(cctx, st, d); !errors.Is(err, errs.ErrCanceled) {
		t.Fatalf("canceled: %v", err)
	}
	if _, err := Load(ctx, st, nil); !errors.Is(err, errs.ErrInvalidArgument) {
		t.Fatalf("nil descriptor: %v", err)
	}
}
