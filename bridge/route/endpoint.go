package route

import (
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Endpoint is a party the router delivers to and takes messages from: a
// connection of an agent, which speaks its dialect (a bridge.Session), a
// caller of the call API waiting for its answer, or an agent another
// instance of a cluster holds. The directory keeps the endpoint that
// delivers to each connected agent; the correlation table keeps the
// endpoint each request's answers go to.
type Endpoint interface {
	// Transport names how the party is connected.
	Transport() string
	// Deliver hands the party one message. What goes wrong at once (its
	// dialect cannot express it, its queue is full) is returned; what
	// goes wrong later is told to o.Failure. It returns the
	// frame queued, nil when there is none (a mapping policy dropped the
	// message, or the party takes envelopes, not frames).
	Deliver(o *Outgoing) (*delivery.Outbound, *canonical.Error)
	// Refuse answers env (nil when it could not be decoded) with e.
	Refuse(env *canonical.Envelope, e *canonical.Error) Receipt
	// Bound returns the agent the party speaks for, nil if none.
	Bound() *Agent
	// Prompt reports whether what the party's message now being handled
	// causes may be written to its receivers by the goroutine handling it
	// (delivery.Item.Prompt): the party has nothing more waiting to be
	// read, or it waits for the answer anyway.
	Prompt() bool
}

// Ephemeral is implemented by an endpoint that lives for one exchange (an
// HTTP request): the answers to its requests go to its agent's own
// connection when it has one, unless the endpoint keeps them.
type Ephemeral interface {
	KeepsAnswers() bool
}

// Canceller is implemented by an endpoint that can tell its agent to stop
// work on a request the bridge no longer waits for; token is the id the
// request went out under.
type Canceller interface {
	Cancel(token string)
}

// Resender is implemented by an endpoint that can be handed a frame
// already encoded for it (the answer kept for a request sent again).
type Resender interface {
	Resend(out delivery.Outbound, failed func(error)) error
}

// Agent is the directory's record of an agent.
type Agent = directory.Agent[Endpoint]

// Target is a connected agent and the endpoint that delivers to it.
type Target = directory.Target[Endpoint]

// Outgoing is one message for an endpoint.
type Outgoing struct {
	// Env is the message; From is the dialect it was decoded from, ""
	// for the bridge's own and the call API's. Deliver does not change
	// Env.
	Env  *canonical.Envelope
	From string
	// Final marks the answer that ends a request of the receiving party.
	Final bool
	// Answer marks a message about a request of the receiving party: it
	// asked, so the message is not held to its queue's bound; AtLeast is
	// the queue level it goes no lower than (its request's).
	Answer  bool
	AtLeast int
	// ByBridge marks an error the bridge made, not an agent's answer.
	ByBridge bool
	// Failure is told when the message could not be delivered after it
	// was queued; nil logs it. Sent, if set, is told when the party's
	// link took it.
	Failure Failure
	Sent    func()
	// Prompt lets the message be written by the goroutine delivering it
	// (delivery.Item.Prompt).
	Prompt bool
}

// Failure is told that a message could not be delivered after it was
// queued (Outgoing.Failure): a caller keeps what it has to tell in an
// object it makes anyway (Router.Unsent's), or in a FailureFunc.
type Failure interface {
	Unsent(reason error)
}

// FailureFunc is a function as a Failure.
type FailureFunc func(reason error)

// Unsent calls f.
func (f FailureFunc) Unsent(reason error) { f(reason) }

// Receipt says what became of one received message.
type Receipt struct {
	// Awaiting is set when the message was a request whose answer will be
	// delivered to its sender's endpoint.
	Awaiting bool
	// Err is the problem the sender was answered with, if any.
	Err *canonical.Error
}

// IsRequest reports whether act asks for an answer.
func IsRequest(act canonical.Act) bool {
	switch act {
	case canonical.ActRequest, canonical.ActQueryIf, canonical.ActQueryRef, canonical.ActQueryCapabilities:
		return true
	}
	return false
}

// IsFinal reports whether act ends a request (accept and needs-input do
// not: more follows).
func IsFinal(act canonical.Act) bool {
	return act.IsReply() && act != canonical.ActAccept
}
