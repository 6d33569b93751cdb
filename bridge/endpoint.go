package bridge

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// endpoint is a party the bridge delivers to and takes messages from: a
// connection of an agent, which speaks its dialect (a Session), or a caller
// of the call API waiting for its answer (a call). The directory keeps the
// endpoint that delivers to each connected agent; the correlation table
// keeps the endpoint each request's answers go to.
type endpoint interface {
	// Transport names how the party is connected.
	Transport() string
	// deliver hands the party one message. What goes wrong at once (its
	// dialect cannot express it, its queue is full) is returned; what
	// goes wrong later is told to o.failed. It returns the frame queued,
	// nil when there is none (a mapping policy dropped the message, or
	// the party takes envelopes, not frames).
	deliver(o *outgoing) (*delivery.Outbound, *canonical.Error)
	// refuse answers env (nil when it could not be decoded) with e.
	refuse(env *canonical.Envelope, e *canonical.Error) Receipt
	// bound returns the agent the party speaks for, nil if none.
	bound() *agent
	// prompt reports whether what the party's message now being handled
	// causes may be written to its receivers by the goroutine handling it
	// (delivery.Item.Prompt): the party has nothing more waiting to be
	// read, or it waits for the answer anyway.
	prompt() bool
}

// outgoing is one message for an endpoint.
type outgoing struct {
	// env is the message; from is the dialect it was decoded from, ""
	// for the bridge's own and the call API's. deliver does not change
	// env.
	env  *canonical.Envelope
	from string
	// final marks the answer that ends a request of the receiving party.
	final bool
	// answer marks a message about a request of the receiving party: it
	// asked, so the message is not held to its queue's bound; atLeast is
	// the queue level it goes no lower than (its request's).
	answer  bool
	atLeast int
	// byBridge marks an error the bridge made, not an agent's answer.
	byBridge bool
	// failed is told when the message could not be delivered after it was
	// queued; nil logs it. sent, if set, is told when the party's link
	// took it.
	failed func(reason error)
	sent   func()
	// prompt lets the message be written by the goroutine delivering it
	// (delivery.Item.Prompt).
	prompt bool
}

// Receipt says what became of one received frame.
type Receipt struct {
	// Awaiting is set when the frame was a request whose answer will be
	// delivered to this session.
	Awaiting bool
	// Err is the problem the sender was answered with, if any.
	Err *canonical.Error
}
