package testservers

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal kills the server if the test binary dies without
// running StopAll (a panic, a timeout, a kill).
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
