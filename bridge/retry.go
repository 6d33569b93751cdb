package bridge

import (
	"fmt"
	"math"
	"slices"
	"sync"
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

// delay returns the wait before retry number n (1 is the first).
func (r RetryPolicy) delay(n int) time.Duration {
	d := float64(r.InitialDelay) * math.Pow(r.BackoffFactor, float64(n-1))
	return time.Duration(min(d, float64(r.MaxDelay)))
}

// retryable reports whether e is worth delivering the request again for.
func (r RetryPolicy) retryable(e *canonical.Error) bool {
	if e == nil {
		return false
	}
	if e.Retryable != nil {
		return *e.Retryable
	}
	return slices.Contains(r.RetryableErrors, e.Code)
}

// BreakerPolicy is the circuit breaker each agent has (specs/collab.md
// section 5.3): after FailureThreshold failures in a row requests to the
// agent are refused at once; after ResetTimeout up to HalfOpenRequests
// probes go through, and as many successes close the circuit again, one
// failure opens it again.
type BreakerPolicy struct {
	FailureThreshold int
	ResetTimeout     time.Duration
	HalfOpenRequests int
}

// DefaultBreakerPolicy is collab's: 5 failures, 60 s, 3 probes.
var DefaultBreakerPolicy = BreakerPolicy{FailureThreshold: 5, ResetTimeout: time.Minute, HalfOpenRequests: 3}

// The states of a circuit, as the bridge_circuit_state metric gives them.
const (
	circuitClosed = iota
	circuitHalfOpen
	circuitOpen
)

// breaker is one agent's circuit.
type breaker struct {
	mu                sync.Mutex
	state             int
	failures          int // in a row, while closed
	opened            time.Time
	probes, successes int // while half-open
}

// allow reports whether a request may go to the agent now, counting it as
// a probe while half-open; when not, it says until when.
func (br *breaker) allow(p BreakerPolicy, now time.Time) (ok bool, state int, until time.Time) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.state == circuitOpen && now.Sub(br.opened) >= p.ResetTimeout {
		br.state, br.probes, br.successes = circuitHalfOpen, 0, 0
	}
	switch br.state {
	case circuitOpen:
		return false, br.state, br.opened.Add(p.ResetTimeout)
	case circuitHalfOpen:
		if br.probes >= p.HalfOpenRequests {
			return false, br.state, now
		}
		br.probes++
	}
	return true, br.state, time.Time{}
}

// record counts the outcome of a request to the agent and returns the
// circuit's state, and whether it changed.
func (br *breaker) record(p BreakerPolicy, ok bool, now time.Time) (state int, changed bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	old := br.state
	switch {
	case br.state == circuitHalfOpen && ok:
		br.successes++
		if br.successes >= p.HalfOpenRequests {
			br.state, br.failures = circuitClosed, 0
		}
	case br.state == circuitHalfOpen:
		br.state, br.opened = circuitOpen, now
	case ok:
		br.failures = 0
	default:
		br.failures++
		if br.state == circuitClosed && br.failures >= p.FailureThreshold {
			br.state, br.opened = circuitOpen, now
		}
	}
	return br.state, br.state != old
}

// outcome feeds a request's outcome to its receiver's breaker.
func (b *Bridge) outcome(a *agent, ok bool) {
	if b.breakers.FailureThreshold <= 0 {
		return
	}
	state, changed := a.breaker.record(b.breakers, ok, time.Now())
	if changed {
		b.metrics.circuit.WithLabelValues(a.id).Set(float64(state))
		b.log.Info("circuit", "agent", a.id, "state", []string{"closed", "half-open", "open"}[state])
	}
}

// admit reports whether a request may be delivered to a now; when not, it
// returns the error for the requester.
func (b *Bridge) admit(a *agent) *canonical.Error {
	if b.breakers.FailureThreshold <= 0 {
		return nil
	}
	ok, state, until := a.breaker.allow(b.breakers, time.Now())
	if ok {
		return nil
	}
	yes := true
	e := &canonical.Error{Code: canonical.ErrUnavailable, Retryable: &yes,
		Message: fmt.Sprintf("the circuit to %s is open after repeated failures", a.id)}
	if state == circuitOpen {
		e.RetryAfter = canonical.Dur(time.Until(until).Round(time.Millisecond))
		e.Message += fmt.Sprintf("; retry after %s", e.RetryAfter.D)
	} else {
		e.Message = fmt.Sprintf("the circuit to %s is half-open and its probes are out", a.id)
	}
	return e
}

// retry delivers p's request again after its policy's delay, unless it
// has had its retries or is answered meanwhile; it reports whether a
// retry is on its way. reason is the failure being retried.
func (b *Bridge) retry(p *pending, reason *canonical.Error) bool {
	if !b.retries.retryable(reason) || p.out.Load() == nil {
		return false
	}
	n := int(p.attempts.Add(1))
	if n > b.retries.MaxRetries {
		return false
	}
	b.metrics.retries.Inc()
	d := b.retries.delay(n)
	b.log.Info("retrying", "receiver", p.receiver.id, "token", p.token, "attempt", n+1, "in", d, "after", reason.Message)
	time.AfterFunc(d, func() { b.redeliver(p, reason) })
	return true
}

// redeliver sends p's request to its receiver again, or gives the
// requester the failure when it cannot be.
func (b *Bridge) redeliver(p *pending, last *canonical.Error) {
	if !b.pending.isOpen(p) {
		return // answered, timed out or given up meanwhile
	}
	giveUp := func(e *canonical.Error) {
		if b.pending.take(p) {
			b.reply(p, e)
		}
	}
	t, _ := b.lookup(p.receiver.id)
	switch {
	case t.session == nil:
		giveUp(&canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("agent %s is not connected (after: %s)", p.receiver.id, last.Message)})
		return
	case b.admit(p.receiver) != nil:
		giveUp(b.admit(p.receiver))
		return
	}
	out := *p.out.Load()
	if err := b.send(p.dialect, &out, t.session, false, b.deliveryFailed(p)); err != nil && !b.retry(p, err) {
		giveUp(err)
	}
}

// deliveryFailed returns the handler of a request's delivery failing
// after it was queued: a retry, or an error for the requester.
func (b *Bridge) deliveryFailed(p *pending) func(error) {
	return func(reason error) {
		code := canonical.ErrUnavailable
		if reason == errExpired {
			code = canonical.ErrTimeout
		}
		e := &canonical.Error{Code: code, Message: fmt.Sprintf("not delivered to %s: %v", p.receiver.id, reason)}
		b.outcome(p.receiver, false)
		if b.retry(p, e) {
			return
		}
		if b.pending.take(p) {
			b.reply(p, e)
		}
	}
}
