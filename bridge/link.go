package bridge

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Link carries messages to one connected agent. Transports implement it.
type Link interface {
	// Send delivers one message. It may be called from several goroutines
	// at once, and must give up when ctx ends.
	Send(ctx context.Context, out Outbound) error
	// Transport names the transport: "websocket", "http", "stdio".
	Transport() string
}

// Outbound is one message on its way to an agent.
type Outbound struct {
	// Frame is the message in the receiver's dialect. The link may keep it.
	Frame []byte
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

// AttachOptions describe a connection being attached.
type AttachOptions struct {
	// Dialect is the connection's dialect; empty means detect it from the
	// first message.
	Dialect string
	// AgentID binds the connection to an agent from the start (a stdio
	// child, a dial-out, an agent that named itself when connecting);
	// empty means the first message's sender introduces it.
	AgentID string
	// Token is the credential the peer presented, checked against the
	// agent's configured token when the connection is bound.
	Token string
	// Remote describes the peer for logs (an address, a command).
	Remote string
	// Ephemeral marks a connection that lives for one exchange (an HTTP
	// request): it speaks for its agent but messages for the agent are
	// not delivered to it, only the answers to its own requests.
	Ephemeral bool
	// KeepAnswers, for an ephemeral session, keeps the answers to its
	// requests on it even when its agent has a connection of its own (a
	// webhook) that would otherwise receive them.
	KeepAnswers bool
	// Trace is trace context the transport received out of band (a W3C
	// traceparent header); it applies to messages that carry none.
	Trace canonical.Trace
}
