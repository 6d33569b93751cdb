package sleep

import (
	"syscall"
	"time"
)

// OutsideRuntime sleeps for d in a system call, leaving the runtime's
// timers alone (see the package doc). The goroutine holds a thread meanwhile.
func OutsideRuntime(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for {
		var left syscall.Timespec
		if err := syscall.Nanosleep(&ts, &left); err != syscall.EINTR {
			return
		}
		ts = left
	}
}
