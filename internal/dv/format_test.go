package dv

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"
	"testing"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// bitmaps used by the round-trip and fuzz tests: every container kind
// (array, bitset, run), several high keys, the 32-bit boundary.
func sampleBitmaps() map[string]*Bitmap {
	dense := NewBitmap()
	for i := uint64(0); i < 20000; i += 3 {
		dense.Add(i) // > 4096 rows in container 0: a bitset
	}
	runs := NewBitmap()
	runs.AddRange(100, 70000) // spans containers 0 and 1 as runs
	runs.AddRange(1<<20, 1<<20+5)
	wide := NewBitmap(0, 1<<32-1, 1<<32, 5<<32+7, 1<<40, 1<<62)
	return map[string]*Bitmap{
		"empty":  NewBitmap(),
		"zero":   NewBitmap(0),
		"small":  NewBitmap(0, 9),
		"dense":  dense,
		"runs":   runs,
		"wide":   wide,
		"mixed":  func() *Bitmap { b := dense.Clone(); b.Or(runs); b.Or(wide); return b }(),
		"nilbmp": nil,
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	for name, b := range sampleBitmaps() {
		data := Encode(b)
		if got := binary.LittleEndian.Uint32(data); got != magicPortable {
			t.Fatalf("%s: magic %d", name, got)
		}
		back, err := Decode(data)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !back.Equal(b) || back.Cardinality() != b.Cardinality() || !slices.Equal(back.ToArray(), b.ToArray()) {
			t.Fatalf("%s: round trip changed the rows: %d -> %d", name, b.Cardinality(), back.Cardinality())
		}
	}
	// Encode must not change the bitmap it is given.
	b := NewBitmap()
	b.AddRange(0, 10000)
	before := b.rb.HasRunCompression()
	Encode(b)
	if b.rb.HasRunCompression() != before {
		t.Fatal("Encode changed the representation of its argument")
	}
}

func TestEmptyBitmapEncoding(t *testing.T) {
	// Spark's empty RoaringBitmapArray: magic and a zero count.
	if got := hex.EncodeToString(Encode(NewBitmap())); got != "d1d339640000000000000000" {
		t.Fatalf("empty = %s", got)
	}
}

// A DV payload Databricks wrote for row 1: no-run cookie, which always
// carries the offset header, even for one container.
func TestDecodeDatabricksNoRunCookie(t *testing.T) {
	data, _ := hex.DecodeString("d1d339640100000000000000000000003a3000000100000000000000100000000100")
	b, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("rows = %v", got)
	}
}

// le builds little-endian byte strings for hand-made bitmaps.
func le(parts ...any) []byte {
	var out []byte
	for _, p := range parts {
		switch v := p.(type) {
		case uint16:
			out = binary.LittleEndian.AppendUint16(out, v)
		case uint32:
			out = binary.LittleEndian.AppendUint32(out, v)
		case uint64:
			out = binary.LittleEndian.AppendUint64(out, v)
		case []byte:
			out = append(out, v...)
		default:
			panic("le: bad part")
		}
	}
	return out
}

func TestDecodeHandMade(t *testing.T) {
	magic := uint32(magicPortable)
	// Key 2, run cookie with one container holding runs [5,7] and [10,10].
	runs := le(magic, uint64(1), uint32(2), uint32(cookieRuns), []byte{1},
		uint16(0), uint16(3), uint16(2), uint16(5), uint16(2), uint16(10), uint16(0))
	b, err := Decode(runs)
	if err != nil {
		t.Fatal(err)
	}
	base := uint64(2) << 32
	if got := b.ToArray(); !slices.Equal(got, []uint64{base + 5, base + 6, base + 7, base + 10}) {
		t.Fatalf("runs = %v", got)
	}
	// A run up to the last 64-bit row, where an exclusive end would wrap.
	top := le(magic, uint64(1), uint32(0xFFFFFFFF), uint32(cookieRuns), []byte{1},
		uint16(0xFFFF), uint16(3), uint16(1), uint16(0xFFFC), uint16(3))
	if b, err = Decode(top); err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{1<<64 - 4, 1<<64 - 3, 1<<64 - 2, 1<<64 - 1}) {
		t.Fatalf("top rows = %v", got)
	}
	if back, err := Decode(Encode(b)); err != nil || !back.Equal(b) {
		t.Fatalf("top rows round trip: %v", err)
	}
	// Sparse keys (0 and 3) with an empty bitmap in between, as Spark may write.
	sparse := le(magic, uint64(3),
		uint32(0), uint32(cookieNoRuns), uint32(1), uint16(0), uint16(0), uint32(16), uint16(4),
		uint32(1), uint32(cookieNoRuns), uint32(0),
		uint32(3), uint32(cookieNoRuns), uint32(1), uint16(1), uint16(0), uint32(16), uint16(2))
	if b, err = Decode(sparse); err != nil {
		t.Fatal(err)
	}
	if got := b.ToArray(); !slices.Equal(got, []uint64{4, 3<<32 | 1<<16 | 2}) {
		t.Fatalf("sparse = %v", got)
	}
}

