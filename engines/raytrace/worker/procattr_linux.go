package worker

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the worker in its own process group (a terminal's
// SIGINT goes to serve, which stops the worker itself) and asks the kernel
// to kill it when serve dies (a kill -9 of serve leaves no orphan holding
// the socket).
func setProcAttr(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
