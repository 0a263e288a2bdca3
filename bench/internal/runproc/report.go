package runproc

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Header is what every harness's report says about the invocation: how
// it was run, when, on what machine, at which commit, against which
// delta-rs, and how busy the machine was. Reports embed it, so its fields
// sit at the top level of their JSON.
type Header struct {
	Command   string `json:"command"`
	Started   string `json:"started"`
	Finished  string `json:"finished"`
	Machine   string `json:"machine"`
	Git       string `json:"git"`
	Deltalake string `json:"deltalake"`
	LoadStart string `json:"load_start"`
	LoadEnd   string `json:"load_end"`
}

// NewHeader starts the header of an invocation that works in dir with the
// peers of python.
func NewHeader(dir, python string) Header {
	return Header{Command: Command(), Started: time.Now().UTC().Format(time.RFC3339), Machine: Machine(dir),
		Git: GitHead(), Deltalake: DeltalakeVersion(python), LoadStart: LoadAvg()}
}

// Finish stamps the end of the invocation.
func (h *Header) Finish() {
	h.Finished = time.Now().UTC().Format(time.RFC3339)
	h.LoadEnd = LoadAvg()
}

// Markdown renders the header as the lines under a report's title.
func (h *Header) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \n", h.Command)
	fmt.Fprintf(&b, "Started %s, finished %s; git %s; deltalake (delta-rs) %s.  \n", h.Started, h.Finished, h.Git, h.Deltalake)
	fmt.Fprintf(&b, "Machine: %s.  \n", h.Machine)
	fmt.Fprintf(&b, "Load average (1, 5, 15 min) at the start: %s; at the end: %s.\n\n", h.LoadStart, h.LoadEnd)
	return b.String()
}

// Outputs is where a harness writes its report: Markdown and the raw
// results as JSON.
type Outputs struct {
	Markdown, JSON string
}

// Init makes work and defaults the paths left empty to work/results.md
// and work/results.json.
func (o *Outputs) Init(work string) error {
	if o.Markdown == "" {
		o.Markdown = filepath.Join(work, "results.md")
	}
	if o.JSON == "" {
		o.JSON = filepath.Join(work, "results.json")
	}
	return os.MkdirAll(work, 0o755)
}

// Save writes the results r as JSON and their rendering as Markdown.
func (o Outputs) Save(r any, markdown string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(o.JSON, b, 0o644); err != nil {
		return err
	}
	return os.WriteFile(o.Markdown, []byte(markdown), 0o644)
}

// Rerender reads the saved results into r and writes render's Markdown
// again (a harness's -report-only).
func (o Outputs) Rerender(r any, render func() string) error {
	if err := ReadJSON(o.JSON, r); err != nil {
		return err
	}
	return os.WriteFile(o.Markdown, []byte(render()), 0o644)
}

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
