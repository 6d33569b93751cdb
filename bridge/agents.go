package bridge

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
)

// Status is an agent's lifecycle state (specs/collab.md section 3.1).
type Status = directory.Status

// The lifecycle states.
const (
	StatusInitializing = directory.StatusInitializing
	StatusReady        = directory.StatusReady
	StatusBusy         = directory.StatusBusy
	StatusUnavailable  = directory.StatusUnavailable
	StatusStopping     = directory.StatusStopping
	StatusStopped      = directory.StatusStopped
)

// AgentInfo describes an agent for GET /v1/agents.
type AgentInfo = directory.Info

// AgentSpec declares an agent before it connects (from the config file).
type AgentSpec = directory.Spec

// RetryPolicy says when a request is delivered again (resilience).
type RetryPolicy = resilience.RetryPolicy

// BreakerPolicy is each agent's circuit breaker (resilience).
type BreakerPolicy = resilience.BreakerPolicy

// The default policies: collab's (specs/collab.md 5.2, 5.3).
var (
	DefaultRetryPolicy   = resilience.DefaultRetryPolicy
	DefaultBreakerPolicy = resilience.DefaultBreakerPolicy
)

// Agents lists the registered agents sorted by id; a non-empty capability
// keeps those that serve it.
func (b *Bridge) Agents(capability string) []AgentInfo { return b.dir.Agents(capability) }

// AgentsPage lists at most limit of the registered agents whose ids sort
// after after ("" from the first), sorted by id, and whether more follow;
// a non-empty capability keeps those that serve it.
func (b *Bridge) AgentsPage(capability, after string, limit int) ([]AgentInfo, bool) {
	return b.dir.AgentsPage(capability, after, limit)
}

// Agent describes the agent id.
func (b *Bridge) Agent(id string) (AgentInfo, bool) { return b.dir.Agent(id) }

// Tool is one tool of one agent, with its schemas.
type Tool = directory.Tool

// Tools returns the tools of every agent that can be reached now (connected,
// and READY, BUSY or INITIALIZING), sorted by agent and name.
func (b *Bridge) Tools() []Tool { return b.dir.Tools(false) }

// AllTools returns the tools of every agent the bridge knows, reachable or
// not, sorted by agent and name; each says its agent's status.
func (b *Bridge) AllTools() []Tool { return b.dir.Tools(true) }

// RequestTimeout returns how long a request waits for its answer when it
// says nothing of its own.
func (b *Bridge) RequestTimeout() time.Duration { return b.r.RequestTimeout() }

// Totals returns the bridge's message and request counts since it
// started, over all agents (metrics.Totals).
func (b *Bridge) Totals() metrics.Totals { return b.metrics.Totals() }

// Change is one change to the register of agents.
type Change = directory.Change

// The kinds of Change.
const (
	StatusChanged = directory.StatusChanged
	Declared      = directory.Declared
	Removed       = directory.Removed
)

// Watch calls fn with every change to the register of agents (an agent
// came, went, declared its tools, changed status) until stop is called. fn
// runs in the goroutine that made the change and must not block.
func (b *Bridge) Watch(fn func(Change)) (stop func()) { return b.dir.Watch(fn) }

// Declare registers an agent ahead of its connection.
func (b *Bridge) Declare(s AgentSpec) { b.dir.Declare(s) }

// Starting marks the declared agent id INITIALIZING: the bridge is
// starting it (a stdio child) or dialling it, and it is not connected yet.
func (b *Bridge) Starting(id string) { b.dir.Starting(id) }

// Unreachable marks the declared agent id UNAVAILABLE for reason: the
// bridge tried to reach it and could not, and it is not connected.
func (b *Bridge) Unreachable(id, reason string) { b.dir.Unreachable(id, reason) }

// Pending returns how many requests wait for their answer.
func (b *Bridge) Pending() int { return b.pending.Count() }

// Redeclare replaces the config's declaration of an agent (a config
// reloaded): its token applies to connections made from now on, its
// tools and topics at once; its connection stays.
func (b *Bridge) Redeclare(s AgentSpec) { b.dir.Redeclare(s) }

// Remove forgets the agent id (gone from a reloaded config): its
// connections are closed, telling the agent why where the transport can,
// requests waiting on it fail, and it is no longer listed.
func (b *Bridge) Remove(id, reason string) {
	for _, s := range b.allSessions() {
		if s.AgentID() != id {
			continue
		}
		if c, ok := s.link.(Closer); ok {
			go func() { _ = c.Close(reason) }()
		}
		s.detach(StatusStopped, reason)
	}
	if b.dir.Remove(id, reason) {
		b.log.Info("agent removed", "agent", id, "reason", reason)
	}
}
