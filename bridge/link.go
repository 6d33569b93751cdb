package bridge

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Link carries messages to one connected agent. Transports implement it.
type Link = delivery.Link

// Outbound is one message on its way to an agent.
type Outbound = delivery.Outbound

// Aborter is implemented by links whose send in progress can be ended from
// outside (delivery.Aborter).
type Aborter = delivery.Aborter

// ErrBusy is what a prompt link's SendNow returns while a write the queue
// did not make may be waiting on the peer (delivery.ErrBusy).
var ErrBusy = delivery.ErrBusy

// Pinger is implemented by links that can check their peer is alive (a
// WebSocket ping).
type Pinger interface {
	Ping(ctx context.Context) error
}

// Closer is implemented by links that can end their connection, telling
// the peer why (a WebSocket close frame).
type Closer interface {
	Close(reason string) error
}

// Canceller is implemented by links that can stop an agent's work on a
// request the bridge no longer waits for (it timed out, its caller
// cancelled): an MCP server upstream is sent notifications/cancelled.
// token is the id the request went out under.
type Canceller interface {
	Cancel(token string)
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
	// Identity is the agent id the connection proved it speaks for when
	// it was made (a verified JWT, a client certificate): it may speak
	// for no other agent, and needs no static token for that one.
	Identity Identity
	// Reached marks a connection the bridge made itself to an agent of
	// its config (a dial-out, a stdio child, a webhook, an MCP server):
	// the config vouches for who it is.
	Reached bool
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
	// Envelopes marks a link that takes canonical envelopes rather than
	// frames of a dialect (an MCP server upstream): the bridge sends it
	// each message as Outbound.Env, and the transport hands the agent's
	// messages to Session.ReceiveEnvelope. Dialect is then only a label
	// for logs and the directory ("mcp"), and AgentID is required.
	Envelopes bool
}
