package keyset

import (
	"encoding/binary"
	"errors"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// mode is how a set stores its keys.
type mode uint8

const (
	modeWord  mode = iota // one 8-byte column: the key is one word
	modePair              // one decimal or two 8-byte columns: two words
	modeBytes             // anything else: canonical bytes in the arena
)

// MaxLen is the most keys a set holds.
const MaxLen = 1<<31 - 1

// ErrFull is returned by Insert past MaxLen keys.
var ErrFull = errors.New("key set is full")

// maxLoad is the fill ratio (in 1/8ths) at which the slot array doubles.
const maxLoad = 6

// Set is a set of key tuples. Entries are numbered 0, 1, ... in insertion
// order, so callers can keep per-key data in parallel slices.
type Set struct {
	specs []spec
	mode  mode
	raw   bool // modeBytes with one bytes column: the key is the value itself
	h     hasher

	// slots hold tag<<32 | entry+1 (0: empty); tag is the high half of the
	// key's hash, position the low bits.
	slots []uint64
	mask  uint64
	n     int

	words []uint64    // modeWord
	pairs [][2]uint64 // modePair
	refs  []uint64    // modeBytes: arena refs
	ar    arena
}

// New returns an empty set of tuples of the given column types (the
// table's Arrow types of the key columns), sized for about sizeHint keys.
// No columns at all is allowed: the one possible key is the empty tuple.
func New(types []arrow.DataType, sizeHint int) (*Set, error) {
	s := &Set{h: newHasher()}
	for _, dt := range types {
		sp, err := specOf(dt)
		if err != nil {
			return nil, err
		}
		s.specs = append(s.specs, sp)
	}
	switch {
	case len(s.specs) == 1 && s.specs[0].dom == domWord:
		s.mode = modeWord
	case len(s.specs) == 1 && s.specs[0].dom == domDecimal,
		len(s.specs) == 2 && s.specs[0].dom == domWord && s.specs[1].dom == domWord:
		s.mode = modePair
	default:
		s.mode = modeBytes
		s.raw = len(s.specs) == 1
	}
	n := uint64(16)
	if sizeHint > 0 {
		n = max(n, 1<<bits.Len64(uint64(sizeHint)*8/maxLoad))
	}
	s.slots = make([]uint64, n)
	s.mask = n - 1
	return s, nil
}

// Len is the number of keys in the set.
func (s *Set) Len() int { return s.n }

// Bytes is the memory the set holds.
func (s *Set) Bytes() int64 {
	return int64(cap(s.slots))*8 + int64(cap(s.words))*8 + int64(cap(s.pairs))*16 + int64(cap(s.refs))*8 + s.ar.bytes
}

// key is one tuple in the set's storage form.
type key struct {
	hash   uint64
	w0, w1 uint64
	b      []byte
}

func (s *Set) equal(e uint32, k *key) bool {
	switch s.mode {
	case modeWord:
		return s.words[e] == k.w0
	case modePair:
		p := s.pairs[e]
		return p[0] == k.w0 && p[1] == k.w1
	}
	return string(s.ar.get(s.refs[e])) == string(k.b)
}

// find returns the entry holding k, or -1 and the empty slot where k goes.
func (s *Set) find(k *key) (int, uint64) {
	tag := k.hash >> 32
	pos := k.hash & s.mask
	for {
		v := s.slots[pos]
		if v == 0 {
			return -1, pos
		}
		if v>>32 == tag && s.equal(uint32(v)-1, k) {
			return int(uint32(v) - 1), pos
		}
		pos = (pos + 1) & s.mask
	}
}

func (s *Set) insert(k *key) (int, bool, error) {
	e, pos := s.find(k)
	if e >= 0 {
		return e, false, nil
	}
	if s.n >= MaxLen {
		return -1, false, ErrFull
	}
	if uint64(s.n+1)*8 > uint64(len(s.slots))*maxLoad {
		s.grow()
		_, pos = s.find(k)
	}
	e = s.n
	switch s.mode {
	case modeWord:
		s.words = append(s.words, k.w0)
	case modePair:
		s.pairs = append(s.pairs, [2]uint64{k.w0, k.w1})
	default:
		s.refs = append(s.refs, s.ar.add(k.b))
	}
	s.slots[pos] = k.hash>>32<<32 | uint64(e+1)
	s.n++
	return e, true, nil
}

// grow doubles the slot array and places every entry again.
func (s *Set) grow() {
	n := uint64(len(s.slots)) * 2
	s.slots = make([]uint64, n)
	s.mask = n - 1
	for e := 0; e < s.n; e++ {
		var h uint64
		switch s.mode {
		case modeWord:
			h = s.h.word(s.words[e])
		case modePair:
			h = s.h.pair(s.pairs[e][0], s.pairs[e][1])
		default:
			h = s.h.bytes(s.ar.get(s.refs[e]))
		}
		pos := h & s.mask
		for s.slots[pos] != 0 {
			pos = (pos + 1) & s.mask
		}
		s.slots[pos] = h>>32<<32 | uint64(e+1)
	}
}

// Binding reads the key tuples of one batch's key columns. It is not safe
// for concurrent use, but many Bindings may Find in one set at once.
type Binding struct {
	s       *Set
	cols    []bound
	nulls   []func(int) bool
	scratch []byte
}

// Bind prepares to read keys from cols, one array per key column in the
// set's order, all of one length. The arrays must outlive the Binding's use.
func (s *Set) Bind(cols []arrow.Array) (*Binding, error) {
	if len(cols) != len(s.specs) {
		return nil, errors.New("keyset: wrong number of key columns")
	}
	b := &Binding{s: s, cols: make([]bound, len(cols))}
	for i, a := range cols {
		c, err := bind(s.specs[i], a)
		if err != nil {
			return nil, err
		}
		b.cols[i] = c
		if c.nulls != nil {
			b.nulls = append(b.nulls, c.nulls)
		}
	}
	return b, nil
}

// Null reports whether row i has a null in any key column: such a tuple is
// never stored and never matches.
func (b *Binding) Null(i int) bool {
	for _, f := range b.nulls {
		if f(i) {
			return true
		}
	}
	return false
}

// HasNulls reports whether any row of the batch may have a null key.
func (b *Binding) HasNulls() bool { return len(b.nulls) > 0 }

func (b *Binding) key(i int, k *key) {
	s := b.s
	switch s.mode {
	case modeWord:
		k.w0 = b.cols[0].w.word(i)
		k.hash = s.h.word(k.w0)
		return
	case modePair:
		if len(b.cols) == 1 {
			k.w0, k.w1 = b.cols[0].p.pair(i)
		} else {
			k.w0, k.w1 = b.cols[0].w.word(i), b.cols[1].w.word(i)
		}
		k.hash = s.h.pair(k.w0, k.w1)
		return
	}
	if s.raw {
		k.b = b.cols[0].b.raw(i)
	} else {
		buf := b.scratch[:0]
		for _, c := range b.cols {
			switch {
			case c.w != nil:
				buf = binary.LittleEndian.AppendUint64(buf, c.w.word(i))
			case c.p != nil:
				lo, hi := c.p.pair(i)
				buf = binary.LittleEndian.AppendUint64(buf, lo)
				buf = binary.LittleEndian.AppendUint64(buf, hi)
			default:
				v := c.b.raw(i)
				buf = binary.AppendUvarint(buf, uint64(len(v)))
				buf = append(buf, v...)
			}
		}
		b.scratch = buf
		k.b = buf
	}
	k.hash = s.h.bytes(k.b)
}

// Find returns the entry of row i's key, or -1 when the set does not hold
// it or the key has a null.
func (b *Binding) Find(i int) int {
	if len(b.nulls) > 0 && b.Null(i) {
		return -1
	}
	var k key
	b.key(i, &k)
	e, _ := b.s.find(&k)
	return e
}

// Insert adds row i's key. It returns the key's entry and whether it was
// added (false: the set already held it). A key with a null is not
// stored: Insert returns -1, false. Insert must not run concurrently with
// anything else on the set.
func (b *Binding) Insert(i int) (int, bool, error) {
	if len(b.nulls) > 0 && b.Null(i) {
		return -1, false, nil
	}
	var k key
	b.key(i, &k)
	return b.s.insert(&k)
}
