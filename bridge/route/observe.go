package route

import (
	"fmt"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// copied tells that to is a copy of env on its way (a request under its
// token, an answer in its requester's terms), for whoever pairs a message
// with its arrival.
func (r *Router) copied(env, to *canonical.Envelope) {
	if r.events.Wants(event.Copies) {
		r.events.Emit(event.Event{Kind: event.Copied, Env: env, Copy: to})
	}
}

// relayed hands env, a message of the local agent a about a request, to
// the cluster's relay, and reports whether it was about a request another
// instance forwarded.
func (r *Router) relayed(a *Agent, env *canonical.Envelope) bool {
	fn := r.relay.Load()
	return fn != nil && (*fn)(a, env, true)
}

// relays reports whether env, a message of the local agent a, is about a
// request another instance forwarded, without relaying it.
func (r *Router) relays(a *Agent, env *canonical.Envelope) bool {
	fn := r.relay.Load()
	return fn != nil && (*fn)(a, env, false)
}

// closingRefusal answers requests that arrive once the router is closed.
func closingRefusal() *canonical.Error {
	yes := true
	return &canonical.Error{Code: canonical.ErrUnavailable, Retryable: &yes, Message: "the bridge is shutting down"}
}

// evicted answers the requester of p, the oldest open request, closed to
// make room for a new one past the pending_requests bound.
func (r *Router) evicted(p *Request) {
	r.evictions.Dropped(1)
	r.givenUp(p)
	r.Fail(p, canonical.ErrUnavailable, fmt.Sprintf("the bridge holds too many open requests (%d, config memory.pending_requests); the oldest, this one, was given up", r.pending.Limit()))
}
