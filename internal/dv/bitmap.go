package dv

import (
	"iter"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Bitmap is a set of deleted row positions (0-based indexes of rows in a
// data file), with the semantics of Delta's RoaringBitmapArray.
//
// The zero value and a nil *Bitmap are empty sets, so a file without a DV
// can be handled as one with an empty DV. Reads may run concurrently; Add,
// AddRange and Or must not run concurrently with anything else.
type Bitmap struct {
	rb *roaring64.Bitmap
}

// NewBitmap returns a bitmap holding rows.
func NewBitmap(rows ...uint64) *Bitmap {
	b := &Bitmap{rb: roaring64.New()}
	b.rb.AddMany(rows)
	return b
}

func (b *Bitmap) init() {
	if b.rb == nil {
		b.rb = roaring64.New()
	}
}

// Add marks row as deleted.
func (b *Bitmap) Add(row uint64) {
	b.init()
	b.rb.Add(row)
}

// AddRange marks the rows in [start, end) as deleted.
func (b *Bitmap) AddRange(start, end uint64) {
	b.init()
	b.rb.AddRange(start, end)
}

// Or adds every row of o.
func (b *Bitmap) Or(o *Bitmap) {
	if o == nil || o.rb == nil {
		return
	}
	b.init()
	b.rb.Or(o.rb)
}

// AndNot returns a new bitmap of the rows of b that are not in o.
func (b *Bitmap) AndNot(o *Bitmap) *Bitmap {
	out := b.Clone()
	if o != nil && o.rb != nil {
		out.init()
		out.rb.AndNot(o.rb)
	}
	return out
}

// Contains reports whether row is deleted.
func (b *Bitmap) Contains(row uint64) bool {
	return b != nil && b.rb != nil && b.rb.Contains(row)
}

// Cardinality is the number of deleted rows.
func (b *Bitmap) Cardinality() uint64 {
	if b == nil || b.rb == nil {
		return 0
	}
	return b.rb.GetCardinality()
}

// IsEmpty reports whether no row is deleted.
func (b *Bitmap) IsEmpty() bool { return b.Cardinality() == 0 }

// ToArray returns the deleted rows in ascending order.
func (b *Bitmap) ToArray() []uint64 {
	if b == nil || b.rb == nil {
		return nil
	}
	return b.rb.ToArray()
}

// All yields the deleted rows in ascending order.
func (b *Bitmap) All() iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		if b == nil || b.rb == nil {
			return
		}
		it := b.rb.Iterator()
		for it.HasNext() {
			if !yield(it.Next()) {
				return
			}
		}
	}
}

// Range yields the deleted rows in [lo, hi) in ascending order, skipping
// the rows below lo without visiting them: a scan asks for the deletions
// of one record batch at a time.
func (b *Bitmap) Range(lo, hi uint64) iter.Seq[uint64] {
	return func(yield func(uint64) bool) {
		if b == nil || b.rb == nil || lo >= hi {
			return
		}
		it := b.rb.Iterator()
		it.AdvanceIfNeeded(lo)
		for it.HasNext() {
			v := it.Next()
			if v >= hi || !yield(v) {
				return
			}
		}
	}
}

// Clone returns an independent copy.
func (b *Bitmap) Clone() *Bitmap {
	if b == nil || b.rb == nil {
		return &Bitmap{rb: roaring64.New()}
	}
	return &Bitmap{rb: b.rb.Clone()}
}

// Equal reports whether b and o hold the same rows.
func (b *Bitmap) Equal(o *Bitmap) bool {
	if b.IsEmpty() || o.IsEmpty() {
		return b.IsEmpty() && o.IsEmpty()
	}
	return b.rb.Equals(o.rb)
}
