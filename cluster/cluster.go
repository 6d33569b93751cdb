// Package cluster makes several bridges one, on NATS: every agent is
// reachable from every instance, by id, topic, broadcast or capability, with
// everything a single bridge does, and every instance's directory (and so
// /v1/agents, capability queries, swarm handshakes and the MCP face's tool
// list) shows every agent of the cluster, with the instance that holds it.
//
// Each instance announces the agents it holds: at once when one comes, goes
// or declares again, and in a snapshot every heartbeat. An instance whose
// snapshots stop for three heartbeats is gone: its agents are UNAVAILABLE
// everywhere and the requests in flight to them are answered unavailable;
// they reconnect to another instance, which announces them. A message for
// an agent another instance holds is sent to that instance, which delivers
// it; the request stays open where it came in (bridge/peer). While
// NATS cannot be reached, an instance serves its own agents, marks the
// others UNAVAILABLE, and says so (Connected, /readyz, the
// bridge_cluster_connected metric); it rejoins when NATS is back.
//
// Delivery between instances is at most once: NATS core, without
// persistence. A message lost between instances is a request that times
// out (and is retried as any request whose answer failed retryably is), or
// an event that is not delivered.
package cluster

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/peer"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"
)

// Options configure an instance of a cluster.
type Options struct {
	// URL is the NATS server (or servers, comma separated) to join.
	URL string
	// Name is this instance's name, unique in the cluster (default: the
	// host's name and a random suffix).
	Name string
	// Prefix starts every subject the cluster uses (default
	// DefaultPrefix): clusters with different prefixes share a NATS
	// without seeing each other.
	Prefix string
	// Credentials is a NATS credentials file; Token a NATS token.
	Credentials, Token string
	// Heartbeat is how often the instance announces its agents; another
	// instance that misses three is gone (default DefaultHeartbeat).
	Heartbeat time.Duration
	// Logger receives the cluster's lines (default slog.Default()).
	Logger *slog.Logger
	// Metrics registers the cluster's metrics; nil registers none.
	Metrics prometheus.Registerer
}

// The defaults of Options.
const (
	DefaultPrefix    = "mcp-bridge"
	DefaultHeartbeat = 2 * time.Second
)

// missedLimit is how many heartbeats an instance may miss before it is gone.
const missedLimit = 3

// Cluster is one instance of a cluster: the bridge b, joined to the others
// through NATS.
type Cluster struct {
	b    *bridge.Bridge
	peer *peer.Cluster // this instance's part, once joined
	opts Options
	log  *slog.Logger
	nc   *nats.Conn
	subs []*nats.Subscription
	m    *metrics

	mu   sync.Mutex
	seen map[string]peerState // the other instances, by name
	stop chan struct{}
	done chan struct{}
}

// peerState is what an instance knows of another.
type peerState struct {
	last   time.Time     // its last snapshot or message
	every  time.Duration // its heartbeat
	agents map[string]bool
}

