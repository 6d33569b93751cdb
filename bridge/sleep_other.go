//go:build !linux

package bridge

import "time"

// sleepOutsideRuntime sleeps for d; elsewhere than Linux with the
// runtime's timer (see heartbeats).
func sleepOutsideRuntime(d time.Duration) { time.Sleep(d) }
