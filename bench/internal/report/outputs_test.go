package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/bench/internal/runproc"
)

func TestOutputsRoundTrip(t *testing.T) {
	work := filepath.Join(t.TempDir(), "w")
	var o Outputs
	if err := o.Init(work); err != nil {
		t.Fatal(err)
	}
	if o.Markdown != filepath.Join(work, "results.md") || o.JSON != filepath.Join(work, "results.json") {
		t.Fatalf("default paths %+v", o)
	}
	type results struct {
		Header
		Runs []runproc.Measured `json:"runs"`
	}
	r := results{Header: Header{Command: "bench/x.sh -reps 1", Git: "abc1234", LoadStart: "1 2 3"},
		Runs: []runproc.Measured{{WallS: 2, UserS: 1, SysS: 0.5}}}
	r.Finish()
	if err := o.Save(r, "first"); err != nil {
		t.Fatal(err)
	}
	var back results
	if err := o.Rerender(&back, func() string { return back.Markdown() }); err != nil {
		t.Fatal(err)
	}
	if back.Git != "abc1234" || back.Finished == "" || len(back.Runs) != 1 || back.Runs[0].CPUS() != 1.5 {
		t.Errorf("read back %+v", back)
	}
	md, err := os.ReadFile(o.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if h := back.Markdown("peer 1.0"); !strings.Contains(h, "; deltalake (delta-rs) ; peer 1.0.  \nMachine: ") {
		t.Errorf("header with another peer's version:\n%s", h)
	}
	for _, want := range []string{"Command: `bench/x.sh -reps 1`  \n", "; git abc1234; ", "Load average (1, 5, 15 min) at the start: 1 2 3; at the end: "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("rendered header lacks %q:\n%s", want, md)
		}
	}
}