// New joins b to the cluster on the NATS at opts.URL. It returns once the
// instance is connected and has asked the others for their agents; Close
// leaves.
func New(b *bridge.Bridge, opts Options) (*Cluster, error) {
	if opts.URL == "" {
		return nil, errors.New("cluster: no NATS URL")
	}
	if opts.Name == "" {
		opts.Name = defaultName()
	}
	if strings.ContainsAny(opts.Name, ".*> \t") {
		return nil, fmt.Errorf("cluster: the instance name %q has a character NATS subjects cannot hold (. * > or space)", opts.Name)
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultPrefix
	}
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = DefaultHeartbeat
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	m, err := newMetrics(opts.Metrics)
	if err != nil {
		return nil, err
	}
	c := &Cluster{b: b, opts: opts, log: opts.Logger.With("instance", opts.Name), m: m,
		seen: map[string]peerState{}, stop: make(chan struct{}), done: make(chan struct{})}
	nopts := []nats.Option{
		nats.Name("mcp-bridge " + opts.Name),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(250 * time.Millisecond),
		// Publishing while disconnected fails at once rather than
		// buffering: a message for another instance is refused to its
		// sender (unavailable) instead of arriving late.
		nats.ReconnectBufSize(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) { c.disconnected(err) }),
		nats.ReconnectHandler(func(*nats.Conn) { c.reconnected() }),
	}
	if opts.Credentials != "" {
		nopts = append(nopts, nats.UserCredentials(opts.Credentials))
	}
	if opts.Token != "" {
		nopts = append(nopts, nats.Token(opts.Token))
	}
	nc, err := nats.Connect(opts.URL, nopts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connect to NATS at %s: %w", opts.URL, err)
	}
	c.nc = nc
	c.peer = b.JoinCluster(opts.Name, c)
	for subject, handler := range map[string]nats.MsgHandler{c.dirSubject(): c.onDirectory, c.toSubject(opts.Name): c.onMessage} {
		sub, err := nc.Subscribe(subject, handler)
		if err != nil {
			nc.Close()
			return nil, fmt.Errorf("cluster: subscribe %s: %w", subject, err)
		}
		c.subs = append(c.subs, sub)
	}
	if err := nc.Flush(); err != nil {
		nc.Close()
		return nil, fmt.Errorf("cluster: %w", err)
	}
	m.connected.Set(1)
	stopWatch := b.Watch(c.changed)
	c.snapshot(true)
	go c.heartbeats(stopWatch)
	c.log.Info("cluster joined", "nats", nc.ConnectedUrlRedacted(), "prefix", opts.Prefix)
	return c, nil
}

// defaultName is the host's name and a random suffix.
func defaultName() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "bridge"
	}
	host = strings.NewReplacer(".", "-", " ", "-").Replace(host)
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return host + "-" + hex.EncodeToString(b)
}

// Name returns this instance's name.
func (c *Cluster) Name() string { return c.opts.Name }

// Connected reports whether the instance is connected to NATS.
func (c *Cluster) Connected() bool { return c.nc.IsConnected() }

// Instances returns the names of the other instances heard from lately.
func (c *Cluster) Instances() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.seen))
	for name := range c.seen {
		out = append(out, name)
	}
	return out
}

// Close leaves the cluster: the others are told, so that this instance's
// agents are UNAVAILABLE at once rather than after three heartbeats.
func (c *Cluster) Close() {
	select {
	case <-c.stop:
		return
	default:
	}
	close(c.stop)
	<-c.done
	if c.nc.IsConnected() {
		if err := c.publish(c.dirSubject(), &message{Kind: kindBye}); err == nil {
			_ = c.nc.FlushTimeout(time.Second)
		}
	}
	c.nc.Close()
	c.log.Info("cluster left")
}

func (c *Cluster) dirSubject() string           { return c.opts.Prefix + ".dir" }
func (c *Cluster) toSubject(name string) string { return c.opts.Prefix + ".to." + name }

// publish sends m, from this instance, on subject.
func (c *Cluster) publish(subject string, m *message) error {
	m.From = c.opts.Name
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("cluster: encode %s: %w", m.Kind, err)
	}
	if err := c.nc.Publish(subject, data); err != nil {
		return fmt.Errorf("cluster: %w", err)
	}
	c.m.sent.WithLabelValues(m.Kind).Inc()
	return nil
}

// Deliver sends m for the agent the instance holds (peer.Carrier).
func (c *Cluster) Deliver(instance, agent string, m peer.Forward) error {
	return c.publish(c.toSubject(instance), &message{Kind: kindDeliver, Agent: agent, Forward: &forward{
		Env: m.Env, From: m.From, Final: m.Final, Answer: m.Answer, ByBridge: m.ByBridge, AtLeast: m.AtLeast}})
}

