package reach

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

// Way is one way the bridge reaches an agent: a transport's record.
type Way struct {
	// Name is the agent key that selects the way: "url", "webhook",
	// "command", "mcp". An agent has at most one.
	Name string
	// Kind names the way in listings and logs: "websocket", "stdio".
	Kind string
	// Rank places the way's keys among the agent's keys, in errors, the
	// reference and the schema: lower first.
	Rank int
	// Key is the spec of the key Name: its value, documentation and
	// checks.
	Key *spec.Node
	// With are keys beside Name that go only with it (command's env and
	// dir); each says so with Only.
	With []*spec.Node
	// Dialect, when set, is the dialect label of every agent reached this
	// way, which speaks the transport's own protocol and names no
	// dialect; Speaker names such an agent ("an MCP server") and Protocol
	// its protocol ("MCP"), in errors and the reference.
	Dialect, Speaker, Protocol string
	// Again, when set, says that the way reaches its agent again after a
	// wait when the connection ends: the agent's restart_backoff applies.
	Again *Again
	// Starting marks a way that connects in the background: the agent is
	// listed as starting until it does.
	Starting bool
	// Bind reads the way's settings from an agent's decoded entry, its
	// keys checked already and its defaults filled in.
	Bind func(agent *spec.Value) any
	// Start begins reaching agent a: it returns what runs until ctx ends,
	// or the error that makes the agent unreachable (the bridge refused
	// it).
	Start func(ctx context.Context, h Host, a Agent) (run func(), err error)
	// Same reports whether two entries of an agent, both of this way,
	// reach it the same way: when not, a reload reaches it anew.
	Same func(a, b Agent) bool
}

// Again is how a way reaches its agent again, for restart_backoff.
type Again struct {
	// Doc says it for the reference: "redialling a `url` agent".
	Doc string
	// Rank places the way's key in restart_backoff's "only with" list:
	// lower first.
	Rank int
}

// Host is what the server gives a way to reach an agent with.
type Host struct {
	// Bridge is the bridge core, a *bridge.Bridge (transports.Core
	// returns it typed). It is held untyped: the config reads the ways'
	// keys from this package, and must not depend on the core, whose own
	// tests read configs.
	Bridge any
	Logger *slog.Logger
	// TLS is the TLS agents are dialled with (wss://); nil: Go's
	// defaults.
	TLS *tls.Config
	// HTTP is the client of the agents the bridge POSTs to; nil:
	// http.DefaultClient.
	HTTP *http.Client
}

// Agent is an agent of the config, as a way sees it.
type Agent struct {
	ID, Dialect, Token string
	// BackoffMin and BackoffMax bound the wait before the agent is
	// reached again (restart_backoff; zero for a way without Again).
	BackoffMin, BackoffMax time.Duration
	// Settings are what the way's Bind read.
	Settings any
}

// SameSettings reports whether a and b have equal settings: for Same,
// where the way does not present the agent's token.
func SameSettings(a, b Agent) bool { return equal(a.Settings, b.Settings) }

// SameSettingsAndToken reports whether a and b have equal settings and
// token: for Same, where the way presents the token to the agent or the
// bridge.
func SameSettingsAndToken(a, b Agent) bool { return a.Token == b.Token && SameSettings(a, b) }
