package route

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/dedupe"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// duplicate handles a message its sender sent before within the window:
// a request is answered from the first copy, anything else is dropped.
func (r *Router) duplicate(ep Endpoint, env *canonical.Envelope, first dedupe.Key) Receipt {
	r.events.Emit(event.Event{Kind: event.Duplicate, Env: env})
	if !IsRequest(env.Act) {
		return Receipt{}
	}
	token, answer := r.dedupe.State(first)
	rs, resends := ep.(Resender)
	switch {
	case answer != nil && resends:
		failed := r.Unsent("answer to a repeated request", ep, env)
		if err := rs.Resend(*answer, failed.Unsent); err != nil {
			failed.Unsent(err)
		}
		return Receipt{Awaiting: true}
	case token != "":
		if p := r.pending.Lookup(token); p != nil && r.pending.Wait(p, ep) {
			return Receipt{Awaiting: true}
		}
	}
	return ep.Refuse(env, &canonical.Error{Code: canonical.ErrRejected,
		Message: "a repeated request whose answer the bridge no longer holds; send it with a new id"})
}
