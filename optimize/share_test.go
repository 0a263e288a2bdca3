package optimize

import "testing"

// TestBinSharesLeaveRoomForEncoding: the concurrent bins' rewrites are
// given half of their shares of MaxBufferedBytes together, the other half
// being their writers' encoding, which the rewrite does not count.
func TestBinSharesLeaveRoomForEncoding(t *testing.T) {
	for tasks := 1; tasks <= 8; tasks++ {
		for _, knob := range []int64{1, 1000, 64 << 20, 1 << 30} {
			got := binBuffered(knob, tasks)
			if got < 1 || (knob >= int64(2*tasks) && 2*int64(tasks)*got > knob) {
				t.Errorf("MaxBufferedBytes %d, %d bins: each rewrite gets %d, want at most half of its share", knob, tasks, got)
			}
		}
	}
	if got := binBuffered(64<<20, 2); got != 16<<20 {
		t.Errorf("two bins of the default 64 MiB: each rewrite gets %d, want 16 MiB", got)
	}
}
