package expr

import (
	"encoding/binary"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/deltalite-go/deltalite/schema"
)

// Spark's hash (Murmur3 x86_32) and xxhash64 (XXH64) of any number of
// atomic values, seed 42, each argument's hash the seed of the next and
// nulls skipped, as Spark's HashExpression computes them: the bucket
// functions of generated columns (pmod(hash(id), 16)). Values are hashed
// by Spark's binary form: booleans, bytes, shorts, ints and dates as an
// int; longs and timestamps as a long; floats and doubles by their IEEE
// bits (-0 as 0, every NaN as Java's one NaN); decimals of up to 18
// digits by their unscaled long, wider ones by the unscaled value's
// big-endian two's complement bytes; strings by their UTF-8 bytes.
// Murmur3's byte arrays keep Spark's own tail (each trailing byte a
// signed int round), not the reference algorithm's.

// hashFuncs are the functions of this file (their arities are in
// functions).
var hashFuncs = map[string]bool{"hash": true, "xxhash64": true}

const hashSeed = 42

// bindHashFunc binds hash and xxhash64.
func (b *binder) bindHashFunc(e *Call) (node, error) {
	args := make([]node, len(e.Args))
	for i, a := range e.Args {
		n, err := b.bind(a)
		if err != nil {
			return nil, err
		}
		switch t := n.Type(); {
		case isIntegral(t), isFloating(t), isDecimal(t), isString(t), isBool(t), isVoid(t),
			isType(t, schema.Binary), isType(t, schema.Date), isTimestamp(t):
		default:
			return nil, errAt(a, "%s hashes atomic values here, not %s (%s)", e.Name, a, typeName(t))
		}
		args[i] = n
	}
	t := tInt
	if e.Name == "xxhash64" {
		t = tLong
	}
	return b.fold(&callN{fn: e.Name, args: args, t: t}, e)
}

// hashFunction evaluates the functions bindHashFunc binds.
func (ev *evaluator) hashFunction(n *callN, args []value) (value, error) {
	types := make([]schema.Type, len(n.args))
	for i, a := range n.args {
		types[i] = a.Type()
	}
	var buf [8]byte
	return ev.mapRows(args, n.t, false, func(v []any) (any, error) {
		if n.fn == "hash" {
			h := uint32(hashSeed)
			for i, x := range v {
				if x != nil {
					b, word := sparkBytes(x, types[i], &buf)
					h = murmur3Value(b, word, h)
				}
			}
			return int32(h), nil
		}
		h := uint64(hashSeed)
		for i, x := range v {
			if x != nil {
				b, _ := sparkBytes(x, types[i], &buf)
				h = xxh64(b, h)
			}
		}
		return int64(h), nil
	})
}

// sparkBytes is the form Spark hashes a value of type t in: an int's or a
// long's little-endian bytes in buf (word), or a byte array.
func sparkBytes(x any, t schema.Type, buf *[8]byte) (b []byte, word bool) {
	int4 := func(v uint32) ([]byte, bool) {
		binary.LittleEndian.PutUint32(buf[:], v)
		return buf[:4], true
	}
	long8 := func(v uint64) ([]byte, bool) {
		binary.LittleEndian.PutUint64(buf[:], v)
		return buf[:8], true
	}
	switch v := x.(type) {
	case bool:
		if v {
			return int4(1)
		}
		return int4(0)
	case int8:
		return int4(uint32(v))
	case int16:
		return int4(uint32(v))
	case int32:
		return int4(uint32(v))
	case arrow.Date32:
		return int4(uint32(v))
	case int64:
		return long8(uint64(v))
	case arrow.Timestamp:
		return long8(uint64(v))
	case float32:
		switch {
		case v == 0:
			return int4(0)
		case v != v:
			return int4(0x7fc00000)
		}
		return int4(math.Float32bits(v))
	case float64:
		switch {
		case v == 0:
			return long8(0)
		case v != v:
			return long8(0x7ff8000000000000)
		}
		return long8(math.Float64bits(v))
	case decimal128.Num:
		if d, ok := t.(*schema.Decimal); ok && d.Precision <= 18 {
			return long8(v.LowBits())
		}
		return twosComplement(v.BigInt()), false
	case string:
		return []byte(v), false
	case []byte:
		return v, false
	}
	return nil, false
}

