package directory

import "fmt"

// Status is an agent's lifecycle state (specs/collab.md section 3.1).
type Status string

// The lifecycle states.
const (
	StatusInitializing Status = "INITIALIZING"
	StatusReady        Status = "READY"
	StatusBusy         Status = "BUSY"
	StatusUnavailable  Status = "UNAVAILABLE"
	StatusStopping     Status = "STOPPING"
	StatusStopped      Status = "STOPPED"
)

// Statuses lists the lifecycle states.
var Statuses = []Status{StatusInitializing, StatusReady, StatusBusy, StatusUnavailable, StatusStopping, StatusStopped}

// Agent health (specs/collab.md sections 3.1 and 5.1). An agent the bridge
// starts or dials itself is INITIALIZING until it is connected. An agent
// is READY while connected, BUSY while requests to it are in flight (shown,
// not announced), UNAVAILABLE after UnavailableAfter missed heartbeats or
// request timeouts in a row or when its connection is lost, READY again as
// soon as it answers anything, STOPPING while the bridge shuts down, and
// STOPPED while not connected.

// UnavailableAfter is how many heartbeats missed, or requests timed out,
// in a row make an agent UNAVAILABLE.
const UnavailableAfter = 3

// SetStatus moves a to status for reason and tells the watchers; it
// reports whether the status changed.
func (d *Directory[E]) SetStatus(a *Agent[E], status Status, reason string) bool {
	d.mu.Lock()
	old := a.status
	if old == status {
		d.mu.Unlock()
		return false
	}
	a.status = status
	info := a.infoLocked(d.self, d.in)
	d.mu.Unlock()
	d.watchers.tell(Change{Kind: StatusChanged, Agent: info, Previous: old, Reason: reason})
	return true
}

// Starting marks a declared agent INITIALIZING: the bridge is starting or
// dialling it, and it is not connected yet.
func (d *Directory[E]) Starting(id string) {
	a, ep, ok := d.Lookup(id)
	var none E
	if ok && ep == none {
		d.SetStatus(a, StatusInitializing, "being started")
	}
}

// Unreachable marks a declared agent UNAVAILABLE for reason: the bridge
// tried to reach it and could not (an A2A agent's card does not resolve),
// and it is not connected.
func (d *Directory[E]) Unreachable(id, reason string) {
	a, ep, ok := d.Lookup(id)
	var none E
	if ok && ep == none {
		d.SetStatus(a, StatusUnavailable, reason)
	}
}

// HeardFrom notes a message from a, cheaply when all is well: an agent
// that answers anything is alive, and READY again if it was UNAVAILABLE.
func (d *Directory[E]) HeardFrom(a *Agent[E]) {
	d.mu.RLock()
	fine := a.timeouts == 0 && a.missed == 0 && a.status != StatusUnavailable
	d.mu.RUnlock()
	if fine {
		return
	}
	d.mu.Lock()
	a.timeouts, a.missed = 0, 0
	back := a.status == StatusUnavailable
	d.mu.Unlock()
	if back {
		d.SetStatus(a, StatusReady, "it answered")
	}
}

// TimedOut notes that a request to a went unanswered; after
// UnavailableAfter in a row a connected agent is UNAVAILABLE.
func (d *Directory[E]) TimedOut(a *Agent[E]) {
	var none E
	d.mu.Lock()
	a.timeouts++
	down := a.timeouts >= UnavailableAfter && a.status != StatusUnavailable && a.endpoint != none
	n := a.timeouts
	d.mu.Unlock()
	if down {
		d.SetStatus(a, StatusUnavailable, fmt.Sprintf("%d requests in a row timed out", n))
	}
}

// Missed notes a heartbeat ep missed for a; after UnavailableAfter in a row
// the agent is UNAVAILABLE, if ep still delivers for it.
func (d *Directory[E]) Missed(a *Agent[E], ep E) {
	d.mu.Lock()
	a.missed++
	down := a.missed >= UnavailableAfter && a.status != StatusUnavailable && a.endpoint == ep
	n := a.missed
	d.mu.Unlock()
	if down {
		d.SetStatus(a, StatusUnavailable, fmt.Sprintf("%d heartbeats missed", n))
	}
}
