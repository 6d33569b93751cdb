// Package directory is the bridge's register of agents: each agent's id,
// dialect, how it is connected, its lifecycle status, the tools it serves
// (as descriptors with their schemas) and the topics it follows. Those who
// need to know (the MCP face, the status topic, logs and metrics) watch it
// and hear of every change: an agent came, went, declared its tools again,
// or changed status.
//
// Ids are canonical here: the caller resolves a dialect's spelling (aliases,
// case) before it asks, with Resolve's help.
package directory

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/resilience"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Endpoint is how the bridge reaches a connected agent (a connection); the
// directory only keeps it.
type Endpoint interface {
	comparable
	// Transport names how it is connected: "websocket", "stdio"...
	Transport() string
}

// Spec declares an agent before it connects (from the config file).
type Spec struct {
	ID, Dialect string
	// Token, when set, must be presented by a connection claiming ID.
	Token string
	// Tools are the operations it serves, as the config describes them.
	Tools []canonical.Tool
	// Subscribe lists the topics it receives.
	Subscribe []string
}

// Agent is the directory's record of one agent. Its fields change under the
// directory's lock, through the directory's methods; ID, Dialect and the
// counters are safe to read at any time.
type Agent[E Endpoint] struct {
	id, dialect string
	token       string
	status      Status
	transport   string
	// tools are the operations it serves, in its dialect's spelling: a
	// list the interner may share with other agents, never modified in
	// place (its capacity is its length, so that an append copies it).
	tools []canonical.Tool
	// topics it is subscribed to (nil for none); cfgTopics those of its
	// spec.
	topics    map[string]bool
	cfgTopics []string
	// endpoint delivers its messages; the zero E while it is not connected.
	endpoint E
	// timeouts and missed count requests timed out and heartbeats missed
	// in a row.
	timeouts, missed int
	// lastSeen is when an agent known only from HTTP requests (httpOnly)
	// last sent one.
	lastSeen time.Time
	// instance is the instance of a cluster that holds the agent's
	// connection, "" for this one; since is when that connection began.
	instance string
	since    time.Time
	// inflight counts requests delivered to it and not answered.
	inflight atomic.Int32
	// The flags sit beside inflight, in one word (each alone took eight
	// bytes with its padding: the struct fell to a smaller size class).
	// declared says it was declared in the config; learned says the
	// agent declared its tools itself: a new spec does not replace them;
	// httpOnly marks an agent known only from HTTP requests it sent.
	declared, learned, httpOnly bool
	// Breaker is its circuit breaker.
	Breaker resilience.Breaker
}

// ID returns the agent's canonical id.
func (a *Agent[E]) ID() string { return a.id }

// Dialect returns the dialect it speaks.
func (a *Agent[E]) Dialect() string { return a.dialect }

// Inflight adds delta to the count of requests delivered to it and not
// answered.
func (a *Agent[E]) Inflight(delta int32) { a.inflight.Add(delta) }

// Directory is the register of agents, by canonical id. E is the bridge's
// type of endpoint.
type Directory[E Endpoint] struct {
	mu       sync.RWMutex
	agents   map[string]*Agent[E]
	watchers watchers
	self     string // this instance's name in a cluster, "" alone
	in       *interner
}

// SetInstance names this instance of a cluster: Info says which instance
// holds each agent.
func (d *Directory[E]) SetInstance(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.self = name
}

// Instance returns this instance's name in a cluster, "" when alone.
func (d *Directory[E]) Instance() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.self
}

// Remote reports whether another instance of a cluster holds a.
func (a *Agent[E]) Remote() bool { return a.instance != "" }

// New returns an empty directory.
func New[E Endpoint]() *Directory[E] {
	return &Directory[E]{agents: map[string]*Agent[E]{}, in: newInterner()}
}

// Declare registers an agent ahead of its connection, with the tools and
// topics its spec names.
func (d *Directory[E]) Declare(s Spec) { d.declare(s, false) }

