// Package child runs a program as a child process with its standard
// streams on pipes, for the transports that run their peers (stdio agents,
// MCP servers on stdio), and says how long to wait before starting one
// again.
package child

import "time"

// stableRuns is how many BackoffMin a child must run for to count as having
// started well: its next restart waits BackoffMin again.
const stableRuns = 10

// Backoff is the wait before each restart. It starts at min and doubles
// after every child that exited quickly, up to max; a child that ran for at
// least stableRuns times min starts the sequence over.
type Backoff struct {
	min, max, next time.Duration
}

// NewBackoff returns a backoff from min to max.
func NewBackoff(min, max time.Duration) *Backoff {
	return &Backoff{min: min, max: max, next: min}
}

// After returns the wait before restarting a child that ran for ran.
func (b *Backoff) After(ran time.Duration) time.Duration {
	if ran >= stableRuns*b.min {
		b.next = b.min
	}
	d := b.next
	if b.next > b.max/2 {
		b.next = b.max
	} else {
		b.next *= 2
	}
	return d
}
