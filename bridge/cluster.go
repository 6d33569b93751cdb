package bridge

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/correlation"
	"github.com/mcp-bridge/mcp-bridge/bridge/delivery"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
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

// Peer carries messages to the other instances of a cluster.
type Peer interface {
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
	Status                 Status
	// Since is when its connection began: the newer of two connections
	// of one agent wins.
	Since  time.Time
	Tools  []canonical.Tool
	Topics []string
}

// ErrNoCluster is returned by the cluster methods of a bridge not in one.
var ErrNoCluster = errors.New("bridge: not in a cluster")

// JoinCluster makes the bridge the instance self of a cluster whose other
// instances peer reaches.
func (b *Bridge) JoinCluster(self string, peer Peer) {
	b.mu.Lock()
	b.peer, b.instance, b.relays = peer, self, newRelayTable()
	b.mu.Unlock()
	b.dir.SetInstance(self)
}

// Instance returns the bridge's name in its cluster, "" when it is in none.
func (b *Bridge) Instance() string {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.instance
}

func (b *Bridge) clusterPeer() Peer {
	b.mu.RLock()
	defer b.mu.RUnlock()
	return b.peer
}

// LocalAgents describes the agents this instance holds.
func (b *Bridge) LocalAgents() []AgentInfo {
	self := b.Instance()
	var out []AgentInfo
	for _, a := range b.dir.Agents("") {
		if a.Instance == self && a.Connected {
			out = append(out, a)
		}
	}
	return out
}

// RemoteUp records that another instance holds the agent r describes, as
// connected then: messages for it go there from now on, unless this
// instance's own connection of the agent is newer.
func (b *Bridge) RemoteUp(r RemoteAgent) {
	ep := b.remoteEndpoint(r.Instance, r.ID, r.Transport)
	a, old, err := b.dir.Bind(r.ID, ep, directory.BindOptions{Dialect: r.Dialect, Instance: r.Instance,
		Transport: r.Transport, Now: r.Since})
	if errors.Is(err, directory.ErrOlder) {
		return
	}
	if err != nil {
		b.log.Warn("cluster: remote agent refused", "agent", r.ID, "instance", r.Instance, "error", err)
		return
	}
	if old != nil && old != endpoint(ep) {
		if s, ok := old.(*Session); ok {
			b.log.Info("agent reconnected on another instance", "agent", r.ID, "instance", r.Instance, "was", s.opts.Remote)
		}
	}
	b.dir.Mirror(a, r.Tools, r.Topics)
	b.dir.SetStatus(a, r.Status, "as its instance "+r.Instance+" says")
}

// RemoteDown records that the agent id is no longer reachable through the
// instance (it disconnected there, or the instance is gone): it takes
// status, and the requests this instance sent it are answered unavailable.
func (b *Bridge) RemoteDown(instance, id string, status Status, reason string) {
	a, ep, ok := b.dir.Lookup(id)
	if !ok || !a.Remote() {
		return
	}
	r, ok := ep.(*remote)
	if !ok || r.instance != instance {
		return // held elsewhere now
	}
	if !b.dir.Unbind(a, ep) {
		return
	}
	b.dir.SetStatus(a, status, reason)
	for _, p := range b.pending.TakeReceiver(a) {
		b.fail(p, canonical.ErrUnavailable, fmt.Sprintf("agent %s became unreachable before answering (%s)", id, reason))
	}
}

// InstanceDown records that the instance is gone: every agent it held is
// UNAVAILABLE.
func (b *Bridge) InstanceDown(instance, reason string) {
	for _, a := range b.dir.HeldBy(instance) {
		b.RemoteDown(instance, a.ID(), StatusUnavailable, reason)
	}
}

// remoteEndpoint returns the endpoint of the agent id held by instance,
// the same one for as long as it is held there.
func (b *Bridge) remoteEndpoint(instance, id, transport string) *remote {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.remotes == nil {
		b.remotes = map[string]*remote{}
	}
	r := b.remotes[id]
	if r == nil || r.instance != instance {
		r = &remote{b: b, instance: instance, agent: id, transport: transport}
		b.remotes[id] = r
	}
	return r
}

// DeliverLocal delivers m, forwarded by the instance origin, to the agent
// this instance holds. A request is remembered, so that the agent's answers
// go back to origin. What goes wrong is answered to origin as the agent's
// failure.
func (b *Bridge) DeliverLocal(origin, agent string, m Forward) error {
	p := b.clusterPeer()
	if p == nil {
		return ErrNoCluster
	}
	a, ep, ok := b.dir.Lookup(agent)
	s, local := ep.(*Session)
	if !ok || !local || a.Remote() {
		b.relayFailure(origin, agent, m, &canonical.Error{Code: canonical.ErrUnavailable,
			Message: fmt.Sprintf("agent %s is not connected to instance %s", agent, b.Instance())})
		return nil
	}
	o := &outgoing{env: m.Env, from: m.From, final: m.Final, answer: m.Answer, atLeast: m.AtLeast, byBridge: m.ByBridge}
	request := isRequest(m.Env.Act)
	if request {
		b.relays.add(m.Env.ID, origin, correlation.TimeoutFor(m.Env, b.timeout, time.Now()))
		o.failed = func(reason error) {
			code := canonical.ErrUnavailable
			if reason == delivery.ErrExpired {
				code = canonical.ErrTimeout
			}
			b.relays.take(m.Env.ID)
			b.relayFailure(origin, agent, m, &canonical.Error{Code: code, Message: fmt.Sprintf("not delivered to %s: %v", agent, reason)})
		}
	}
	if _, e := s.deliver(o); e != nil {
		if request {
			b.relays.take(m.Env.ID)
			b.relayFailure(origin, agent, m, e)
		} else {
			b.log.Warn("forwarded message not delivered", "receiver", agent, "origin", origin, "act", m.Env.Act, "error", e.Message)
		}
	}
	return nil
}