// Redeclare replaces what the spec of an agent already declared says (a
// config reloaded): its token, its topics from the spec, and its tools
// unless the agent declared its own. Its connection, if any, stays.
func (d *Directory[E]) Redeclare(s Spec) { d.declare(s, true) }

// declare files s: its tools added to the agent's, or, again, in place of
// the spec's before (unless the agent declared its own); its topics in
// place of the spec's before.
func (d *Directory[E]) declare(s Spec, again bool) {
	d.mu.Lock()
	a := d.agentLocked(s.ID, s.Dialect)
	a.declared = true
	a.token = s.Token
	switch {
	case !again:
		a.tools = append(a.tools, d.in.all(s.Tools)...)
	case !a.learned:
		a.tools = d.in.all(s.Tools)
	}
	for _, t := range a.cfgTopics {
		delete(a.topics, t)
	}
	for _, t := range s.Subscribe {
		a.follow(t)
	}
	a.cfgTopics = slices.Clone(s.Subscribe)
	info := a.infoLocked(d.self, d.in)
	d.mu.Unlock()
	d.watchers.tell(Change{Kind: Declared, Agent: info})
}

// Remove deletes the record of id, telling the watchers why; its
// connection, if it has one, is the caller's to close. It reports whether
// there was one.
func (d *Directory[E]) Remove(id, reason string) bool {
	d.mu.Lock()
	a := d.agents[id]
	if a == nil {
		d.mu.Unlock()
		return false
	}
	delete(d.agents, id)
	info := a.infoLocked(d.self, d.in)
	d.mu.Unlock()
	d.watchers.tell(Change{Kind: Removed, Agent: info, Reason: reason})
	return true
}

// agentLocked returns the record of id, creating it. d.mu is held.
func (d *Directory[E]) agentLocked(id, dialect string) *Agent[E] {
	a := d.agents[id]
	if a == nil {
		a = &Agent[E]{id: id, dialect: dialect, status: StatusStopped}
		d.agents[id] = a
	}
	return a
}

// Lookup returns the agent registered as id and its endpoint (the zero E
// while it is not connected).
func (d *Directory[E]) Lookup(id string) (*Agent[E], E, bool) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	a := d.agents[id]
	if a == nil {
		var none E
		return nil, none, false
	}
	return a, a.endpoint, true
}

// Resolve returns the canonical id of the agent a message names id: id
// itself when an agent has it, or when spell is nil; else the one agent
// whose id spell writes as id (a dialect that writes ids in upper case
// names "planner" as "PLANNER"). When no agent, or more than one, is
// spelled id, id is returned as it is.
func (d *Directory[E]) Resolve(id string, spell func(string) string) string {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if _, ok := d.agents[id]; ok || spell == nil {
		return id
	}
	match := ""
	for other := range d.agents {
		if spell(other) == id {
			if match != "" {
				return id
			}
			match = other
		}
	}
	if match == "" {
		return id
	}
	return match
}

// BindOptions describe a connection taking up an agent id.
type BindOptions struct {
	// Dialect is the connection's dialect.
	Dialect string
	// Token is the credential the connection presented.
	Token string
	// Proven says the connection proved otherwise (a verified JWT, a
	// client certificate) that it speaks for the agent: its token is not
	// asked for.
	Proven bool
	// Ephemeral marks a connection that lives for one exchange (an HTTP
	// request): it speaks for the agent, but does not deliver to it.
	Ephemeral bool
	// Now is the time of the binding: when the connection began.
	Now time.Time
	// Instance is the instance of a cluster that holds the connection, ""
	// for this one; Transport, for a connection another instance holds,
	// is how it is connected there.
	Instance, Transport string
}

// ErrOlder refuses to bind a connection another instance holds to an agent
// whose current connection is newer: the newer connection wins.
var ErrOlder = errors.New("the agent has a newer connection")

