//go:build !linux

package sleep

import "time"

// OutsideRuntime sleeps for d; elsewhere than Linux with the
// runtime's timer (see the package doc).
func OutsideRuntime(d time.Duration) { time.Sleep(d) }
