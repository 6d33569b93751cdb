package resilience

import (
	"sync"
	"time"
)

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

// Off reports whether the policy turns breakers off.
func (p BreakerPolicy) Off() bool { return p.FailureThreshold <= 0 }

// Circuit is a breaker's state, as the bridge_circuit_state metric gives it.
type Circuit int

// The states of a circuit.
const (
	Closed Circuit = iota
	HalfOpen
	Open
)

func (c Circuit) String() string {
	switch c {
	case HalfOpen:
		return "half-open"
	case Open:
		return "open"
	}
	return "closed"
}

// Breaker is one agent's circuit. The zero value is closed.
type Breaker struct {
	mu                sync.Mutex
	state             Circuit
	failures          int // in a row, while closed
	opened            time.Time
	probes, successes int // while half-open
}

// Allow reports whether a request may go to the agent now, counting it as
// a probe while half-open; when not, it says until when.
func (br *Breaker) Allow(p BreakerPolicy, now time.Time) (ok bool, state Circuit, until time.Time) {
	br.mu.Lock()
	defer br.mu.Unlock()
	if br.state == Open && now.Sub(br.opened) >= p.ResetTimeout {
		br.state, br.probes, br.successes = HalfOpen, 0, 0
	}
	switch br.state {
	case Open:
		return false, br.state, br.opened.Add(p.ResetTimeout)
	case HalfOpen:
		if br.probes >= p.HalfOpenRequests {
			return false, br.state, now
		}
		br.probes++
	}
	return true, br.state, time.Time{}
}

// Record counts the outcome of a request to the agent and returns the
// circuit's state, and whether it changed.
func (br *Breaker) Record(p BreakerPolicy, ok bool, now time.Time) (state Circuit, changed bool) {
	br.mu.Lock()
	defer br.mu.Unlock()
	old := br.state
	switch {
	case br.state == HalfOpen && ok:
		br.successes++
		if br.successes >= p.HalfOpenRequests {
			br.state, br.failures = Closed, 0
		}
	case br.state == HalfOpen:
		br.state, br.opened = Open, now
	case ok:
		br.failures = 0
	default:
		br.failures++
		if br.state == Closed && br.failures >= p.FailureThreshold {
			br.state, br.opened = Open, now
		}
	}
	return br.state, br.state != old
}

// State returns the circuit's state now.
func (br *Breaker) State() Circuit {
	br.mu.Lock()
	defer br.mu.Unlock()
	return br.state
}