// Bind makes ep speak for the agent id, checking the token and dialect the
// agent was declared with, and creating its record if it has none. Unless
// the binding is ephemeral, ep also receives the agent's messages from now
// on, replacing old, the agent's earlier endpoint (the zero E if none); the
// caller announces the agent READY once it is ready to deliver.
func (d *Directory[E]) Bind(id string, ep E, o BindOptions) (a *Agent[E], old E, err error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	a = d.agents[id]
	switch {
	case a != nil && a.token != "" && a.token != o.Token && !o.Proven:
		return nil, old, fmt.Errorf("agent %s needs its token to connect", id)
	case a != nil && a.declared && a.dialect != o.Dialect:
		return nil, old, fmt.Errorf("agent %s speaks %s, not %s", id, a.dialect, o.Dialect)
	}
	created := a == nil
	a = d.agentLocked(id, o.Dialect)
	a.dialect = o.Dialect
	if o.Ephemeral {
		if created {
			a.httpOnly = true
			a.transport = ep.Transport()
		}
		a.lastSeen = o.Now
		return a, old, nil
	}
	var none E
	if o.Instance != "" && a.endpoint != none && a.since.After(o.Now) {
		return a, old, ErrOlder
	}
	old = a.endpoint
	a.endpoint = ep
	a.transport = ep.Transport()
	if o.Transport != "" {
		a.transport = o.Transport
	}
	a.instance, a.since = o.Instance, o.Now
	a.httpOnly = false
	a.timeouts, a.missed = 0, 0
	return a, old, nil
}

// Mirror sets the tools and topics of an agent another instance holds, as
// that instance says they are, and tells the watchers when they changed.
func (d *Directory[E]) Mirror(a *Agent[E], tools []canonical.Tool, topics []string) {
	d.mu.Lock()
	same := slices.EqualFunc(a.tools, tools, func(x, y canonical.Tool) bool { return x == y }) && len(a.topics) == len(topics)
	for _, t := range topics {
		same = same && a.topics[t]
	}
	if same {
		d.mu.Unlock()
		return
	}
	a.tools = d.in.all(tools)
	a.topics = nil
	for _, t := range topics {
		a.follow(t)
	}
	info := a.infoLocked(d.self, d.in)
	d.mu.Unlock()
	d.watchers.tell(Change{Kind: Declared, Agent: info})
}

// HeldBy returns the agents the instance holds.
func (d *Directory[E]) HeldBy(instance string) []*Agent[E] {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []*Agent[E]
	for _, a := range d.agents {
		if a.instance == instance && instance != "" {
			out = append(out, a)
		}
	}
	return out
}

// Unbind ends ep's delivery for a, if ep still delivers for it, and reports
// whether it did: the agent is then not connected. The caller sets its
// status.
func (d *Directory[E]) Unbind(a *Agent[E], ep E) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if a.endpoint != ep {
		return false
	}
	var none E
	a.endpoint = none
	return true
}

// Forget removes the agents known only from HTTP that sent nothing since
// before, and returns their ids.
func (d *Directory[E]) Forget(before time.Time) []string {
	d.mu.Lock()
	var gone []Info
	for id, a := range d.agents {
		var none E
		if a.httpOnly && a.endpoint == none && a.lastSeen.Before(before) && a.inflight.Load() == 0 {
			gone = append(gone, a.infoLocked(d.self, d.in))
			delete(d.agents, id)
		}
	}
	d.mu.Unlock()
	ids := make([]string, 0, len(gone))
	for _, info := range gone {
		ids = append(ids, info.ID)
		d.watchers.tell(Change{Kind: Removed, Agent: info, Reason: "forgotten: known only from HTTP, and idle"})
	}
	return ids
}

// Learn records the capabilities agent a declared: its tools are replaced,
// its topics added to.
func (d *Directory[E]) Learn(a *Agent[E], caps *canonical.Capabilities) {
	d.mu.Lock()
	a.tools = d.in.all(caps.Tools)
	a.learned = true
	for _, t := range caps.Topics {
		a.follow(t)
	}
	info := a.infoLocked(d.self, d.in)
	d.mu.Unlock()
	d.watchers.tell(Change{Kind: Declared, Agent: info})
}

