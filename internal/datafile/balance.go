package datafile

// Cutting a partition's output by its expected size (Options.ExpectedBytes;
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
// an estimate: a file is then finished only once more rows are due (or at
// Close), so that rows beyond the estimate can still join it.
func (w *Writer) aim(p *partition) (int64, bool) {
	var expected int64
	if w.ExpectedBytes != nil {
		expected = w.ExpectedBytes(p.values)
	}
	if expected <= 0 {
		return w.target, false
	}
	limit := w.target * maxFileNum / maxFileDen
	if w.closing {
		// Everything left is buffered: the rest is known.
		rest := p.file.length() + w.estimate(p.bytes)
		if rest <= limit {
			return limit, true
		}
		return w.firstFile(rest), true
	}
	rest := expected - p.done
	if rest <= 0 {
		return w.target, true // the estimate is used up: roll as without one
	}
	if a := w.firstFile(rest); a > 0 {
		return a, true
	}
	return limit, true
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
