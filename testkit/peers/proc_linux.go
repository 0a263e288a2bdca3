package peers

import (
	"os/exec"
	"syscall"
)

// configureChild puts the child in its own process group, so that a timeout
// kills it with everything it started (Spark's JVM), and has it signalled if
// the test binary dies first.
func configureChild(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}

func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
