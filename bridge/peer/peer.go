// Package peer is the bridge's side of a cluster of bridges (package
// cluster carries the messages between them over NATS): the agents other
// instances hold, as endpoints of the router, and the requests other
// instances forwarded to the agents this one holds.
package peer

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// A cluster of bridges (package cluster carries the messages between
// them). Each agent is connected to one instance, which holds it; every
// other instance knows it from the directory's replicas, as an agent whose
// endpoint is the holder (remote). A message for it is forwarded to the
// holder, which delivers it as to any of its agents; a request's open
// entry stays where the request came in (its requester's instance), so its
// time limit, retries, breaker, dedupe and metrics work there as on one
// bridge, and the holder only remembers which instance a request came from
// (a relay), to send the agent's answers back there.

// Carrier carries messages to the other instances of a cluster.
type Carrier interface {
	// Deliver sends m to the agent the instance holds.
	Deliver(instance, agent string, m Forward) error
	// Answer sends env, a message from the agent this instance holds
	// about a request that came from the instance (an answer, an accept,
	// progress), to that instance.
	Answer(instance, agent string, env *canonical.Envelope) error
}

// Forward is one message for an agent another instance holds, as the
// instance it came from would deliver it.
type Forward struct {
	// Env is the message, its agent ids canonical; From is the dialect it
	// was decoded from ("" for the bridge's own and the call API's).
	Env  *canonical.Envelope
	From string
	// Final, Answer, AtLeast and ByBridge are the delivery's: it ends a
	// request of the agent's, it is about a request of the agent's (not
	// held to its queue's bound, at AtLeast or above), it is an error the
	// bridge made.
	Final, Answer, ByBridge bool
	AtLeast                 int
}

// RemoteAgent is an agent another instance of the cluster holds, as that
// instance describes it.
type RemoteAgent struct {
	Instance               string
	ID, Dialect, Transport string
	Status                 directory.Status
	// Since is when its connection began: the newer of two connections
	// of one agent wins.
	Since  time.Time
	Tools  []canonical.Tool
	Topics []string
}

// Cluster is this instance's part in a cluster: the router's endpoints of
// the agents other instances hold, and the relays of the requests they
// forwarded here.
type Cluster struct {
	r       *route.Router
	dir     *directory.Directory[route.Endpoint]
	self    string
	carrier Carrier
	log     *slog.Logger
	events  *event.Stream
	mu      sync.Mutex
	remotes map[string]*remote
	relays  *relayTable
}

// Join makes the router's bridge the instance self of a cluster whose
// other instances carrier reaches: the agents they hold become the
// router's, and the answers of this instance's agents to requests they
// forwarded go back to them.
func Join(r *route.Router, self string, carrier Carrier, log *slog.Logger, events *event.Stream) *Cluster {
	c := &Cluster{r: r, dir: r.Directory(), self: self, carrier: carrier, log: log, events: events,
		remotes: map[string]*remote{}, relays: newRelayTable()}
	c.dir.SetInstance(self)
	r.SetRelay(c.relayed)
	return c
}

// Instance returns this instance's name in the cluster.
func (c *Cluster) Instance() string { return c.self }

// LocalAgents describes the agents this instance holds.
func (c *Cluster) LocalAgents() []directory.Info {
	self := c.self
	var out []directory.Info
	for _, a := range c.dir.Agents("") {
		if a.Instance == self && a.Connected {
			out = append(out, a)
		}
	}
	return out
}

// RemoteUp records that another instance holds the agent r describes, as
// connected then: messages for it go there from now on, unless this
// instance's own connection of the agent is newer.
func (c *Cluster) RemoteUp(r RemoteAgent) {
	ep := c.remoteEndpoint(r.Instance, r.ID, r.Transport)
	a, old, err := c.dir.Bind(r.ID, ep, directory.BindOptions{Dialect: r.Dialect, Instance: r.Instance,
		Transport: r.Transport, Now: r.Since})
	if errors.Is(err, directory.ErrOlder) {
		return
	}
	if err != nil {
		c.log.Warn("cluster: remote agent refused", "agent", r.ID, "instance", r.Instance, "error", err)
		return
	}
	if old != nil && old != route.Endpoint(ep) {
		if _, isRemote := old.(*remote); !isRemote {
			c.log.Info("agent reconnected on another instance", "agent", r.ID, "instance", r.Instance, "was", old.Transport())
		}
	}
	c.dir.Mirror(a, r.Tools, r.Topics)
	c.dir.SetStatus(a, r.Status, "as its instance "+r.Instance+" says")
}

