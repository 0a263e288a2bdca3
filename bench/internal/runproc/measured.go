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
