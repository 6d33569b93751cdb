package tap

import (
	"sync"
	"time"
	"weak"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Handle takes the core's events: an arrival is remembered, a message
// queued is kept until it is delivered or fails, and each outcome is
// handed to the tap's goroutine.
func (t *Tap) Handle(e event.Event) {
	switch e.Kind {
	case event.Received:
		t.recent.add(e.Env, &arrival{at: e.When(), frame: t.clip(e.Frame), dialect: e.Dialect})
	case event.Copied:
		if a := t.recent.get(e.Env); a != nil {
			t.recent.add(e.Copy, a)
		}
	case event.Translated:
		r := t.start(Delivered, e)
		r.Losses = e.Report
		t.mu.Lock()
		t.queued[e.Seq] = r
		t.mu.Unlock()
	case event.Delivered:
		if e.Seq == 0 { // the call API: nothing was queued
			r := t.start(Delivered, e)
			r.stamp(e.When())
			t.emit(r)
			return
		}
		if r := t.take(e.Seq); r != nil {
			r.out = t.clip(e.Frame)
			r.stamp(e.When())
			t.emit(r)
		}
	case event.Failed:
		if r := t.take(e.Seq); r != nil {
			r.Kind, r.Reason = Failed, e.Reason.Error()
			r.stamp(e.When())
			t.emit(r)
		}
	case event.Dropped:
		r := t.start(Dropped, e)
		r.Losses = e.Report
		if len(r.Losses) > 0 {
			r.Reason = r.Losses[0].Message
		}
		r.stamp(e.When())
		t.emit(r)
	case event.Refused:
		t.refused(e)
	}
}

// take returns the queued message seq and forgets it; nil if the tap did
// not see it queued (it started since).
func (t *Tap) take(seq uint64) *record {
	t.mu.Lock()
	defer t.mu.Unlock()
	r := t.queued[seq]
	delete(t.queued, seq)
	return r
}

// start begins the record of the message e.Source, on its way to the
// connection e describes.
func (t *Tap) start(kind Kind, e event.Event) *record {
	env := e.Source
	r := &record{Traffic: Traffic{Kind: kind, From: env.Sender.ID, FromDialect: env.Origin.Dialect, To: e.Agent, ToDialect: e.Dialect,
		Act: env.Act, Operation: event.OpName(env.Operation), Outcome: env.Outcome, Error: errorCopy(env.Error), ByBridge: e.ByBridge}}
	r.arrived = t.recent.get(env)
	switch {
	case r.arrived != nil:
		r.in, r.FromDialect = r.arrived.frame, r.arrived.dialect
	case e.ByBridge:
		r.FromDialect = "bridge"
	case r.FromDialect == "":
		r.FromDialect = "call"
	}
	return r
}

// refused records a refusal: e.Input is the message as it arrived when it
// was refused as it was read, e.Frame the error sent back.
func (t *Tap) refused(e event.Event) {
	r := &record{Traffic: Traffic{Kind: Refused, From: e.Agent, FromDialect: e.Dialect, Error: errorCopy(e.Err)}}
	if env := e.Env; env != nil {
		r.arrived = t.recent.get(env)
		r.Act, r.Operation, r.Outcome = env.Act, event.OpName(env.Operation), env.Outcome
		if env.Receiver.Kind == canonical.AddressAgent {
			r.To = env.Receiver.ID
		}
	}
	if r.arrived != nil {
		r.in = r.arrived.frame
	} else {
		r.in = t.clip(e.Input)
	}
	r.out = t.clip(e.Frame)
	r.stamp(e.When())
	t.emit(r)
}

// recentArrivals is how many arrivals a tap remembers, to pair the frame
// as received with the frame as delivered.
const recentArrivals = 256

// arrivals are the envelopes received lately and their frames, by weak
// pointer (an envelope forgotten elsewhere is not kept alive here), in a
// ring of recentArrivals.
type arrivals struct {
	mu   sync.Mutex
	by   map[weak.Pointer[canonical.Envelope]]*arrival
	ring [recentArrivals]weak.Pointer[canonical.Envelope]
	next int
}

// arrival is when and how a message arrived.
type arrival struct {
	at      time.Time
	frame   clipped
	dialect string
}

func (r *arrivals) init() { r.by = map[weak.Pointer[canonical.Envelope]]*arrival{} }

func (r *arrivals) add(env *canonical.Envelope, a *arrival) {
	if env == nil {
		return
	}
	k := weak.Make(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.by[k]; ok {
		r.by[k] = a
		return
	}
	delete(r.by, r.ring[r.next])
	r.ring[r.next] = k
	r.by[k] = a
	r.next = (r.next + 1) % recentArrivals
}

func (r *arrivals) get(env *canonical.Envelope) *arrival {
	if env == nil {
		return nil
	}
	k := weak.Make(env)
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.by[k]
}
