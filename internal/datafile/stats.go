package datafile

import (
	"math"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// leafStats accumulates the statistics of one leaf over one file. Only the
// fields of the leaf's kind are used.
type leafStats struct {
	nulls    int64
	seen     bool // a non-null value that can bound was seen
	imin     int64
	imax     int64
	fmin     float64
	fmax     float64
	nan      bool // a NaN was seen: the max is unknown (NaN sorts last in Spark)
	dmin     decimal128.Num
	dmax     decimal128.Num
	sawTrue  bool
	sawFalse bool
	// Strings keep only prefixes: smin is the cut minimum; smax the cut
	// maximum, and smaxLonger that some value with that prefix was longer.
	smin, smax string
	smaxLonger bool
}

// fileStats accumulates the statistics of one data file.
type fileStats struct {
	plan    *statsPlan
	rows    int64
	leaves  []leafStats
	scratch []bool
}

func newFileStats(p *statsPlan) *fileStats {
	return &fileStats{plan: p, leaves: make([]leafStats, len(p.leaves))}
}

// add accumulates a file batch.
func (fs *fileStats) add(rec arrow.RecordBatch) {
	n := int(rec.NumRows())
	fs.rows += int64(n)
	for i := range fs.plan.leaves {
		l := &fs.plan.leaves[i]
		arr := rec.Column(l.path[0])
		valid := validRows(&fs.scratch, nil, arr, n)
		for _, j := range l.path[1:] {
			arr = arr.(*array.Struct).Field(j)
			valid = validRows(&fs.scratch, valid, arr, n)
		}
		fs.leaves[i].add(l, arr, valid, fs.plan.prefixLen)
	}
}

// addColumn accumulates rows of top-level column col of a flat schema,
// given as pieces; the caller counts the rows (addRows). Calls for
// different columns may run at once: each touches only its own leaf, so
// column encoders gather statistics in parallel with each other.
func (fs *fileStats) addColumn(col int, pieces []arrow.Array) {
	for i := range fs.plan.leaves {
		l := &fs.plan.leaves[i]
		if l.path[0] != col {
			continue
		}
		var scratch []bool
		for _, arr := range pieces {
			fs.leaves[i].add(l, arr, validRows(&scratch, nil, arr, arr.Len()), fs.plan.prefixLen)
		}
	}
}

// addRows counts rows whose columns addColumn accumulates.
func (fs *fileStats) addRows(n int64) { fs.rows += n }

func validRows(scratch *[]bool, valid []bool, arr arrow.Array, n int) []bool {
	if arr.NullN() == 0 {
		return valid
	}
	if valid == nil {
		if cap(*scratch) < n {
			*scratch = make([]bool, n)
		}
		valid = (*scratch)[:n]
		for i := range valid {
			valid[i] = true
		}
	}
	if arr.DataType().ID() == arrow.NULL {
		clear(valid)
		return valid
	}
	bm, off := arr.NullBitmapBytes(), arr.Data().Offset()
	if bm == nil {
		return valid
	}
	for i := range valid {
		if !bitutil.BitIsSet(bm, off+i) {
			valid[i] = false
		}
	}
	return valid
}

func (s *leafStats) add(l *statLeaf, arr arrow.Array, valid []bool, prefixLen int) {
	n := arr.Len()
	for _, v := range valid {
		if !v {
			s.nulls++
		}
	}
	switch a := arr.(type) {
	case *array.Int8:
		addInts(s, a.Int8Values(), valid)
	case *array.Int16:
		addInts(s, a.Int16Values(), valid)
	case *array.Int32:
		addInts(s, a.Int32Values(), valid)
	case *array.Int64:
		addInts(s, a.Int64Values(), valid)
	case *array.Date32:
		addInts(s, a.Date32Values(), valid)
	case *array.Timestamp:
		addInts(s, a.TimestampValues(), valid)
	case *array.Float32:
		addFloats(s, a.Float32Values(), valid)
	case *array.Float64:
		addFloats(s, a.Float64Values(), valid)
	case *array.Decimal128:
		s.decimals(a, valid)
	case *array.Boolean:
		for i := 0; i < n; i++ {
			if valid == nil || valid[i] {
				if a.Value(i) {
					s.sawTrue = true
				} else {
					s.sawFalse = true
				}
			}
		}
	case *array.String:
		if prefixLen > 0 {
			s.strings(a, valid, prefixLen)
		}
	}
}

// addInts widens the batch's integer bounds into s.
func addInts[T ~int8 | ~int16 | ~int32 | ~int64](s *leafStats, vals []T, valid []bool) {
	mn, mx, ok, _ := minMax(vals, valid)
	if !ok {
		return
	}
	lo, hi := int64(mn), int64(mx)
	if !s.seen {
		s.imin, s.imax, s.seen = lo, hi, true
		return
	}
	s.imin, s.imax = min(s.imin, lo), max(s.imax, hi)
}

// addFloats widens the batch's float bounds into s and records a NaN.
// Zeros compare equal, so the bounds are widened to -0.0 and +0.0 later.
func addFloats[T ~float32 | ~float64](s *leafStats, vals []T, valid []bool) {
	mn, mx, ok, nan := minMax(vals, valid)
	s.nan = s.nan || nan
	if !ok {
		return
	}
	lo, hi := float64(mn), float64(mx)
	if !s.seen {
		s.fmin, s.fmax, s.seen = lo, hi, true
		return
	}
	s.fmin, s.fmax = math.Min(s.fmin, lo), math.Max(s.fmax, hi)
}

// minMax returns the bounds of the valid values, ignoring NaN (and
// reporting whether it saw one); ok is false when no value counted.
func minMax[T ~int8 | ~int16 | ~int32 | ~int64 | ~float32 | ~float64](vals []T, valid []bool) (mn, mx T, ok, nan bool) {
	for i, v := range vals {
		if valid != nil && !valid[i] {
			continue
		}
		if v != v {
			nan = true
			continue
		}
		if !ok {
			mn, mx, ok = v, v, true
			continue
		}
		if v < mn {
			mn = v
		}
		if v > mx {
			mx = v
		}
	}
	return mn, mx, ok, nan
}

func (s *leafStats) decimals(a *array.Decimal128, valid []bool) {
	vals := a.Values()
	for i, v := range vals {
		if valid != nil && !valid[i] {
			continue
		}
		if !s.seen {
			s.dmin, s.dmax, s.seen = v, v, true
			continue
		}
		if v.Less(s.dmin) {
			s.dmin = v
		}
		if v.Greater(s.dmax) {
			s.dmax = v
		}
	}
}

// strings finds the batch's extremes on whole values, then merges their
// prefixes: a value below the kept minimum prefix has a prefix no greater,
// and the maximum only needs its prefix and whether a longer value shares it.
func (s *leafStats) strings(a *array.String, valid []bool, prefixLen int) {
	lo, hi := -1, -1
	for i := 0; i < a.Len(); i++ {
		if valid != nil && !valid[i] {
			continue
		}
		if lo < 0 {
			lo, hi = i, i
			continue
		}
		v := a.Value(i)
		if v < a.Value(lo) {
			lo = i
		}
		if v > a.Value(hi) {
			hi = i
		}
	}
	if lo < 0 {
		return
	}
	minCut, _ := cutRunes(a.Value(lo), prefixLen)
	maxCut, longer := cutRunes(a.Value(hi), prefixLen)
	if !s.seen {
		s.smin, s.smax, s.smaxLonger, s.seen = minCut, maxCut, longer, true
		return
	}
	if minCut < s.smin {
		s.smin = minCut
	}
	switch {
	case maxCut == s.smax:
		s.smaxLonger = s.smaxLonger || longer
	case maxCut > s.smax:
		s.smax, s.smaxLonger = maxCut, longer
	}
}

// cutRunes returns a copy of the first n runes of v (an invalid byte counts
// as one) and whether v was longer.
func cutRunes(v string, n int) (string, bool) {
	i := 0
	for k := 0; k < n && i < len(v); k++ {
		_, w := utf8.DecodeRuneInString(v[i:])
		i += w
	}
	return string([]byte(v[:i])), i < len(v)
}

// bumpString returns the smallest string built by raising the last rune of
// p that sorts after every string starting with p, or false when every
// rune is already U+10FFFF.
func bumpString(p string) (string, bool) {
	for len(p) > 0 {
		r, w := utf8.DecodeLastRuneInString(p)
		p = p[:len(p)-w]
		if r == utf8.MaxRune || r == utf8.RuneError && w == 1 {
			continue
		}
		r++
		if r >= 0xD800 && r <= 0xDFFF {
			r = 0xE000
		}
		return p + string(r), true
	}
	return "", false
}
