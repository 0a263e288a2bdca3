package runproc

// Measured is a run's figures as reports save them: the operation's own
// time (from the program's result), the process's wall, CPU and peak RSS,
// and the machine's load around it.
type Measured struct {
	OpS        float64 `json:"op_s"`
	WallS      float64 `json:"wall_s"`
	UserS      float64 `json:"user_s"`
	SysS       float64 `json:"sys_s"`
	MaxRSSKiB  int64   `json:"max_rss_kib"`
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
}

// Measured is the sample's figures.
func (s Sample) Measured() Measured {
	return Measured{OpS: s.Result.Seconds, WallS: s.Wall.Seconds(), UserS: s.User.Seconds(), SysS: s.Sys.Seconds(),
		MaxRSSKiB: s.MaxRSS, LoadBefore: s.LoadBefore, LoadAfter: s.LoadAfter}
}

// CPUS is user + system time in seconds.
func (m Measured) CPUS() float64 { return m.UserS + m.SysS }

// Medians are the medians of runs' figures and of what they wrote.
type Medians struct {
	N                                    int
	OpS, WallS, CPUS, RSSMiB             float64
	BytesAdded, FilesAdded, FilesRemoved float64
}

// Samples collects the figures of runs, for their medians.
type Samples struct {
	op, wall, cpu, rss, bytes, added, removed []float64
}

// Add counts one run.
func (s *Samples) Add(m Measured, v Volume) {
	s.op = append(s.op, m.OpS)
	s.wall = append(s.wall, m.WallS)
	s.cpu = append(s.cpu, m.CPUS())
	s.rss = append(s.rss, float64(m.MaxRSSKiB)/1024)
	s.bytes = append(s.bytes, float64(v.BytesAdded))
	s.added = append(s.added, float64(v.FilesAdded))
	s.removed = append(s.removed, float64(v.FilesRemoved))
}

// Medians are the medians of the runs added (zeros for none).
func (s *Samples) Medians() Medians {
	return Medians{N: len(s.op), OpS: Median(s.op), WallS: Median(s.wall), CPUS: Median(s.cpu), RSSMiB: Median(s.rss),
		BytesAdded: Median(s.bytes), FilesAdded: Median(s.added), FilesRemoved: Median(s.removed)}
}
