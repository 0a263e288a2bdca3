// Package procstat reads the calling process's peak resident set size, so a
// benchmark command can report it next to its own timing.
package procstat

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// PeakRSSKiB is VmHWM from /proc/self/status in KiB, or 0 where /proc is
// not available.
func PeakRSSKiB() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return n
		}
	}
	return 0
}
