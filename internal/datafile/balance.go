package datafile

// Cutting a partition's output by its expected size (Options.Expected;
// the rule is told under Files in the package doc).
const (
	// maxFileNum/maxFileDen of the target is the cap: the largest file
	// that rounding to the nearest count of target-sized files makes, so
	// that every file stays within half a target of it.
	maxFileNum, maxFileDen = 3, 2
	// aimNum/aimDen of the target is the largest size a file is planned
	// at: the quarter left under the cap takes rows an estimate missed.
	aimNum, aimDen = 5, 4
)

// aim is the size at which p's open file ends, and whether it comes from
// an expectation: a file is then finished only once more rows are due (or
// at Close), so that rows beyond the expectation can still join it.
func (w *Writer) aim(p *partition) (int64, bool) {
	var e Expectation
	if w.Expected != nil {
		e = w.Expected(p.values)
	}
	perRow := w.bytesPerRow(p, e)
	if e.Rows <= 0 || perRow <= 0 {
		return w.target, false
	}
	limit := w.target * maxFileNum / maxFileDen
	if w.closing {
		// Everything left is buffered: the rest is known.
		rest := p.file.length() + int64(float64(p.rows)*perRow)
		if rest <= limit {
			return limit, true
		}
		return w.firstFile(rest), true
	}
	rest := int64(float64(e.Rows)*perRow) - p.done
	if rest <= 0 {
		return w.target, true // the expectation is used up: roll as without one
	}
	if a := w.firstFile(rest); a > 0 {
		return a, true
	}
	return limit, true
}

// bytesPerRow is the Parquet bytes a row of p takes: as measured once p
// has written rows, else as expected, else as measured over the Writer,
// else as its buffered Arrow bytes.
func (w *Writer) bytesPerRow(p *partition, e Expectation) float64 {
	if p.written > 0 {
		n := p.done
		if p.file != nil {
			n += p.file.length()
		}
		return float64(n) / float64(p.written)
	}
	if e.BytesPerRow > 0 {
		return e.BytesPerRow
	}
	if w.rowsFlushed > 0 {
		return float64(w.parquetFlushed) / float64(w.rowsFlushed)
	}
	if p.rows > 0 {
		return float64(p.bytes) / float64(p.rows)
	}
	return 0
}

// firstFile is the size of the first of the files rest bytes are cut into, or
// 0 when they make one file.
func (w *Writer) firstFile(rest int64) int64 {
	t := w.target
	n := max(1, (rest+t/2)/t, (rest*aimDen+t*aimNum-1)/(t*aimNum))
	if n == 1 {
		return 0
	}
	return rest / n
}

// slack is the fraction of the target (1/slack) under which the room left
// in a file ends it rather than take a small row group; files cut to
// balance end closer to their aim.
func slack(balanced bool) int64 {
	if balanced {
		return 32
	}
	return 16
}
