package upsert

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/deltalite-go/deltalite/internal/errs"
	"github.com/deltalite-go/deltalite/internal/keyset"
)

// keys are a partition's source keys: the set, per entry whether it
// deletes its key and whether it matched a table row, and the distinct
// values of each key column for pruning by bounds.
type keys struct {
	set     *keyset.Set
	del     []uint64 // bit per entry
	matched []uint64 // bit per entry, set concurrently by the rewrite
	// rowIDs are, on a table with row tracking, the row id of the table
	// row each entry updates (-1: none yet), set concurrently by the
	// rewrite: the source row written in its place keeps it.
	rowIDs []atomic.Int64
	values []*valueSet

	upserts     int64 // source rows that are not deletes
	nullKeys    int64 // source rows with a null key
	nullUpserts int64 // of those, rows that are not deletes (they insert)
	bytes       int64
}

func bit(bits []uint64, e int) bool { return bits[e>>6]&(1<<(e&63)) != 0 }

func (k *keys) isDelete(e int) bool { return bit(k.del, e) }

func (k *keys) markMatched(e int) { atomic.OrUint64(&k.matched[e>>6], 1<<(e&63)) }

// inserted counts the upsert keys that matched no table row.
func (k *keys) inserted() int64 {
	var n int64
	for e := 0; e < k.set.Len(); e++ {
		if !bit(k.del, e) && atomic.LoadUint64(&k.matched[e>>6])&(1<<(e&63)) == 0 {
			n++
		}
	}
	return n + k.nullUpserts
}

// resetMatches forgets the matches of an attempt that did not commit.
func (k *keys) resetMatches() {
	clear(k.matched)
	k.rowIDs = nil
}

// trackRowIDs starts recording the row ids of the rows entries update.
func (k *keys) trackRowIDs() {
	k.rowIDs = make([]atomic.Int64, k.set.Len())
	for i := range k.rowIDs {
		k.rowIDs[i].Store(-1)
	}
}

// setRowID records the row id of the table row entry e updates.
func (k *keys) setRowID(e int, id int64) { k.rowIDs[e].Store(id) }

// rowID is the row id entry e's source row keeps, if it updates a row.
func (k *keys) rowID(e int) (int64, bool) {
	if k.rowIDs == nil || e < 0 {
		return 0, false
	}
	id := k.rowIDs[e].Load()
	return id, id >= 0
}

// buildKeys builds the keys of one partition's source rows. A key that
// appears twice is an error naming it.
func buildKeys(c *config, s *source, pv partValues, sels []rowSel) (*keys, error) {
	rows := 0
	for _, sel := range sels {
		rows += sel.len()
	}
	set, err := keyset.New(c.keyTypes, rows)
	if err != nil {
		return nil, invalid("%v", err)
	}
	k := &keys{set: set}
	for _, dt := range c.keyTypes {
		k.values = append(k.values, newValueSet(dt))
	}
	cols := make([]arrow.Array, len(c.keyIdx))
	for _, sel := range sels {
		rec := s.batches[sel.batch]
		for j, idx := range c.keyIdx {
			cols[j] = rec.Column(idx)
		}
		b, err := set.Bind(cols)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, "", err, "binding source key columns")
		}
		for i := 0; i < sel.len(); i++ {
			row := sel.row(i)
			del := s.isDelete(sel.batch, row)
			if !del {
				k.upserts++
			}
			e, added, err := b.Insert(row)
			if err != nil {
				return nil, errs.Wrap(errs.SourceTooLarge, "", err, "building the key set")
			}
			if e < 0 {
				k.nullKeys++
				if !del {
					k.nullUpserts++
				}
				continue
			}
			if !added {
				where := ""
				if len(c.parts) > 0 {
					where = " in partition " + c.partitionText(pv)
				}
				return nil, invalid("the source has more than one row with primary key (%s)%s; dedupe the batch (keep the last row per key) before the upsert",
					c.describeKey(rec, row), where)
			}
			if e>>6 >= len(k.del) {
				k.del = append(k.del, 0)
			}
			if del {
				k.del[e>>6] |= 1 << (e & 63)
			}
			for j, col := range cols {
				k.values[j].add(col, row)
			}
		}
	}
	k.matched = make([]uint64, len(k.del))
	k.bytes = set.Bytes() + int64(cap(k.del)+cap(k.matched))*8
	for _, v := range k.values {
		k.bytes += v.finish()
	}
	return k, nil
}

// describeKey renders a source row's primary key.
func (c *config) describeKey(rec arrow.RecordBatch, i int) string {
	s := ""
	for j, f := range c.allKeys {
		if j > 0 {
			s += ", "
		}
		s += f.Name + "=" + rec.Column(c.table.Index(f.Name)).ValueStr(i)
	}
	return s
}

// partitionText renders a partition's values as name=value pairs.
func (c *config) partitionText(pv partValues) string {
	s := ""
	for k, f := range c.parts {
		if k > 0 {
			s += ", "
		}
		t := pv.texts[k]
		if t == nullText {
			t = "null"
		}
		s += f.Name + "=" + t
	}
	return s
}