// RemoteDown records that the agent id is no longer reachable through the
// instance (it disconnected there, or the instance is gone): it takes
// status, and the requests this instance sent it are answered unavailable.
func (c *Cluster) RemoteDown(instance, id string, status directory.Status, reason string) {
	a, ep, ok := c.dir.Lookup(id)
	if !ok || !a.Remote() {
		return
	}
	r, ok := ep.(*remote)
	if !ok || r.instance != instance {
		return // held elsewhere now
	}
	if !c.dir.Unbind(a, ep) {
		return
	}
	c.dir.SetStatus(a, status, reason)
	for _, p := range c.r.Requests().TakeReceiver(a) {
		c.r.Fail(p, canonical.ErrUnavailable, fmt.Sprintf("agent %s became unreachable before answering (%s)", id, reason))
	}
}

// InstanceDown records that the instance is gone: every agent it held is
// UNAVAILABLE.
func (c *Cluster) InstanceDown(instance, reason string) {
	for _, a := range c.dir.HeldBy(instance) {
		c.RemoteDown(instance, a.ID(), directory.StatusUnavailable, reason)
	}
}

// remoteEndpoint returns the endpoint of the agent id held by instance,
// the same one for as long as it is held there.
func (c *Cluster) remoteEndpoint(instance, id, transport string) *remote {
	c.mu.Lock()
	defer c.mu.Unlock()
	r := c.remotes[id]
	if r == nil || r.instance != instance {
		r = &remote{c: c, instance: instance, agent: id, transport: transport}
		c.remotes[id] = r
	}
	return r
}

// DeliverLocal delivers m, forwarded by the instance origin, to the agent
// this instance holds. A request is remembered, so that the agent's answers
// go back to origin. What goes wrong is answered to origin as the agent's
// failure.
func (c *Cluster) DeliverLocal(origin, agent string, m Forward) error {
	a, ep, ok := c.dir.Lookup(agent)
	_, isRemote := ep.(*remote)
	if !ok || ep == nil || isRemote || a.Remote() {
		c.relayFailure(origin, agent, m, &canonical.Error{Code: canonical.ErrUnavailable,
			Message: fmt.Sprintf("agent %s is not connected to instance %s", agent, c.self)})
		return nil
	}
	o := &route.Outgoing{Env: m.Env, From: m.From, Final: m.Final, Answer: m.Answer, AtLeast: m.AtLeast, ByBridge: m.ByBridge}
	request := route.IsRequest(m.Env.Act)
	if request {
		c.relays.add(m.Env.ID, origin, correlation.TimeoutFor(m.Env, c.r.RequestTimeout(), time.Now()))
		o.Failure = route.FailureFunc(func(reason error) {
			code := canonical.ErrUnavailable
			if reason == delivery.ErrExpired {
				code = canonical.ErrTimeout
			}
			c.relays.take(m.Env.ID)
			c.relayFailure(origin, agent, m, &canonical.Error{Code: code, Message: fmt.Sprintf("not delivered to %s: %v", agent, reason)})
		})
	}
	if _, e := ep.Deliver(o); e != nil {
		if request {
			c.relays.take(m.Env.ID)
			c.relayFailure(origin, agent, m, e)
		} else {
			c.log.Warn("forwarded message not delivered", "receiver", agent, "origin", origin, "act", m.Env.Act, "error", e.Message)
		}
	}
	return nil
}

// relayFailure answers a request forwarded by origin with e, as the
// agent's failure; other messages are only logged.
func (c *Cluster) relayFailure(origin, agent string, m Forward, e *canonical.Error) {
	if !route.IsRequest(m.Env.Act) {
		c.log.Warn("forwarded message not delivered", "receiver", agent, "origin", origin, "act", m.Env.Act, "error", e.Message)
		return
	}
	env := &canonical.Envelope{Act: route.ActFor(e.Code), Sender: canonical.Party{ID: agent}, Outcome: canonical.OutcomeFailure, Error: e,
		InReplyTo: m.Env.ID, CorrelationID: m.Env.ID, TaskID: m.Env.ID, Trace: m.Env.Trace}
	if err := c.carrier.Answer(origin, agent, env); err != nil {
		c.log.Warn("cluster: failure not sent back", "origin", origin, "agent", agent, "error", err)
	}
}

// FromRemote handles env, a message of the agent another instance holds
// about a request of this instance's (its answer, an accept, progress), as
// that instance relayed it.
func (c *Cluster) FromRemote(instance, agent string, env *canonical.Envelope) {
	a, ep, ok := c.dir.Lookup(agent)
	r, remoteEP := ep.(*remote)
	if !ok || !remoteEP || r.instance != instance {
		// The agent is held elsewhere now; its answer still answers.
		r = c.remoteEndpoint(instance, agent, "")
	}
	if ok && a.Remote() {
		c.dir.HeardFrom(a)
	}
	c.r.Submit(r, env)
}