// Answer sends env, from the agent this instance holds, to the instance
// its request came from (peer.Carrier).
func (c *Cluster) Answer(instance, agent string, env *canonical.Envelope) error {
	return c.publish(c.toSubject(instance), &message{Kind: kindAnswer, Agent: agent, Env: env})
}

// onMessage handles what another instance sent this one.
func (c *Cluster) onMessage(msg *nats.Msg) {
	var m message
	if err := json.Unmarshal(msg.Data, &m); err != nil {
		c.log.Warn("cluster: a message that does not decode", "error", err)
		return
	}
	c.m.received.WithLabelValues(m.Kind).Inc()
	c.heard(m.From, 0)
	switch m.Kind {
	case kindDeliver:
		if m.Forward == nil || m.Forward.Env == nil {
			return
		}
		f := m.Forward
		if err := c.peer.DeliverLocal(m.From, m.Agent, peer.Forward{Env: f.Env, From: f.From, Final: f.Final,
			Answer: f.Answer, ByBridge: f.ByBridge, AtLeast: f.AtLeast}); err != nil {
			c.log.Warn("cluster: delivery not made", "agent", m.Agent, "from", m.From, "error", err)
		}
	case kindAnswer:
		if m.Env != nil {
			c.peer.FromRemote(m.From, m.Agent, m.Env)
		}
	}
}

// onDirectory handles another instance's announcements.
func (c *Cluster) onDirectory(msg *nats.Msg) {
	var m message
	if err := json.Unmarshal(msg.Data, &m); err != nil {
		c.log.Warn("cluster: an announcement that does not decode", "error", err)
		return
	}
	if m.From == c.opts.Name {
		return
	}
	if !c.nc.IsConnected() {
		// Still queued from before NATS went away: stale, and it would
		// bring back agents the disconnection marked UNAVAILABLE. The
		// snapshots asked for on reconnecting replace it.
		return
	}
	c.m.received.WithLabelValues(m.Kind).Inc()
	switch m.Kind {
	case kindBye:
		c.gone(m.From, "the instance left the cluster")
	case kindSnapshot:
		c.heard(m.From, m.Every)
		held := map[string]bool{}
		for _, a := range m.Agents {
			held[a.ID] = true
			c.apply(m.From, a)
		}
		c.mu.Lock()
		p := c.seen[m.From]
		before := p.agents
		p.agents = held
		c.seen[m.From] = p
		c.mu.Unlock()
		for id := range before {
			if !held[id] {
				c.peer.RemoteDown(m.From, id, bridge.StatusStopped, "no longer held by "+m.From)
			}
		}
		if m.Ask {
			c.snapshot(false)
		}
	case kindAgent:
		c.heard(m.From, 0)
		for _, a := range m.Agents {
			c.mu.Lock()
			p := c.seen[m.From]
			if p.agents == nil {
				p.agents = map[string]bool{}
			}
			p.agents[a.ID] = a.Connected
			c.seen[m.From] = p
			c.mu.Unlock()
			c.apply(m.From, a)
		}
	}
}

// apply records the state of an agent another instance holds.
func (c *Cluster) apply(instance string, a agentState) {
	if !a.Connected {
		c.peer.RemoteDown(instance, a.ID, a.Status, a.Reason)
		return
	}
	c.peer.RemoteUp(peer.RemoteAgent{Instance: instance, ID: a.ID, Dialect: a.Dialect, Transport: a.Transport,
		Status: a.Status, Since: a.Since, Tools: a.Tools, Topics: a.Topics})
}

