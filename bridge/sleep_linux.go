package bridge

import (
	"syscall"
	"time"
)

// sleepOutsideRuntime sleeps for d in a system call, leaving the runtime's
// timers alone (see heartbeats). The goroutine holds a thread meanwhile.
func sleepOutsideRuntime(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var left syscall.Timespec
		if err := syscall.Nanosleep(&ts, &left); err != syscall.EINTR {
			return
		}
		ts = left
	}
}
