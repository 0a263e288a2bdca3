package datafile

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/compress"
	gosnappy "github.com/golang/snappy"
	"github.com/klauspost/compress/snappy"
)

// TestSnappyEncodings: random blocks are stored as one literal, text, keys
// and short blocks are compressed as the reference Snappy encoder does
// (keys within 3% of s2's "better" Snappy), and every
// block decodes to itself with a standard Snappy decoder.
func TestSnappyEncodings(t *testing.T) {
	codec, err := compress.GetCodec(compress.Codecs.Snappy) // as registered at init
	if err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 5000)
	// A plain page of UUID-shaped keys: a length prefix and 36 hex digits.
	var keys []byte
	for len(keys) < 1<<20 {
		id := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", rnd.Uint32(), rnd.Uint32()&0xffff, rnd.Uint32()&0xffff, rnd.Uint32()&0xffff, rnd.Uint64()&(1<<48-1))
		keys = binary.LittleEndian.AppendUint32(keys, uint32(len(id)))
		keys = append(keys, id...)
	}
	for _, tc := range []struct {
		name    string
		src     []byte
		literal bool
	}{
		{"random", random, true},
		{"text", text, false},
		{"keys", keys, false},
		{"short random", random[:1000], false},
		{"empty", nil, false},
	} {
		enc := codec.Encode(nil, tc.src)
		literal := len(tc.src) > 0 && len(enc) == binary.PutUvarint(make([]byte, 10), uint64(len(tc.src)))+5+len(tc.src)
		if literal != tc.literal {
			t.Errorf("%s: %d bytes encoded to %d (one literal: %v)", tc.name, len(tc.src), len(enc), literal)
		}
		if ref := gosnappy.Encode(nil, tc.src); !literal && !bytes.Equal(enc, ref) {
			t.Errorf("%s: %d bytes encoded to %d, not as the reference Snappy encoder does (%d)", tc.name, len(tc.src), len(enc), len(ref))
		}
		if better := snappy.Encode(nil, tc.src); !literal && len(enc) > len(better)+len(better)*3/100 {
			t.Errorf("%s: %d bytes encoded to %d, s2's better Snappy gives %d", tc.name, len(tc.src), len(enc), len(better))
		}
		dec, err := snappy.Decode(nil, enc)
		if err != nil || !bytes.Equal(dec, tc.src) {
			t.Fatalf("%s: decoded %d bytes, %v", tc.name, len(dec), err)
		}
	}
}
