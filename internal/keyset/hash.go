package keyset

import "hash/maphash"

// mix64 is a bijective 64-bit finaliser (the splitmix64 one): every input
// bit affects every output bit, so sequential keys spread over the table.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

// hasher hashes keys with a per-set random seed, so that crafted keys
// cannot force collisions across sets.
type hasher struct {
	seed  maphash.Seed
	salt  uint64
	salt2 uint64
}

func newHasher() hasher {
	s := maphash.MakeSeed()
	return hasher{seed: s, salt: maphash.Bytes(s, []byte("keyset")) | 1, salt2: maphash.Bytes(s, []byte("keyset-hi"))}
}

func (h *hasher) word(v uint64) uint64 { return mix64(v ^ h.salt) }

func (h *hasher) pair(lo, hi uint64) uint64 { return mix64(mix64(lo^h.salt) ^ hi ^ h.salt2) }

func (h *hasher) bytes(b []byte) uint64 { return maphash.Bytes(h.seed, b) }