// relayFailure answers a request forwarded by origin with e, as the
// agent's failure; other messages are only logged.
func (b *Bridge) relayFailure(origin, agent string, m Forward, e *canonical.Error) {
	if !isRequest(m.Env.Act) {
		b.log.Warn("forwarded message not delivered", "receiver", agent, "origin", origin, "act", m.Env.Act, "error", e.Message)
		return
	}
	env := &canonical.Envelope{Act: actFor(e.Code), Sender: canonical.Party{ID: agent}, Outcome: canonical.OutcomeFailure, Error: e,
		InReplyTo: m.Env.ID, CorrelationID: m.Env.ID, TaskID: m.Env.ID, Trace: m.Env.Trace}
	if err := b.clusterPeer().Answer(origin, agent, env); err != nil {
		b.log.Warn("cluster: failure not sent back", "origin", origin, "agent", agent, "error", err)
	}
}

// FromRemote handles env, a message of the agent another instance holds
// about a request of this instance's (its answer, an accept, progress), as
// that instance relayed it.
func (b *Bridge) FromRemote(instance, agent string, env *canonical.Envelope) {
	a, ep, ok := b.dir.Lookup(agent)
	r, remoteEP := ep.(*remote)
	if !ok || !remoteEP || r.instance != instance {
		// The agent is held elsewhere now; its answer still answers.
		r = b.remoteEndpoint(instance, agent, "")
	}
	if ok && a.Remote() {
		b.dir.HeardFrom(a)
	}
	b.submit(r, env)
}

// relayed sends env, a message of the local agent a about a request
// another instance forwarded, back to that instance, and reports whether
// env was about such a request.
func (b *Bridge) relayed(a *agent, env *canonical.Envelope) bool {
	b.mu.RLock()
	relays := b.relays
	b.mu.RUnlock()
	if relays == nil || a.Remote() {
		return false
	}
	final := isFinal(env.Act)
	for _, token := range [...]string{env.InReplyTo, env.CorrelationID, env.TaskID} {
		if token == "" {
			continue
		}
		origin, ok := relays.lookup(token, final)
		if !ok {
			continue
		}
		if err := b.clusterPeer().Answer(origin, a.ID(), env); err != nil {
			b.log.Warn("cluster: answer not relayed", "origin", origin, "agent", a.ID(), "error", err)
		}
		return true
	}
	return false
}

// remote is the endpoint of an agent another instance holds: what is
// delivered to it is forwarded to that instance.
type remote struct {
	b               *Bridge
	instance, agent string
	transport       string
}

func (r *remote) Transport() string {
	if r.transport != "" {
		return r.transport
	}
	return "cluster"
}

func (r *remote) bound() *agent {
	a, _, _ := r.b.dir.Lookup(r.agent)
	return a
}

// prompt is false: a peer bridge's message is handled by the cluster's
// subscriber, which has more to read.
func (r *remote) prompt() bool { return false }

func (r *remote) deliver(o *outgoing) (*delivery.Outbound, *canonical.Error) {
	p := r.b.clusterPeer()
	if p == nil {
		return nil, &canonical.Error{Code: canonical.ErrUnavailable, Message: "the bridge left its cluster"}
	}
	m := Forward{Env: o.env, From: o.from, Final: o.final, Answer: o.answer, AtLeast: o.atLeast, ByBridge: o.byBridge}
	if err := p.Deliver(r.instance, r.agent, m); err != nil {
		return nil, &canonical.Error{Code: canonical.ErrUnavailable,
			Message: fmt.Sprintf("agent %s is held by instance %s, which cannot be reached: %v", r.agent, r.instance, err)}
	}
	if o.sent != nil {
		o.sent()
	}
	return nil, nil
}

// refuse answers a message of the remote agent the bridge refuses: the
// refusal goes to the agent through its instance.
func (r *remote) refuse(env *canonical.Envelope, e *canonical.Error) Receipt {
	r.b.events.Emit(event.Event{Kind: event.Refused, Env: env, Err: e, Agent: r.agent, Transport: r.Transport()})
	if env == nil {
		return Receipt{Err: e}
	}
	reply := &canonical.Envelope{Act: actFor(e.Code), Sender: canonical.Party{ID: r.b.id}, Outcome: canonical.OutcomeFailure, Error: e,
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: r.agent},
		InReplyTo: firstOf(env.ReplyWith, env.ID, env.TaskID, env.CorrelationID), CorrelationID: env.CorrelationID, TaskID: env.TaskID}
	if _, err := r.deliver(&outgoing{env: reply, final: true, byBridge: true}); err != nil {
		r.b.log.Warn("refusal not delivered", "agent", r.agent, "error", err.Message)
	}
	return Receipt{Err: e}
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
