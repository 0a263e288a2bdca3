package keyset

import "encoding/binary"

// arenaBlock is the size of an arena block. Keys never span blocks; a key
// longer than a block gets a block of its own.
const arenaBlock = 256 << 10

// arena stores variable-length keys in large blocks, each key as a uvarint
// length and its bytes, addressed by a ref (block index << 32 | offset).
// Growing never copies stored keys.
type arena struct {
	blocks [][]byte
	bytes  int64 // capacity of all blocks
}

func (a *arena) add(key []byte) uint64 {
	need := binary.MaxVarintLen64 + len(key)
	last := len(a.blocks) - 1
	if last < 0 || cap(a.blocks[last])-len(a.blocks[last]) < need {
		size := max(arenaBlock, need)
		a.blocks = append(a.blocks, make([]byte, 0, size))
		a.bytes += int64(size)
		last++
	}
	b := a.blocks[last]
	off := len(b)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	a.blocks[last] = b
	return uint64(last)<<32 | uint64(off)
}

func (a *arena) get(ref uint64) []byte {
	b := a.blocks[ref>>32][uint32(ref):]
	n, k := binary.Uvarint(b)
	return b[k : k+int(n)]
}
