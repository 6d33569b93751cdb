//go:build !unix

package conformance

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup does nothing where there are no process groups.
func ownGroup(*exec.Cmd) {}

// signalGroup stops the command itself where there are no process groups:
// any signal but SIGTERM kills it.
func signalGroup(cmd *exec.Cmd, sig syscall.Signal) {
	if sig == syscall.SIGTERM {
		_ = cmd.Process.Signal(os.Interrupt)
		return
	}
	_ = cmd.Process.Kill()
}
