package bridge

import "github.com/mcp-bridge/mcp-bridge/canonical"

// Guard checks the messages the bridge receives before they are routed,
// and stamps the ones it sends: whether a message proves who sent it
// (a token it carries), whether its sender may send now (a rate), and
// the credential a message carries to its receiver. The server installs
// one built from the config; without one (Options.Guard nil) messages go
// through as they are, at the cost of one nil test.
type Guard interface {
	// Admit checks env, read from the session s: its agent ids are
	// canonical, and its sender is not yet checked against the
	// connection. It returns the agent id the message itself proves it
	// speaks for ("" for none), or the error the sender is answered with
	// instead of routing the message. It may change env (take the
	// credential out of it, name the sender the credential proves).
	Admit(s *Session, env *canonical.Envelope) (proven string, e *canonical.Error)
	// Stamp returns the credential a message in dialect from the agent
	// sender to the agent to carries (Envelope.Authentication), "" for
	// none.
	Stamp(dialect, sender, to string) canonical.JSON
}

// Identity is who a connection proved it is when it was made.
type Identity struct {
	// Agent is the agent id it proved it speaks for; "" for none.
	Agent string
	// By says how: "jwt" (a bearer token), "tls" (a client certificate).
	By string
}

// Identity returns who the connection proved it is when it was made.
func (s *Session) Identity() Identity { return s.opts.identity() }

// Reached reports whether the bridge made the connection itself, to an
// agent its config names (AttachOptions.Reached).
func (s *Session) Reached() bool { return s.opts.reached }

// Ephemeral reports whether the session lives for one exchange (an HTTP
// request).
func (s *Session) Ephemeral() bool { return s.opts.ephemeral }
