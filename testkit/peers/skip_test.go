package peers_test

import (
	"strings"
	"testing"

	"github.com/deltalite-go/deltalite/testkit/peers"
	"github.com/deltalite-go/deltalite/testkit/tbrecord"
)

// make test fails a run whose tests skip with SkipPrefix: every skip for a
// missing peer must start with it.
func TestMissingSkipsWithPrefix(t *testing.T) {
	t.Setenv("DELTALITE_REQUIRE_PEERS", "")
	r := &tbrecord.Recorder{}
	peers.Missing(r, "no java on %s", "PATH")
	if want := peers.SkipPrefix + "no java on PATH; " + peers.SetupHint; r.SkipMsg != want || r.FatalMsg != "" {
		t.Errorf("skipped %q, failed %q; want the skip %q", r.SkipMsg, r.FatalMsg, want)
	}

	t.Setenv("DELTALITE_REQUIRE_PEERS", "1")
	r = &tbrecord.Recorder{}
	peers.Missing(r, "no java on PATH")
	if r.SkipMsg != "" || !strings.HasPrefix(r.FatalMsg, "no java on PATH (DELTALITE_REQUIRE_PEERS is set") {
		t.Errorf("with peers required: skipped %q, failed %q", r.SkipMsg, r.FatalMsg)
	}
}
