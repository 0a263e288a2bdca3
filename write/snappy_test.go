package write

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// TestSnappyEncodings: random blocks are stored as one literal, text and
// short blocks are compressed, and every block decodes to itself with a
// standard Snappy decoder.
func TestSnappyEncodings(t *testing.T) {
	rnd := rand.New(rand.NewPCG(5, 6))
	random := make([]byte, 300<<10)
	for i := range random {
		random[i] = byte(rnd.Uint32())
	}
	text := bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog; "), 5000)
	for _, tc := range []struct {
		name    string
		src     []byte
		literal bool
	}{
		{"random", random, true},
		{"text", text, false},
		{"short random", random[:1000], false},
		{"empty", nil, false},
	} {
		enc := encodeSnappy(nil, tc.src)
		literal := len(tc.src) > 0 && len(enc) == binary.PutUvarint(make([]byte, 10), uint64(len(tc.src)))+5+len(tc.src)
		if literal != tc.literal {
			t.Errorf("%s: %d bytes encoded to %d (one literal: %v)", tc.name, len(tc.src), len(enc), literal)
		}
		dec, err := snappy.Decode(nil, enc)
		if err != nil || !bytes.Equal(dec, tc.src) {
			t.Fatalf("%s: decoded %d bytes, %v", tc.name, len(dec), err)
		}
	}
}
