// Package sleep waits without the Go runtime's timers, for the bridge's
// long-lived background loops (heartbeats, the write watchdog): measured on
// the hop benchmark, one long-lived runtime timer in the process made every
// round trip through the bridge slower, though it never fired during the run.
package sleep
