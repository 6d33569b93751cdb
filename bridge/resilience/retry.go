// Package resilience holds the bridge's policies for failing agents: when a
// request is delivered again (RetryPolicy), and each agent's circuit breaker
// (Breaker), as specs/collab.md sections 5.2 and 5.3 describe them.
package resilience

import (
	"math"
	"slices"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// RetryPolicy says when the bridge delivers a request again after a
// retryable failure (specs/collab.md section 5.2). The requester sees one
// answer: the first that is not retried.
type RetryPolicy struct {
	// MaxRetries is how many times a request is delivered again; 0 never.
	MaxRetries int
	// InitialDelay is the wait before the first retry; each next wait is
	// BackoffFactor times longer, up to MaxDelay.
	InitialDelay, MaxDelay time.Duration
	BackoffFactor          float64
	// RetryableErrors are the canonical error codes that are retried (an
	// error marked retryable by its sender is too). Delivery failures
	// count as unavailable.
	RetryableErrors []canonical.ErrorCode
}

// DefaultRetryPolicy is collab's: 3 retries, 1 s doubling up to 10 s, on
// timeout and unavailable.
var DefaultRetryPolicy = RetryPolicy{
	MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 10 * time.Second, BackoffFactor: 2,
	RetryableErrors: []canonical.ErrorCode{canonical.ErrTimeout, canonical.ErrUnavailable},
}

// Delay returns the wait before retry number n (1 is the first).
func (r RetryPolicy) Delay(n int) time.Duration {
	d := float64(r.InitialDelay) * math.Pow(r.BackoffFactor, float64(n-1))
	return time.Duration(min(d, float64(r.MaxDelay)))
}

// Retryable reports whether e is worth delivering the request again for.
func (r RetryPolicy) Retryable(e *canonical.Error) bool {
	if e == nil {
		return false
	}
	if e.Retryable != nil {
		return *e.Retryable
	}
	return slices.Contains(r.RetryableErrors, e.Code)
}
