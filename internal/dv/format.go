package dv

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

	"github.com/deltalite-go/deltalite/internal/errs"
)

// Serialized RoaringBitmapArray (PROTOCOL.md, "Deletion Vector Format"):
// a little-endian magic number, a little-endian uint64 count of 32-bit
// bitmaps, then per bitmap a little-endian uint32 key (the high 32 bits of
// its rows) and the bitmap in the portable roaring format
// (github.com/RoaringBitmap/RoaringFormatSpec).
const (
	magicPortable = 1681511377
	// magicNative marks Spark's in-memory-only layout, which the protocol
	// forbids on disk; naming it makes the error actionable.
	magicNative = 1681511376

	headerSize = 4 + 8

	cookieNoRuns      = 12346 // uint32 cookie, then uint32 container count
	cookieRuns        = 12347 // low 16 bits; high 16 bits are count-1
	noOffsetThreshold = 4     // with cookieRuns, fewer containers have no offset header
	maxArrayCard      = 4096  // larger non-run containers are 65536-bit bitsets
	bitsetBytes       = 8192
	maxContainers     = 1 << 16
	minBitmap32Size   = 8 // cookieNoRuns and a zero count
)

// Decode parses a serialized RoaringBitmapArray in the portable format.
// Any inconsistency is an errs.CorruptTable error.
func Decode(data []byte) (*Bitmap, error) {
	b, err := decode(data)
	if err != nil {
		return nil, &errs.Error{Kind: errs.CorruptTable, Msg: "invalid deletion vector bitmap", Err: err}
	}
	return b, nil
}

// Encode serializes b as a portable RoaringBitmapArray, run-compressed where
// that is smaller. Rows must be below 2^63 for other engines to read it.
func Encode(b *Bitmap) []byte {
	rb := roaring64.New()
	if b != nil && b.rb != nil {
		rb = b.rb.Clone() // RunOptimize changes the representation; b stays untouched
	}
	rb.RunOptimize()
	var buf bytes.Buffer
	buf.Grow(4 + int(rb.GetSerializedSizeInBytes()))
	_ = binary.Write(&buf, binary.LittleEndian, uint32(magicPortable))
	_, _ = rb.WriteTo(&buf) // a bytes.Buffer never fails a write
	return buf.Bytes()
}

// cursor reads fields from a byte slice, failing instead of running past it.
type cursor struct {
	b   []byte
	pos int
}

func (c *cursor) take(n int, what string) ([]byte, error) {
	if n < 0 || n > len(c.b)-c.pos {
		return nil, fmt.Errorf("%s: need %d bytes at offset %d, only %d left", what, n, c.pos, len(c.b)-c.pos)
	}
	s := c.b[c.pos : c.pos+n]
	c.pos += n
	return s, nil
}

