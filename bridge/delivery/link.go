// Package delivery moves the bridge's messages to a connected party: a
// per-connection queue ordered by priority, bounded per connection and in
// total, that drops what expires while it waits and hands the rest, one at a
// time, to the connection's Link; and a watchdog that stops a send which
// blocks past the write timeout.
//
// It knows frames, priorities and deadlines; nothing of dialects, agents or
// routing.
package delivery

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Link carries messages to one connected party. Transports implement it.
type Link interface {
	// Send delivers one message. It may be called from several goroutines
	// at once, and must give up when ctx ends.
	Send(ctx context.Context, out Outbound) error
	// Transport names the transport: "websocket", "http", "stdio".
	Transport() string
}

// Aborter is implemented by links whose send in progress can be ended from
// outside (a WebSocket link closes its connection). A queue sends on such a
// link under a context that never ends, which spares each send the
// registration of a cancellation, and the watchdog aborts a send past the
// write timeout instead of cancelling its context.
type Aborter interface {
	Abort()
}

// Prompt is implemented by links that can take a message without waiting
// on the peer: what the peer's socket cannot take at once, the link keeps,
// and Flush writes it. A queue with nothing waiting hands such a link a
// message prompt to deliver (Item.Prompt) in the caller's goroutine,
// sparing the wake-up of its writer; the writer flushes what is left.
type Prompt interface {
	// SendNow delivers one message without waiting on the peer, and
	// reports whether the link kept some of it for Flush. It returns
	// ErrBusy, having written nothing, while a write the queue did not
	// make (a control frame) may be waiting on the peer: the queue's
	// writer then sends the message, and the caller goes on.
	SendNow(out Outbound) (backlog bool, err error)
	// Flush writes what SendNow kept, waiting on the peer as Send does.
	Flush(ctx context.Context) error
}

// Holder is implemented by links that can hold a message back to write
// it with the next one: a writer with more messages waiting holds each but
// the last, so that a burst costs the link one write to its peer. What is
// held past a bound the link writes at once, waiting as Send does; Flush
// writes what is held (the messages after it were dropped, expired).
type Holder interface {
	Hold(ctx context.Context, out Outbound) error
	Flush(ctx context.Context) error
}

// Outbound is one message on its way to a party.
type Outbound struct {
	// Frame is the message in the receiver's dialect. The link may keep it.
	Frame []byte
	// Env is the message as a canonical envelope, for a link that takes
	// envelopes rather than frames; nil otherwise. The link may keep it.
	Env *canonical.Envelope
	// Act is the message's canonical act.
	Act canonical.Act
	// Code is the error code of an error reply, empty otherwise.
	Code canonical.ErrorCode
	// Final marks the answer that ends a request of the receiving session:
	// a reply, or the error the bridge sent instead.
	Final bool
	// ByBridge marks a message the bridge made itself (an error in place
	// of an answer, a refusal of bad input, an accept or a notice), not one
	// an agent sent: transports that answer in a protocol of their own
	// (HTTP statuses) tell the bridge's errors from an agent's answers.
	ByBridge bool
	// Trace is the message's trace context, for transports that carry it
	// out of band (W3C traceparent on HTTP).
	Trace canonical.Trace
}