// relayed sends env, a message of the local agent a about a request
// another instance forwarded, back to that instance (when send is true;
// false only asks), and reports whether env was about such a request.
func (c *Cluster) relayed(a *route.Agent, env *canonical.Envelope, send bool) bool {
	relays := c.relays
	if a.Remote() {
		return false
	}
	final := route.IsFinal(env.Act)
	for _, token := range [...]string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if token == "" {
			continue
		}
		origin, ok := relays.lookup(token, final && send)
		if !ok {
			continue
		}
		if !send {
			return true
		}
		if err := c.carrier.Answer(origin, a.ID(), env); err != nil {
			c.log.Warn("cluster: answer not relayed", "origin", origin, "agent", a.ID(), "error", err)
		}
		return true
	}
	return false
}

// remote is the endpoint of an agent another instance holds: what is
// delivered to it is forwarded to that instance.
type remote struct {
	c               *Cluster
	instance, agent string
	transport       string
}

func (r *remote) Transport() string {
	if r.transport != "" {
		return r.transport
	}
	return "cluster"
}

func (r *remote) Bound() *route.Agent {
	a, _, _ := r.c.dir.Lookup(r.agent)
	return a
}

// prompt is false: a peer bridge's message is handled by the cluster's
// subscriber, which has more to read.
func (r *remote) Prompt() bool { return false }

func (r *remote) Deliver(o *route.Outgoing) (*delivery.Outbound, *canonical.Error) {
	p := r.c.carrier
	m := Forward{Env: o.Env, From: o.From, Final: o.Final, Answer: o.Answer, AtLeast: o.AtLeast, ByBridge: o.ByBridge}
	if err := p.Deliver(r.instance, r.agent, m); err != nil {
		return nil, &canonical.Error{Code: canonical.ErrUnavailable,
			Message: fmt.Sprintf("agent %s is held by instance %s, which cannot be reached: %v", r.agent, r.instance, err)}
	}
	if o.Sent != nil {
		o.Sent()
	}
	return nil, nil
}

// refuse answers a message of the remote agent the bridge refuses: the
// refusal goes to the agent through its instance.
func (r *remote) Refuse(env *canonical.Envelope, e *canonical.Error) route.Receipt {
	r.c.events.Emit(event.Event{Kind: event.Refused, Env: env, Err: e, Agent: r.agent, Transport: r.Transport()})
	if env == nil {
		return route.Receipt{Err: e}
	}
	reply := &canonical.Envelope{Act: route.ActFor(e.Code), Sender: canonical.Party{ID: r.c.r.ID()}, Outcome: canonical.OutcomeFailure, Error: e,
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: r.agent},
		InReplyTo: correlation.FirstOf(env.ReplyWith, env.ID, env.TaskID, env.CorrelationID), CorrelationID: env.CorrelationID, TaskID: env.TaskID}
	if _, err := r.Deliver(&route.Outgoing{Env: reply, Final: true, ByBridge: true}); err != nil {
		r.c.log.Warn("refusal not delivered", "agent", r.agent, "error", err.Message)
	}
	return route.Receipt{Err: e}
}

// relayTable remembers, at the instance that holds an agent, which
// instance each request forwarded to it came from, until its final answer
// or its time limit.
type relayTable struct {
	mu      sync.Mutex
	byToken map[string]relay
}

type relay struct {
	origin  string
	expires time.Time
}

// relayLimit bounds the requests remembered; past it the expired ones are
// swept, and then the oldest.
const relayLimit = 100_000

func newRelayTable() *relayTable { return &relayTable{byToken: map[string]relay{}} }

func (t *relayTable) add(token, origin string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	now := time.Now()
	if len(t.byToken) >= relayLimit {
		var oldest string
		var at time.Time
		for k, r := range t.byToken {
			if r.expires.Before(now) {
				delete(t.byToken, k)
				continue
			}
			if oldest == "" || r.expires.Before(at) {
				oldest, at = k, r.expires
			}
		}
		if len(t.byToken) >= relayLimit {
			delete(t.byToken, oldest)
		}
	}
	t.byToken[token] = relay{origin: origin, expires: now.Add(d)}
}

// lookup returns the instance the request of token came from; final
// forgets it.
func (t *relayTable) lookup(token string, final bool) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	r, ok := t.byToken[token]
	if !ok {
		return "", false
	}
	if final {
		delete(t.byToken, token)
	}
	return r.origin, true
}

func (t *relayTable) take(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byToken, token)
}