// Subscribe adds a to topic, or with on false removes it.
func (d *Directory[E]) Subscribe(a *Agent[E], topic string, on bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if on {
		a.follow(topic)
	} else {
		delete(a.topics, topic)
	}
}

// Target is a connected agent and the endpoint that delivers to it.
type Target[E Endpoint] struct {
	Agent    *Agent[E]
	Endpoint E
}

// Connected returns every connected agent whose endpoint is not except,
// sorted by id, that keep accepts (nil keeps all). keep runs under the
// directory's read lock and must not call back into it.
func (d *Directory[E]) Connected(except E, keep func(a *Agent[E]) bool) []Target[E] {
	var none E
	d.mu.RLock()
	var ts []Target[E]
	for _, a := range d.agents {
		if a.endpoint != none && a.endpoint != except && (keep == nil || keep(a)) {
			ts = append(ts, Target[E]{a, a.endpoint})
		}
	}
	d.mu.RUnlock()
	sort.Slice(ts, func(i, j int) bool { return ts[i].Agent.id < ts[j].Agent.id })
	return ts
}

// DistinctTools returns the tools of every connected agent whose endpoint
// is not except, each distinct tool once: two agents' tools equal in every
// field (name, capability, title, description, schemas, version) are one,
// which a request by its name reaches through either. In the order of the
// agents' ids, then of their declarations. With thousands of agents
// offering the same tools, the bridge's description of what it reaches is
// then the size of what they offer, not of how many they are.
func (d *Directory[E]) DistinctTools(except E) []canonical.Tool {
	var none E
	d.mu.RLock()
	defer d.mu.RUnlock()
	agents := make([]*Agent[E], 0, len(d.agents))
	for _, a := range d.agents {
		if a.endpoint != none && a.endpoint != except && len(a.tools) > 0 {
			agents = append(agents, a)
		}
	}
	sort.Slice(agents, func(i, j int) bool { return agents[i].id < agents[j].id })
	var out []canonical.Tool
	seen := map[canonical.Tool]bool{}
	for _, a := range agents {
		for _, t := range a.tools {
			if !seen[t] {
				seen[t] = true
				out = append(out, t)
			}
		}
	}
	return out
}

// follow subscribes a to topic; the directory's lock is held. An agent
// that follows no topic (most) has no map of them.
func (a *Agent[E]) follow(topic string) {
	if a.topics == nil {
		a.topics = map[string]bool{}
	}
	a.topics[topic] = true
}

// Follows reports whether a is subscribed to topic. It is meant for
// Connected's keep: the caller holds the read lock.
func (a *Agent[E]) Follows(topic string) bool { return a.topics[topic] }

// Serves reports whether a declared the operation name, spelled in its
// dialect: a tool's name, or capability/action for two-level names (an
// action matches a tool of that name with no capability or the same one),
// or a bare capability. It is meant for Connected's keep or for a caller
// holding the read lock.
func (a *Agent[E]) Serves(name string) bool {
	capability, action, two := strings.Cut(name, "/")
	return slices.ContainsFunc(a.tools, func(t canonical.Tool) bool {
		if two {
			return t.Name == action && (t.Capability == "" || t.Capability == capability)
		}
		return t.Name == name || t.Capability == name
	})
}

// Available keeps the targets whose agent is not UNAVAILABLE.
func (d *Directory[E]) Available(ts []Target[E]) []Target[E] {
	d.mu.RLock()
	defer d.mu.RUnlock()
	var up []Target[E]
	for _, t := range ts {
		if t.Agent.status != StatusUnavailable {
			up = append(up, t)
		}
	}
	return up
}

// ToolsOf returns the tools a declared.
func (d *Directory[E]) ToolsOf(a *Agent[E]) []canonical.Tool {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return slices.Clone(a.tools)
}

// Endpoints returns the endpoints of every connected agent.
func (d *Directory[E]) Endpoints() []E {
	var none E
	d.mu.RLock()
	defer d.mu.RUnlock()
	var out []E
	for _, a := range d.agents {
		if a.endpoint != none {
			out = append(out, a.endpoint)
		}
	}
	return out
}
