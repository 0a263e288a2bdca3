package datafile

import (
	"encoding/binary"

	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/s2"
)

// pageSnappy is arrow-go's Snappy codec with another encoder. A page whose
// samples do not compress is stored as one Snappy literal rather than
// searched for matches it does not have (random strings, already
// compressed blobs): searching spent 15% of an upsert's CPU on a random
// payload. Other pages go to the reference Snappy encoder (golang/snappy,
// a port of Google's, as delta-rs's is), whose output is the size Snappy
// gives: arrow-go's encoder (s2's "better" Snappy) writes 1.5% less (2%
// on a page of keys) but was 37% of the CPU of the write benchmark, twice
// the reference's time;
// s2's faster encoder left a page of UUID-shaped keys 5% larger. The
// output is plain Snappy either way; decoding is unchanged.
type pageSnappy struct{ compress.Codec }

func (s pageSnappy) Encode(dst, src []byte) []byte {
	if len(src) >= probeMinBlock && !compressible(src) {
		return snappyLiteral(dst, src)
	}
	return snappy.Encode(dst, src)
}

func (s pageSnappy) EncodeLevel(dst, src []byte, _ int) []byte { return s.Encode(dst, src) }

// The codec registry is process-wide; replacing the Snappy entry before any
// goroutine runs is the only way arrow-go offers to choose the encoder.
func init() {
	if c, err := compress.GetCodec(compress.Codecs.Snappy); err == nil {
		compress.RegisterCodec(compress.Codecs.Snappy, pageSnappy{c})
	}
}

// Incompressibility probe: three windows of a block of at least
// probeMinBlock bytes are compressed; if they shrink by less than 1/32 the
// block is stored literally. The probe uses s2's "better" Snappy, which
// finds more than the page encoder: s2's faster one saw too little of a
// page of keys to compress it.
const (
	probeWindow   = 4 << 10
	probeMinBlock = 64 << 10
)

func compressible(src []byte) bool {
	var scratch [probeWindow + probeWindow/2]byte
	in, out := 0, 0
	for _, at := range []int{0, len(src)/2 - probeWindow/2, len(src) - probeWindow} {
		w := src[at : at+probeWindow]
		in += len(w)
		out += len(s2.EncodeSnappyBetter(scratch[:], w))
	}
	return out < in-in/32
}

// snappyLiteral encodes src as a Snappy block of one literal: the varint
// length of the block, a literal tag with a 4-byte length, the bytes.
func snappyLiteral(dst, src []byte) []byte {
	need := binary.MaxVarintLen64 + 5 + len(src)
	if cap(dst) < need {
		dst = make([]byte, need)
	}
	dst = dst[:cap(dst)]
	n := binary.PutUvarint(dst, uint64(len(src)))
	dst[n] = 63 << 2 // literal, length-1 in the next 4 bytes
	binary.LittleEndian.PutUint32(dst[n+1:], uint32(len(src)-1))
	n += 5
	n += copy(dst[n:], src)
	return dst[:n]
}