// twosComplement is Java's BigInteger.toByteArray: the shortest big-endian
// two's complement bytes of x.
func twosComplement(x *big.Int) []byte {
	if x.Sign() >= 0 {
		b := x.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -x - 1 has the complement's bits of x, byte by byte.
	m := new(big.Int).Not(x).Bytes()
	out := make([]byte, len(m))
	for i, c := range m {
		out[i] = ^c
	}
	if len(out) == 0 || out[0]&0x80 == 0 {
		out = append([]byte{0xff}, out...)
	}
	return out
}

// murmur3Value is Spark's Murmur3_x86_32 of b with seed h: hashInt and
// hashLong for a word (the reference algorithm on its bytes),
// hashUnsafeBytes for a byte array.
func murmur3Value(b []byte, word bool, h uint32) uint32 {
	if word {
		return murmur3Words(b, h)
	}
	aligned := len(b) &^ 3
	h = murmur3Rounds(b[:aligned], h)
	for _, c := range b[aligned:] {
		h = murmur3Mix(h, murmur3K(uint32(int32(int8(c)))))
	}
	return murmur3Final(h, len(b))
}

// murmur3Words hashes b, whose length is a multiple of four.
func murmur3Words(b []byte, h uint32) uint32 {
	return murmur3Final(murmur3Rounds(b, h), len(b))
}

func murmur3Rounds(b []byte, h uint32) uint32 {
	for i := 0; i+4 <= len(b); i += 4 {
		h = murmur3Mix(h, murmur3K(binary.LittleEndian.Uint32(b[i:])))
	}
	return h
}

func murmur3K(k uint32) uint32 { return bits.RotateLeft32(k*0xcc9e2d51, 15) * 0x1b873593 }

func murmur3Mix(h, k uint32) uint32 { return bits.RotateLeft32(h^k, 13)*5 + 0xe6546b64 }

func murmur3Final(h uint32, n int) uint32 {
	h ^= uint32(n)
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	return h ^ h>>16
}

const (
	xxP1 uint64 = 0x9E3779B185EBCA87
	xxP2 uint64 = 0xC2B2AE3D27D4EB4F
	xxP3 uint64 = 0x165667B19E3779F9
	xxP4 uint64 = 0x85EBCA77C2B2AE63
	xxP5 uint64 = 0x27D4EB2F165667C5
)

// xxh64 is XXH64 of b with seed, which Spark's XXH64 computes for ints
// and longs (on their little-endian bytes) and byte arrays alike.
func xxh64(b []byte, seed uint64) uint64 {
	n := len(b)
	var h uint64
	round := func(acc, in uint64) uint64 { return bits.RotateLeft64(acc+in*xxP2, 31) * xxP1 }
	if n >= 32 {
		v1, v2, v3, v4 := seed+xxP1+xxP2, seed+xxP2, seed, seed-xxP1
		for len(b) >= 32 {
			v1 = round(v1, binary.LittleEndian.Uint64(b))
			v2 = round(v2, binary.LittleEndian.Uint64(b[8:]))
			v3 = round(v3, binary.LittleEndian.Uint64(b[16:]))
			v4 = round(v4, binary.LittleEndian.Uint64(b[24:]))
			b = b[32:]
		}
		h = bits.RotateLeft64(v1, 1) + bits.RotateLeft64(v2, 7) + bits.RotateLeft64(v3, 12) + bits.RotateLeft64(v4, 18)
		for _, v := range []uint64{v1, v2, v3, v4} {
			h = (h^round(0, v))*xxP1 + xxP4
		}
	} else {
		h = seed + xxP5
	}
	h += uint64(n)
	for ; len(b) >= 8; b = b[8:] {
		h = bits.RotateLeft64(h^round(0, binary.LittleEndian.Uint64(b)), 27)*xxP1 + xxP4
	}
	if len(b) >= 4 {
		h = bits.RotateLeft64(h^uint64(binary.LittleEndian.Uint32(b))*xxP1, 23)*xxP2 + xxP3
		b = b[4:]
	}
	for _, c := range b {
		h = bits.RotateLeft64(h^uint64(c)*xxP5, 11) * xxP1
	}
	h ^= h >> 33
	h *= xxP2
	h ^= h >> 29
	h *= xxP3
	return h ^ h>>32
}
