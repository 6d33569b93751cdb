package config

import (
	_ "embed"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// DefaultClusterListen is where an embedded NATS listens by default.
const DefaultClusterListen = "127.0.0.1:4222"

//go:embed default.yaml
var defaultFile []byte

// Config is a serve configuration.
type Config struct {
	Listen          string        // host:port of the one HTTP listener
	BridgeID        string        // the sender id of the bridge's own messages
	MaxFrame        int           // the largest message accepted, in bytes
	RequestTimeout  time.Duration // how long a request waits for its reply, unless the message says
	WriteTimeout    time.Duration // how long one delivery may block
	ShutdownTimeout time.Duration // how long a graceful shutdown may take
	DedupeWindow    time.Duration // how long a message id is remembered: one sent again within it is delivered once
	Heartbeat       time.Duration // how often WebSocket agents are pinged; 3 missed make one UNAVAILABLE; 0 turns it off
	Retry           Retry         // when requests are delivered again
	CircuitBreaker  CircuitBreaker
	Validate        string   // "schema": every message against its dialect's schema and rules; "decode": the decoder's checks only
	QueuePerAgent   int      // bound of one agent's outbound queue
	QueueTotal      int      // bound of all outbound queues together
	Mappings        []string // mapping files, joined to the config file's directory
	LogLevel        slog.Level
	HTTP            HTTP
	MCP             MCP
	A2A             A2A
	UI              UI
	Cluster         Cluster
	Memory          Memory
	PProf           bool // serve /debug/pprof/ on the listener
	Auth            Auth
	TLS             TLS
	Limits          Limits
	Reload          Reload
	Tracing         Tracing
	Agents          []Agent
	File            string // where it was read from ("" for the embedded default)
}

// Memory bounds the bridge's tables and sets the Go runtime's memory
// settings (memory:).
type Memory struct {
	DedupeEntries   int   // messages the dedupe table remembers
	DedupeAnswers   int   // bytes of answers kept for repeated requests
	PendingRequests int   // requests open at once
	A2ATasks        int   // tasks the A2A face keeps
	MCPSessions     int   // MCP sessions the MCP face keeps
	GOGC            int   // the collector's target percentage; 0: off
	Limit           int64 // a soft memory limit in bytes; 0: none
}

// HTTP configures the HTTP API (http:).
type HTTP struct {
	// ForgetAfter is how long an agent known only from the requests it
	// POSTed stays listed after its last one; 0 keeps it for ever.
	ForgetAfter time.Duration
}

// Agent is one agent the config names: its id, dialect and how the bridge
// reaches it.
type Agent struct {
	ID, Dialect, Token string
	Tools              []Tool // what it serves, as the config declares it
	Subscribe          []string
	Reach              Reach         // how the bridge reaches it
	Settings           any           // what Reach's way read of the agent's keys (its transport's type); nil for ReachInbound
	BackoffMin         time.Duration // for a way that reaches the agent again: the first wait before a restart or redial
	BackoffMax         time.Duration // the longest wait
	Line               int           // line of the agent's entry, for messages
	DialectLine        int           // line of its dialect
}

// Reach is how the bridge and an agent find each other: ReachInbound, or
// the name of the registered way (package reach) the bridge reaches the
// agent with, the agent key that selects it ("url", "webhook", "command",
// "mcp").
type Reach string

// ReachInbound is an agent that connects to the bridge.
const ReachInbound Reach = ""

// Way returns the registered way of r; false for ReachInbound or a name
// no way is registered as.
func (r Reach) Way() (*reach.Way, bool) {
	if r == ReachInbound {
		return nil, false
	}
	return reach.Lookup(string(r))
}

// String names r as listings do: "inbound", or its way's kind
// ("websocket", "stdio").
func (r Reach) String() string {
	if r == ReachInbound {
		return "inbound"
	}
	if w, ok := r.Way(); ok {
		return w.Kind
	}
	return fmt.Sprintf("Reach(%q)", string(r))
}

// Reached is the agent as its way sees it.
func (a Agent) Reached() reach.Agent {
	return reach.Agent{ID: a.ID, Dialect: a.Dialect, Token: a.Token, BackoffMin: a.BackoffMin, BackoffMax: a.BackoffMax, Settings: a.Settings}
}

// Parse reads a config file's text. name is used in errors and its
// directory anchors relative paths; dialects are the dialect names an agent
// may have (nil defers that check to CheckDialects, for dialects the
// config's own mapping files declare). Every problem is reported, as Errors.
func Parse(name string, data []byte, dialects []string) (*Config, error) {
	root, d := decodeFile(name, data)
	if root != nil {
		checkDialects(d, root, dialects)
	}
	if errs := d.Errors(); len(errs) > 0 {
		return nil, errs
	}
	return bind(root, name), nil
}

// CheckDialects reports every agent whose dialect is not among known.
func (c *Config) CheckDialects(known []string) error {
	var errs Errors
	names := slices.Sorted(slices.Values(known))
	for i, a := range c.Agents {
		if w, ok := a.Reach.Way(); (!ok || w.Dialect == "") && !slices.Contains(known, a.Dialect) {
			errs = append(errs, &Error{File: c.File, Line: a.DialectLine, Key: fmt.Sprintf("agents[%d].dialect", i),
				Msg: unknownDialect(a.Dialect, names)})
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}

// Load reads and parses the config file at path.
func Load(path string, dialects []string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return Parse(path, data, dialects)
}

// defaultName is how errors name the embedded default.
const defaultName = "config/default.yaml"

// Default returns the embedded default config, default.yaml: a loopback
// listener and no agents. It panics if the embedded file does not parse.
func Default() *Config {
	c, err := Parse(defaultName, defaultFile, dialects.Names())
	if err != nil {
		panic(fmt.Sprintf("the embedded default config: %v", err))
	}
	c.File = ""
	return c
}
