//go:build unix

package conformance

import (
	"os/exec"
	"syscall"
)

// ownGroup makes the command the leader of a process group of its own, so
// that what the shell starts can be stopped with it.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the command's process group.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}
