package bridge

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/dedupe"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Duplicate suppression (package dedupe): a message whose sender sends it
// again within the window is delivered once. A request sent again is
// answered from the first: with its answer once that comes (again for
// each copy), or at once with the answer already given.

// The defaults of the dedupe table's bounds (config memory:).
const (
	DefaultDedupeEntries = dedupe.DefaultEntries
	DefaultDedupeAnswers = dedupe.DefaultAnswers
)

// dedupeID is a message's identity in the dedupe table.
type dedupeID = dedupe.Key

// duplicate handles a message its sender sent before within the window:
// a request is answered from the first copy, anything else is dropped.
func (b *Bridge) duplicate(ep endpoint, env *canonical.Envelope, first dedupeID) Receipt {
	b.events.Emit(event.Event{Kind: event.Duplicate, Env: env})
	if !isRequest(env.Act) {
		return Receipt{}
	}
	token, answer := b.dedupe.State(first)
	s, isSession := ep.(*Session)
	switch {
	case answer != nil && isSession:
		it := &delivery.Item{Out: *answer, Level: delivery.NormalLevel, Force: true,
			Failed: b.unsent("answer to a repeated request", ep, env)}
		if err := s.out.Put(it); err != nil {
			it.Fail(err)
		}
		return Receipt{Awaiting: true}
	case token != "":
		if p := b.pending.Lookup(token); p != nil && b.pending.Wait(p, ep) {
			return Receipt{Awaiting: true}
		}
	}
	return ep.refuse(env, &canonical.Error{Code: canonical.ErrRejected,
		Message: "a repeated request whose answer the bridge no longer holds; send it with a new id"})
}
