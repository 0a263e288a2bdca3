package testservers

import (
	"testing"

	"github.com/deltalite-go/deltalite/testkit/tbrecord"
)

// make test fails a run whose tests skip with SkipPrefix: every skip for a
// missing server must start with it.
func TestMissingSkipsWithPrefix(t *testing.T) {
	t.Setenv(requireEnv, "")
	r := &tbrecord.Recorder{}
	missing(r, "versitygw (S3 server)")
	want := SkipPrefix + "versitygw (S3 server) is not installed; run " + setupHint + " (from the repository root)"
	if r.SkipMsg != want || r.FatalMsg != "" {
		t.Errorf("skipped %q, failed %q; want the skip %q", r.SkipMsg, r.FatalMsg, want)
	}

	t.Setenv(requireEnv, "1")
	r = &tbrecord.Recorder{}
	missing(r, "versitygw (S3 server)")
	if r.SkipMsg != "" || r.FatalMsg == "" {
		t.Errorf("with servers required: skipped %q, failed %q", r.SkipMsg, r.FatalMsg)
	}
}
