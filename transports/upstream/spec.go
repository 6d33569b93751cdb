// Package upstream makes an MCP server an agent of the bridge: the bridge
// is its MCP client (mark3labs/mcp-go's), runs it as a child on stdio or
// reaches it over streamable HTTP, lists its tools (every page) and
// declares them in the directory as the agent's tools, with their
// descriptions and schemas. A request to the agent, from any dialect,
// becomes a tools/call; the tool's result, its isError result and a
// JSON-RPC error come back as a canonical result, failure and error. The
// server's tools/list_changed makes the bridge list again; progress
// notifications travel to the requester; a request the bridge gives up is
// cancelled upstream. A server that dies, or a connection that drops, makes
// the agent UNAVAILABLE (its tools leave the MCP face's list) and answers
// the calls in flight unavailable; it is started or dialled again with a
// backoff.
package upstream

import (
	"log/slog"
	"time"
)

// Spec says how to reach one MCP server that is an agent.
type Spec struct {
	// ID is the agent's id.
	ID string
	// Command runs the server as a child speaking MCP on stdin/stdout,
	// with Env added to the bridge's environment, in Dir.
	Command []string
	Env     map[string]string
	Dir     string
	// URL reaches the server over streamable HTTP instead, with Headers
	// on every request.
	URL     string
	Headers map[string]string
	// BackoffMin and BackoffMax bound the wait before a restart or
	// redial (defaults DefaultBackoffMin, DefaultBackoffMax).
	BackoffMin, BackoffMax time.Duration
	// StopGrace is how long a child has to exit after its standard input
	// is closed and SIGTERM is sent, before it is killed.
	StopGrace time.Duration
	// Concurrency bounds the calls in flight to the server (default
	// DefaultConcurrency).
	Concurrency int
	// PingEvery is how often a server over HTTP is pinged (MCP ping); one
	// that does not answer within it has lost its connection, which is
	// made again (default DefaultPingEvery). A child on stdio is watched
	// through its process instead.
	PingEvery time.Duration
	// Logger receives the transport's lines, and a child's standard error
	// at debug level (nil: slog.Default()).
	Logger *slog.Logger
}

// Dialect is the label an MCP server agent has in the directory and logs.
const Dialect = "mcp"

// The defaults of Spec.
const (
	DefaultBackoffMin  = 100 * time.Millisecond
	DefaultBackoffMax  = 10 * time.Second
	DefaultStopGrace   = 5 * time.Second
	DefaultConcurrency = 64
	DefaultPingEvery   = 5 * time.Second
)

func (s Spec) withDefaults() Spec {
	if s.BackoffMin <= 0 {
		s.BackoffMin = DefaultBackoffMin
	}
	if s.BackoffMax < s.BackoffMin {
		s.BackoffMax = max(DefaultBackoffMax, s.BackoffMin)
	}
	if s.StopGrace <= 0 {
		s.StopGrace = DefaultStopGrace
	}
	if s.Concurrency <= 0 {
		s.Concurrency = DefaultConcurrency
	}
	if s.PingEvery <= 0 {
		s.PingEvery = DefaultPingEvery
	}
	if s.Logger == nil {
		s.Logger = slog.Default()
	}
	return s
}

// where names the server for logs: its command or its URL.
func (s Spec) where() string {
	if len(s.Command) > 0 {
		return "stdio:" + s.Command[0]
	}
	return s.URL
}
