package procstat

// Result is the one JSON line every benchmark program (this engine's and
// the peers') prints on stdout, so the harness checks and compares them alike.
type Result struct {
	Engine  string  `json:"engine"`
	Op      string  `json:"op"`
	Seconds float64 `json:"seconds"` // the operation alone, process start-up excluded
	Version int64   `json:"version"`
	Files   int64   `json:"files"`
	Rows    int64   `json:"rows"`
	// PeakRSSKiB is the program's own VmHWM at exit; the harness also takes
	// the kernel's figure from wait4.
	PeakRSSKiB int64 `json:"peakRssKiB"`
}
