package report

import (
	"fmt"
	"strings"

	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

// Column is a Markdown table's column: its heading, and whether it holds
// numbers (right-aligned).
type Column struct {
	Name   string
	Number bool
}

// Text and Number are columns of text and of numbers.
func Text(name string) Column   { return Column{Name: name} }
func Number(name string) Column { return Column{Name: name, Number: true} }

// measuredColumns are the columns of runproc.Measured every harness's
// "Every run" table has, between its own columns.
var measuredColumns = []Column{Number("rep"), Number("order"), Number("op (s)"), Number("wall (s)"), Number("user (s)"),
	Number("sys (s)"), Number("peak RSS (MiB)"), Text("load before / after")}

// Heading writes a table's heading and separator lines.
func Heading(b *strings.Builder, cols ...Column) {
	var names, seps []string
	for _, c := range cols {
		names = append(names, c.Name)
		if c.Number {
			seps = append(seps, "---:")
		} else {
			seps = append(seps, "---")
		}
	}
	fmt.Fprintf(b, "| %s |\n|%s|\n", strings.Join(names, " | "), strings.Join(seps, "|"))
}

// Row writes one table row of cells.
func Row(b *strings.Builder, cells ...string) {
	fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
}

// RunTable is a report's "Every run" table: the harness's columns saying
// which run it was (lead), the measured figures, then the harness's
// columns saying what the run did (tail).
type RunTable struct {
	b       *strings.Builder
	seconds string // the format of a time in seconds
}

// EveryRun starts the "Every run" table in b, its times in seconds with
// decimals places.
func EveryRun(b *strings.Builder, decimals int, lead, tail []Column) *RunTable {
	b.WriteString("\n**Every run**\n\n")
	Heading(b, append(append(append([]Column(nil), lead...), measuredColumns...), tail...)...)
	return &RunTable{b: b, seconds: fmt.Sprintf("%%.%df", decimals)}
}

// Row writes one run's row.
func (t *RunTable) Row(lead []string, rep, order int, m runproc.Measured, tail ...string) {
	s := func(v float64) string { return fmt.Sprintf(t.seconds, v) }
	cells := append(append([]string(nil), lead...), fmt.Sprint(rep), fmt.Sprint(order), s(m.OpS), s(m.WallS), s(m.UserS), s(m.SysS),
		fmt.Sprint(m.MaxRSSKiB/1024), fmt.Sprintf("%.1f / %.1f", m.LoadBefore, m.LoadAfter))
	Row(t.b, append(cells, tail...)...)
}

// Content is the cell of what a run left: why it failed, else its
// fingerprint's fields (none: "—").
func Content(runErr string, fingerprint ...any) string {
	switch {
	case runErr != "":
		return "FAILED: " + runErr
	case len(fingerprint) == 0:
		return "—"
	}
	parts := make([]string, len(fingerprint))
	for i, f := range fingerprint {
		parts[i] = fmt.Sprint(f)
	}
	return strings.Join(parts, ", ")
}

// Checksum is bench/py/checksum.py's fingerprint of a table.
type Checksum struct {
	Version int64  `json:"version"`
	Rows    int64  `json:"rows"`
	Hash    string `json:"hash"`
}

// Fields is the fingerprint as a Content cell shows it: rows and hash
// (none for no checksum).
func (c *Checksum) Fields() []any {
	if c == nil {
		return nil
	}
	return []any{c.Rows, c.Hash}
}

// Problems writes the list of what failed or disagreed, if anything did.
func Problems(b *strings.Builder, problems []string) {
	if len(problems) == 0 {
		return
	}
	b.WriteString("\nProblems:\n\n")
	for _, p := range problems {
		fmt.Fprintf(b, "- %s\n", p)
	}
}

// Ratio is a/b with two decimals, "n/a" when either was not measured.
func Ratio(a, b float64) string {
	if a == 0 || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2f", a/b)
}

// Verdict says whether a target was met.
func Verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "**not met**"
}

// Judge is the ratio ours/theirs and whether it is at most target.
func Judge(ours, theirs, target float64) string {
	if ours == 0 || theirs == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.2f — %s", ours/theirs, Verdict(ours/theirs <= target))
}
