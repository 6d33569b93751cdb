package stdio

import "time"

// stableRuns is how many BackoffMin a child must run for to count as having
// started well: its next restart waits BackoffMin again.
const stableRuns = 10

// backoff is the wait before each restart. It starts at min and doubles
// after every child that exited quickly, up to max; a child that ran for at
// least stableRuns times min starts the sequence over.
type backoff struct {
	min, max, next time.Duration
}

func newBackoff(min, max time.Duration) *backoff {
	return &backoff{min: min, max: max, next: min}
}

// after returns the wait before restarting a child that ran for ran.
func (b *backoff) after(ran time.Duration) time.Duration {
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
