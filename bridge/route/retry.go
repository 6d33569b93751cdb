package route

import (
	"fmt"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// resilient is the router's retries and circuit breakers (package
// resilience holds the policies and the breaker): the outcome of every
// request feeds its receiver's breaker; a request that failed retryably is
// delivered again, up to the policy's count, and the requester sees one
// answer.
type resilient struct {
	r        *Router
	policy   resilience.RetryPolicy
	breakers resilience.BreakerPolicy
}

// outcome feeds a request's outcome to its receiver's breaker.
func (rs *resilient) outcome(a *Agent, ok bool) {
	if rs.breakers.Off() {
		return
	}
	state, changed := a.Breaker.Record(rs.breakers, ok, time.Now())
	if changed {
		rs.r.metrics.Circuit(a.ID(), int(state))
		rs.r.log.Info("circuit", "agent", a.ID(), "state", state.String())
	}
}

// admit reports whether a request may be delivered to a now; when not, it
// returns the error for the requester.
func (rs *resilient) admit(a *Agent) *canonical.Error {
	if rs.breakers.Off() {
		return nil
	}
	ok, state, until := a.Breaker.Allow(rs.breakers, time.Now())
	if ok {
		return nil
	}
	yes := true
	e := &canonical.Error{Code: canonical.ErrUnavailable, Retryable: &yes,
		Message: fmt.Sprintf("the circuit to %s is open after repeated failures", a.ID())}
	if state == resilience.Open {
		e.RetryAfter = canonical.Dur(time.Until(until).Round(time.Millisecond))
		e.Message += fmt.Sprintf("; retry after %s", e.RetryAfter.D)
	} else {
		e.Message = fmt.Sprintf("the circuit to %s is half-open and its probes are out", a.ID())
	}
	return e
}

// retry delivers p's request again after its policy's delay, unless it
// has had its retries or is answered meanwhile; it reports whether a
// retry is on its way. reason is the failure being retried.
func (rs *resilient) retry(p *Request, reason *canonical.Error) bool {
	if !rs.policy.Retryable(reason) || p.Out.Load() == nil {
		return false
	}
	n := int(p.Attempts.Add(1))
	if n > rs.policy.MaxRetries {
		return false
	}
	rs.r.metrics.Retry()
	d := rs.policy.Delay(n)
	rs.r.log.Info("retrying", "receiver", p.Receiver.ID(), "token", p.Token, "attempt", n+1, "in", d, "after", reason.Message)
	time.AfterFunc(d, func() { rs.redeliver(p, reason) })
	return true
}

// redeliver sends p's request to its receiver again, or gives the
// requester the failure when it cannot be.
func (rs *resilient) redeliver(p *Request, last *canonical.Error) {
	if !rs.r.pending.IsOpen(p) {
		return // answered, timed out or given up meanwhile
	}
	giveUp := func(e *canonical.Error) {
		if rs.r.pending.Take(p) {
			rs.r.reply(p, e)
		}
	}
	_, to, _ := rs.r.dir.Lookup(p.Receiver.ID())
	if to == nil {
		giveUp(&canonical.Error{Code: canonical.ErrUnavailable, Message: fmt.Sprintf("agent %s is not connected (after: %s)", p.Receiver.ID(), last.Message)})
		return
	}
	if e := rs.admit(p.Receiver); e != nil {
		giveUp(e)
		return
	}
	out := *p.Out.Load()
	d := &requestDelivery{rs: rs, p: p}
	d.o = Outgoing{Env: &out, From: p.Dialect, Failure: d}
	if _, err := to.Deliver(&d.o); err != nil && !rs.retry(p, err) {
		giveUp(err)
	}
}

// requestDelivery is one delivery of the request p: the Outgoing that
// carries it and the handler of its failing after it was queued (a retry,
// or an error for the requester), made as one object rather than an
// Outgoing and a closure. The handler is kept with the queued message;
// the Outgoing is done with when Deliver returns.
type requestDelivery struct {
	o  Outgoing
	rs *resilient
	p  *Request
}

// Unsent handles the request's delivery failing after it was queued.
func (d *requestDelivery) Unsent(reason error) {
	rs, p := d.rs, d.p
	code := canonical.ErrUnavailable
	if reason == delivery.ErrExpired {
		code = canonical.ErrTimeout
	}
	e := &canonical.Error{Code: code, Message: fmt.Sprintf("not delivered to %s: %v", p.Receiver.ID(), reason)}
	rs.outcome(p.Receiver, false)
	if rs.retry(p, e) {
		return
	}
	if rs.r.pending.Take(p) {
		rs.r.reply(p, e)
	}
}

// Boost raises an answer to its request's level (specs/collab.md 8.2): a
// HIGH request's answer sent as NORMAL would otherwise wait behind the
// requester's NORMAL traffic, holding up a HIGH task with a lower one. The
// boost is for the queue only; the message keeps its own priority.
func (r *Router) Boost(it *delivery.Item, level int, env *canonical.Envelope) {
	r.log.Info("priority boost", "requester", env.Receiver.ID, "from", env.Sender.ID, "act", env.Act,
		"priority", delivery.LevelName(it.Level), "raised_to", delivery.LevelName(level))
	r.metrics.Boost()
	it.Level = level
}