// heard notes a message from the instance; every, when set, is its
// heartbeat.
func (c *Cluster) heard(instance string, every time.Duration) {
	if instance == "" || instance == c.opts.Name {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p, known := c.seen[instance]
	p.last = time.Now()
	if every > 0 {
		p.every = every
	}
	if p.every == 0 {
		p.every = c.opts.Heartbeat
	}
	c.seen[instance] = p
	if !known {
		c.log.Info("cluster: instance joined", "peer", instance)
		c.m.instances.Set(float64(len(c.seen)))
	}
}

// gone forgets the instance: its agents are UNAVAILABLE.
func (c *Cluster) gone(instance, reason string) {
	c.mu.Lock()
	_, known := c.seen[instance]
	delete(c.seen, instance)
	c.m.instances.Set(float64(len(c.seen)))
	c.mu.Unlock()
	if known {
		c.log.Warn("cluster: instance gone", "peer", instance, "reason", reason)
	}
	c.peer.InstanceDown(instance, reason)
}

// changed announces a change to an agent this instance holds.
func (c *Cluster) changed(ch bridge.Change) {
	info := ch.Agent
	if info.Instance != c.opts.Name {
		return
	}
	if ch.Kind == bridge.Removed {
		info.Connected = false
	}
	reason := ch.Reason
	if !info.Connected && c.b.ShuttingDown() {
		// Its agents leave with the instance: to the others they are
		// unreachable until they connect elsewhere, as if it had died.
		info.Status, reason = bridge.StatusUnavailable, "its instance "+c.opts.Name+" is shutting down"
	}
	if err := c.publish(c.dirSubject(), &message{Kind: kindAgent, Agents: []agentState{stateOf(info, toolsOf(info), reason)}}); err != nil {
		c.log.Debug("cluster: change not announced", "agent", info.ID, "error", err)
	}
}

// snapshot announces every agent this instance holds; ask asks the others
// for theirs.
func (c *Cluster) snapshot(ask bool) {
	var states []agentState
	for _, info := range c.peer.LocalAgents() {
		states = append(states, stateOf(info, toolsOf(info), ""))
	}
	if err := c.publish(c.dirSubject(), &message{Kind: kindSnapshot, Agents: states, Every: c.opts.Heartbeat, Ask: ask}); err != nil {
		c.log.Debug("cluster: snapshot not sent", "error", err)
	}
}

// heartbeats sends a snapshot every heartbeat and forgets the instances
// that missed three, until Close.
func (c *Cluster) heartbeats(stopWatch func()) {
	defer close(c.done)
	defer stopWatch()
	t := time.NewTicker(c.opts.Heartbeat)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		if !c.nc.IsConnected() {
			continue
		}
		c.snapshot(false)
		now := time.Now()
		var dead []string
		c.mu.Lock()
		for name, p := range c.seen {
			if now.Sub(p.last) > missedLimit*p.every {
				dead = append(dead, name)
			}
		}
		c.mu.Unlock()
		for _, name := range dead {
			c.gone(name, fmt.Sprintf("no word from the instance for %d heartbeats", missedLimit))
		}
	}
}

// disconnected marks the agents of every other instance UNAVAILABLE: they
// cannot be reached while NATS cannot.
func (c *Cluster) disconnected(err error) {
	c.m.connected.Set(0)
	c.log.Warn("cluster: NATS unreachable; serving this instance's agents only", "error", err)
	c.mu.Lock()
	names := make([]string, 0, len(c.seen))
	for name := range c.seen {
		names = append(names, name)
	}
	c.mu.Unlock()
	for _, name := range names {
		c.gone(name, "NATS is unreachable")
	}
}

// reconnected rejoins: this instance's agents are announced and the
// others' asked for.
func (c *Cluster) reconnected() {
	c.m.connected.Set(1)
	c.log.Info("cluster: NATS reachable again; rejoining", "nats", c.nc.ConnectedUrlRedacted())
	c.snapshot(true)
}

// toolsOf returns the tools info describes, as the directory declares
// them.
func toolsOf(info bridge.AgentInfo) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(info.Tools))
	for _, t := range info.Tools {
		out = append(out, canonical.Tool{Name: t.Operation.Name, Capability: t.Operation.Capability, Title: t.Title,
			Description: t.Description, InputSchema: canonical.JSON(t.InputSchema), OutputSchema: canonical.JSON(t.OutputSchema),
			Version: t.Version})
	}
	return out
}
