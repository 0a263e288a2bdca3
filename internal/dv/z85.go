package dv

import "fmt"

// z85Alphabet is the ZeroMQ Base-85 alphabet (RFC 32/Z85), which Delta uses
// for UUIDs in DV file names and for inline bitmaps.
const z85Alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"

var z85Index = func() (t [256]int8) {
	for i := range t {
		t[i] = -1
	}
	for i := 0; i < len(z85Alphabet); i++ {
		t[z85Alphabet[i]] = int8(i)
	}
	return t
}()

// z85Encode encodes data, zero-padded to a multiple of 4 bytes as Delta
// does for inline bitmaps; the reader trims the padding by sizeInBytes.
func z85Encode(data []byte) string {
	n := (len(data) + 3) / 4
	out := make([]byte, 0, n*5)
	for i := 0; i < n; i++ {
		var v uint32
		for j := 0; j < 4; j++ {
			v <<= 8
			if k := i*4 + j; k < len(data) {
				v |= uint32(data[k])
			}
		}
		var block [5]byte
		for j := 4; j >= 0; j-- {
			block[j] = z85Alphabet[v%85]
			v /= 85
		}
		out = append(out, block[:]...)
	}
	return string(out)
}

// z85Decode decodes s, whose length must be a multiple of 5. The last block
// may also be a short tail as delta-kernel-rs writes it: k leading '#'
// stand for k missing bytes, and the block decodes to 4-k bytes.
func z85Decode(s string) ([]byte, error) {
	if len(s)%5 != 0 {
		return nil, fmt.Errorf("Z85 text of %d characters is not a multiple of 5", len(s))
	}
	out := make([]byte, 0, len(s)/5*4)
	for i := 0; i < len(s); i += 5 {
		missing := 0
		if i+5 == len(s) {
			for missing < 3 && s[i+missing] == '#' {
				missing++
			}
		}
		var v uint64
		for j := missing; j < 5; j++ {
			d := z85Index[s[i+j]]
			if d < 0 {
				return nil, fmt.Errorf("character %q at %d is not in the Z85 alphabet", s[i+j], i+j)
			}
			v = v*85 + uint64(d)
		}
		if limit := uint64(1) << (8 * (4 - missing)); v >= limit {
			return nil, fmt.Errorf("Z85 block %q at %d overflows %d bytes", s[i:i+5], i, 4-missing)
		}
		block := []byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
		out = append(out, block[missing:]...)
	}
	return out, nil
}