func TestDecodeCorrupt(t *testing.T) {
	magic := uint32(magicPortable)
	one := func(key uint32, body ...any) []byte { return le(append([]any{magic, uint64(1), key}, body...)...) }
	bitset := make([]byte, bitsetBytes)
	bitset[0] = 0xff
	cases := map[string][]byte{
		"empty":             nil,
		"short header":      le(magic, uint32(0)),
		"wrong magic":       le(uint32(12345), uint64(0)),
		"native magic":      le(uint32(magicNative), uint64(0)),
		"count too large":   le(magic, uint64(1)<<60),
		"count past data":   le(magic, uint64(2), uint32(0), uint32(cookieNoRuns), uint32(0)),
		"trailing bytes":    append(Encode(NewBitmap(1)), 0),
		"keys not sorted":   le(magic, uint64(2), uint32(1), uint32(cookieNoRuns), uint32(0), uint32(1), uint32(cookieNoRuns), uint32(0)),
		"bad cookie":        one(0, uint32(999)),
		"too many conts":    one(0, uint32(cookieNoRuns), uint32(70000)),
		"conts past data":   one(0, uint32(cookieNoRuns), uint32(100)),
		"array unsorted":    one(0, uint32(cookieNoRuns), uint32(1), uint16(0), uint16(1), uint32(0), uint16(5), uint16(5)),
		"array truncated":   one(0, uint32(cookieNoRuns), uint32(1), uint16(0), uint16(3), uint32(0), uint16(5), uint16(6)),
		"container keys":    one(0, uint32(cookieNoRuns), uint32(2), uint16(1), uint16(0), uint16(1), uint16(0), uint32(0), uint32(0), uint16(1), uint16(2)),
		"bitset card":       one(0, uint32(cookieNoRuns), uint32(1), uint16(0), uint16(5000-1), uint32(0), bitset),
		"bitset truncated":  one(0, uint32(cookieNoRuns), uint32(1), uint16(0), uint16(5000-1), uint32(0), bitset[:100]),
		"run card":          one(0, uint32(cookieRuns), []byte{1}, uint16(0), uint16(9), uint16(1), uint16(0), uint16(3)),
		"runs overlap":      one(0, uint32(cookieRuns), []byte{1}, uint16(0), uint16(7), uint16(2), uint16(0), uint16(3), uint16(2), uint16(3)),
		"run past 65535":    one(0, uint32(cookieRuns), []byte{1}, uint16(0), uint16(9), uint16(1), uint16(65530), uint16(9)),
		"run flags missing": le(magic, uint64(1), uint32(0), uint32(cookieRuns|5<<16)),
	}
	for name, data := range cases {
		b, err := Decode(data)
		if !errors.Is(err, errs.ErrCorruptTable) {
			t.Errorf("%s: want a corrupt-table error, got %v (%d rows)", name, err, b.Cardinality())
		}
	}
	// Every truncation of a valid bitmap fails cleanly.
	full := Encode(sampleBitmaps()["mixed"])
	for n := 0; n < len(full); n += 1 + n/50 {
		if _, err := Decode(full[:n]); err == nil {
			t.Fatalf("truncated to %d of %d bytes: no error", n, len(full))
		}
	}
}