func (c *cursor) u16(what string) (uint16, error) {
	s, err := c.take(2, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(s), nil
}

func (c *cursor) u32(what string) (uint32, error) {
	s, err := c.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(s), nil
}

func (c *cursor) left() int { return len(c.b) - c.pos }

func decode(data []byte) (*Bitmap, error) {
	if len(data) < headerSize {
		return nil, fmt.Errorf("%d bytes is shorter than the %d-byte header", len(data), headerSize)
	}
	switch magic := binary.LittleEndian.Uint32(data); magic {
	case magicPortable:
	case magicNative:
		return nil, fmt.Errorf("magic number %d is the native RoaringBitmapArray layout, which Delta forbids on disk; want %d (portable)", magic, magicPortable)
	default:
		return nil, fmt.Errorf("magic number %d, want %d", magic, magicPortable)
	}
	n := binary.LittleEndian.Uint64(data[4:])
	c := &cursor{b: data, pos: headerSize}
	// Bound the count by the input before trusting it.
	if n > uint64(c.left()/(4+minBitmap32Size)) {
		return nil, fmt.Errorf("header claims %d bitmaps but only %d bytes follow", n, c.left())
	}
	rb := roaring64.New()
	d := &decoder{rb: rb}
	for i := uint64(0); i < n; i++ {
		high, err := c.u32("bitmap key")
		if err != nil {
			return nil, err
		}
		if i > 0 && high <= d.lastHigh {
			return nil, fmt.Errorf("bitmap keys not ascending: %d after %d", high, d.lastHigh)
		}
		d.lastHigh = high
		if err := d.bitmap32(c, high); err != nil {
			return nil, fmt.Errorf("bitmap %d (key %d): %w", i, high, err)
		}
	}
	if c.left() != 0 {
		return nil, fmt.Errorf("%d unexpected bytes after the last bitmap", c.left())
	}
	// Every container was checked against its header; this guards the
	// building of the in-memory set itself.
	if got := rb.GetCardinality(); got != d.total {
		return nil, fmt.Errorf("decoded %d rows where the headers promise %d", got, d.total)
	}
	return &Bitmap{rb: rb}, nil
}

type decoder struct {
	rb       *roaring64.Bitmap
	lastHigh uint32
	total    uint64   // rows the container headers promise
	buf      []uint64 // reused for the values of one container
}

// bitmap32 reads one portable 32-bit roaring bitmap whose rows share the
// high 32 bits high. The offset header, when present, is skipped: Java
// readers ignore it too, so trusting it could reject tables Spark reads.
func (d *decoder) bitmap32(c *cursor, high uint32) error {
	cookie, err := c.u32("cookie")
	if err != nil {
		return err
	}
	var (
		size       int
		runFlags   []byte
		hasOffsets bool
	)
	switch {
	case cookie == cookieNoRuns:
		n, err := c.u32("container count")
		if err != nil {
			return err
		}
		if n > maxContainers {
			return fmt.Errorf("%d containers, at most %d possible", n, maxContainers)
		}
		size, hasOffsets = int(n), true
	case cookie&0xFFFF == cookieRuns:
		size = int(cookie>>16) + 1
		if runFlags, err = c.take((size+7)/8, "run flags"); err != nil {
			return err
		}
		hasOffsets = size >= noOffsetThreshold
	default:
		return fmt.Errorf("unknown roaring cookie %d", cookie)
	}
	// Every container takes at least 4 header bytes and 2 data bytes.
	if size*6 > c.left() {
		return fmt.Errorf("%d containers cannot fit in the %d bytes left", size, c.left())
	}
	header, err := c.take(4*size, "container headers")
	if err != nil {
		return err
	}
	if hasOffsets {
		if _, err := c.take(4*size, "container offsets"); err != nil {
			return err
		}
	}
	prevKey := -1
	for i := 0; i < size; i++ {
		key := binary.LittleEndian.Uint16(header[4*i:])
		card := int(binary.LittleEndian.Uint16(header[4*i+2:])) + 1
		if int(key) <= prevKey {
			return fmt.Errorf("container keys not ascending: %d after %d", key, prevKey)
		}
		prevKey = int(key)
		d.total += uint64(card)
		base := uint64(high)<<32 | uint64(key)<<16
		isRun := runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0
		switch {
		case isRun:
			err = d.runContainer(c, base, card)
		case card <= maxArrayCard:
			err = d.arrayContainer(c, base, card)
		default:
			err = d.bitsetContainer(c, base, card)
		}
		if err != nil {
			return fmt.Errorf("container %d (key %d): %w", i, key, err)
		}
	}
	return nil
}

func (d *decoder) runContainer(c *cursor, base uint64, card int) error {
	nruns, err := c.u16("run count")
	if err != nil {
		return err
	}
	runs, err := c.take(4*int(nruns), "runs")
	if err != nil {
		return err
	}
	total, prevEnd := 0, -1
	for j := 0; j < int(nruns); j++ {
		start := int(binary.LittleEndian.Uint16(runs[4*j:]))
		end := start + int(binary.LittleEndian.Uint16(runs[4*j+2:])) // inclusive
		if start <= prevEnd {
			return fmt.Errorf("run %d starts at %d, inside or before the previous run ending at %d", j, start, prevEnd)
		}
		if end > 0xFFFF {
			return fmt.Errorf("run %d from %d ends past the container at %d", j, start, end)
		}
		total += end - start + 1
		prevEnd = end
	}
	if total != card {
		return fmt.Errorf("runs hold %d rows, header says %d", total, card)
	}
	for j := 0; j < int(nruns); j++ {
		start := uint64(binary.LittleEndian.Uint16(runs[4*j:]))
		length := uint64(binary.LittleEndian.Uint16(runs[4*j+2:]))
		first, last := base+start, base+start+length
		if last == ^uint64(0) { // the very last row: last+1 would wrap to 0
			d.rb.AddRange(first, last)
			d.rb.Add(last)
			continue
		}
		d.rb.AddRange(first, last+1)
	}
	return nil
}

func (d *decoder) arrayContainer(c *cursor, base uint64, card int) error {
	vals, err := c.take(2*card, "array container")
	if err != nil {
		return err
	}
	d.buf = d.buf[:0]
	prev := -1
	for j := 0; j < card; j++ {
		v := int(binary.LittleEndian.Uint16(vals[2*j:]))
		if v <= prev {
			return fmt.Errorf("array values not ascending: %d after %d", v, prev)
		}
		prev = v
		d.buf = append(d.buf, base|uint64(v))
	}
	d.rb.AddMany(d.buf)
	return nil
}

func (d *decoder) bitsetContainer(c *cursor, base uint64, card int) error {
	words, err := c.take(bitsetBytes, "bitset container")
	if err != nil {
		return err
	}
	d.buf = d.buf[:0]
	for w := 0; w < bitsetBytes/8; w++ {
		word := binary.LittleEndian.Uint64(words[8*w:])
		for word != 0 {
			t := bits.TrailingZeros64(word)
			d.buf = append(d.buf, base|uint64(w*64+t))
			word &= word - 1
		}
	}
	if len(d.buf) != card {
		return fmt.Errorf("bitset holds %d rows, header says %d", len(d.buf), card)
	}
	d.rb.AddMany(d.buf)
	return nil
}
