package bridge

import (
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Status is an agent's lifecycle state (specs/collab.md section 3.1).
type Status string

// The lifecycle states.
const (
	StatusInitializing Status = "INITIALIZING"
	StatusReady        Status = "READY"
	StatusBusy         Status = "BUSY"
	StatusUnavailable  Status = "UNAVAILABLE"
	StatusStopping     Status = "STOPPING"
	StatusStopped      Status = "STOPPED"
)

// AgentSpec declares an agent before it connects (from the config file).
type AgentSpec struct {
	ID, Dialect string
	// Token, when set, must be presented by a connection claiming ID.
	Token string
	// Tools are operations the agent serves, in its dialect's spelling
	// (fuse as capability/action).
	Tools []string
	// Subscribe lists the topics it receives.
	Subscribe []string
}

// agent is the registry's record of one agent, guarded by Bridge.mu.
type agent struct {
	id        string // canonical id
	dialect   string
	token     string
	declared  bool
	status    Status
	transport string
	// tools are the operations it serves, in its dialect's spelling.
	tools []canonical.Tool
	// topics it is subscribed to.
	topics map[string]bool
	// session delivers its messages; nil while it is not connected.
	session *Session
	// timeouts and missed count requests timed out and heartbeats missed
	// in a row; inflight counts requests delivered and not answered.
	timeouts, missed int
	inflight         atomic.Int32
	breaker          breaker
}

// AgentInfo describes an agent for GET /v1/agents.
type AgentInfo struct {
	ID           string   `json:"id"`
	Dialect      string   `json:"dialect"`
	Transport    string   `json:"transport"`
	Status       Status   `json:"status"`
	Capabilities []string `json:"capabilities"`
	Topics       []string `json:"topics"`
}

func (a *agent) info() AgentInfo {
	in := AgentInfo{ID: a.id, Dialect: a.dialect, Transport: a.transport, Status: a.status, Capabilities: []string{}, Topics: []string{}}
	if in.Status == StatusReady && a.inflight.Load() > 0 {
		in.Status = StatusBusy
	}
	for _, t := range a.tools {
		in.Capabilities = append(in.Capabilities, toolName(t))
	}
	for t := range a.topics {
		in.Topics = append(in.Topics, t)
	}
	sort.Strings(in.Topics)
	return in
}

// serves reports whether the agent declared the operation name, spelled
// in its dialect: a tool's name, or capability/action for two-level names
// (an action matches a tool of that name with no capability or the same
// one), or a bare capability.
func (a *agent) serves(name string) bool {
	capability, action, two := strings.Cut(name, "/")
	return slices.ContainsFunc(a.tools, func(t canonical.Tool) bool {
		if two {
			return t.Name == action && (t.Capability == "" || t.Capability == capability)
		}
		return t.Name == name || t.Capability == name
	})
}

// toolName spells a tool as operation names are written in mapping files.
func toolName(t canonical.Tool) string {
	if t.Capability != "" && t.Name != "" {
		return t.Capability + "/" + t.Name
	}
	if t.Name == "" {
		return t.Capability
	}
	return t.Name
}

// toolsFromNames turns configured operation names into tools.
func toolsFromNames(names []string) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(names))
	for _, n := range names {
		if c, a, ok := strings.Cut(n, "/"); ok {
			out = append(out, canonical.Tool{Capability: c, Name: a})
		} else {
			out = append(out, canonical.Tool{Name: n})
		}
	}
	return out
}

// Agents lists the registered agents sorted by id; a non-empty capability
// keeps those that serve it.
func (b *Bridge) Agents(capability string) []AgentInfo {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]AgentInfo, 0, len(b.agents))
	for _, a := range b.agents {
		if capability != "" && !a.serves(capability) {
			continue
		}
		out = append(out, a.info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Declare registers an agent ahead of its connection.
func (b *Bridge) Declare(s AgentSpec) {
	b.mu.Lock()
	defer b.mu.Unlock()
	a := b.agentLocked(s.ID, s.Dialect)
	a.declared = true
	a.token = s.Token
	a.tools = append(a.tools, toolsFromNames(s.Tools)...)
	for _, t := range s.Subscribe {
		a.topics[t] = true
	}
}

// agentLocked returns the record of id, creating it. b.mu is held.
func (b *Bridge) agentLocked(id, dialect string) *agent {
	a := b.agents[id]
	if a == nil {
		a = &agent{id: id, dialect: dialect, status: StatusStopped, topics: map[string]bool{}}
		b.agents[id] = a
	}
	return a
}
