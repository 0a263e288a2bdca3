package peers

import (
	"os/exec"
	"testing"
)

// ConfigureChild puts a peer process that outlives one call (a server) in
// its own process group, as the peers here are run; KillGroup ends it with
// everything it started.
func ConfigureChild(cmd *exec.Cmd) { configureChild(cmd) }

// KillGroup kills the process group of a child ConfigureChild configured.
func KillGroup(cmd *exec.Cmd) error { return killGroup(cmd) }

// Env is the environment of a peer process: this one's, with the
// repository root and the settings every peer runs with, then extra.
func Env(t testing.TB, extra ...string) []string {
	t.Helper()
	return pythonEnv(Root(t), extra)
}
