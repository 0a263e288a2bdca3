// Package report is what the benchmark harnesses share about their
// reports: the flags every harness has, the header under a report's
// title, where the Markdown and JSON results go, the "Every run" table,
// the problems list, ratios and verdicts against targets.
package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/deltalite-go/deltalite/bench/internal/runproc"
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
	return Header{Command: runproc.Command(), Started: time.Now().UTC().Format(time.RFC3339), Machine: runproc.Machine(dir),
		Git: runproc.GitHead(), Deltalake: runproc.DeltalakeVersion(python), LoadStart: runproc.LoadAvg()}
}

// Finish stamps the end of the invocation.
func (h *Header) Finish() {
	h.Finished = time.Now().UTC().Format(time.RFC3339)
	h.LoadEnd = runproc.LoadAvg()
}

// Markdown renders the header as the lines under a report's title; more
// (a harness's other peers and their versions) follows the delta-rs
// version, each part after "; ".
func (h *Header) Markdown(more ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Command: `%s`  \n", h.Command)
	fmt.Fprintf(&b, "Started %s, finished %s; git %s; deltalake (delta-rs) %s", h.Started, h.Finished, h.Git, h.Deltalake)
	for _, m := range more {
		fmt.Fprintf(&b, "; %s", m)
	}
	fmt.Fprintf(&b, ".  \nMachine: %s.  \n", h.Machine)
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
	if err := runproc.ReadJSON(o.JSON, r); err != nil {
		return err
	}
	return os.WriteFile(o.Markdown, []byte(render()), 0o644)
}
