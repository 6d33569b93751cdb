package a2a

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/a2aproject/a2a-go/v2/a2aclient/agentcard"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/child"
	"github.com/mcp-bridge/mcp-bridge/transports"
)

// Agent keeps one A2A agent connected to the bridge.
type Agent struct {
	b        *bridge.Bridge
	spec     Spec
	log      *slog.Logger
	restarts atomic.Int64
}

// New returns the agent spec describes, for the bridge b.
func New(b *bridge.Bridge, s Spec) *Agent {
	s = s.withDefaults()
	return &Agent{b: b, spec: s, log: s.Logger.With("agent", s.ID, "card", s.Card)}
}

// Restarts returns how many times the card was resolved again after it did
// not resolve or the agent was lost.
func (a *Agent) Restarts() int { return int(a.restarts.Load()) }

// Run resolves the agent's card, declares its skills and carries the
// bridge's requests to it until ctx ends; an agent lost (its card does not
// resolve, a call cannot reach it) is resolved again after a backoff. Run
// returns an error at once when the spec cannot work (no id, no card URL),
// or when the bridge refuses the agent (its id is taken by an agent of a
// dialect); nil when ctx ends.
func (a *Agent) Run(ctx context.Context) error {
	switch {
	case a.spec.ID == "":
		return errors.New("a2a: the agent has no id")
	case a.spec.Card == "":
		return fmt.Errorf("a2a: agent %s: no card URL", a.spec.ID)
	}
	a.b.Starting(a.spec.ID)
	wait := child.NewBackoff(a.spec.BackoffMin, a.spec.BackoffMax)
	return transports.Redial(ctx, wait, func(ctx context.Context, _ bool) error { return a.connect(ctx) }, func(err error, d time.Duration) {
		a.b.Unreachable(a.spec.ID, err.Error())
		a.log.Warn("A2A agent unreachable; resolving its card again", "in", d, "error", err)
	}, &a.restarts)
}

// connect makes the agent's client and serves it until it is lost or ctx
// ends; it returns why it ended.
func (a *Agent) connect(ctx context.Context) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	c, err := a.open(runCtx)
	if err != nil {
		return err
	}
	defer c.l.close()
	select {
	case <-ctx.Done():
		c.sess.Detach()
		return ctx.Err()
	case err := <-c.lost:
		c.sess.Lost(err)
		return err
	}
}

// conn is the agent's client, attached to the bridge.
type conn struct {
	l    *link
	sess *bridge.Session
	lost chan error // why the agent was lost
}

// open resolves the card, makes the client of the binding it picks,
// attaches the agent to the bridge and declares its skills; the card is
// watched until ctx ends or the agent is lost.
func (a *Agent) open(ctx context.Context) (*conn, error) {
	card, err := a.resolve(ctx)
	if err != nil {
		return nil, err
	}
	c, err := a2aclient.NewFromCard(ctx, card,
		a2aclient.WithConfig(a2aclient.Config{PreferredTransports: []a2a.TransportProtocol{a2a.TransportProtocolJSONRPC, a2a.TransportProtocolHTTPJSON}}),
		a2aclient.WithJSONRPCTransport(a.spec.HTTP), a2aclient.WithRESTTransport(a.spec.HTTP))
	if err != nil {
		return nil, fmt.Errorf("a2a: agent %s: card %s: %w", a.spec.ID, a.spec.Card, err)
	}
	lost := make(chan error, 1)
	loseWith := func(err error) {
		select {
		case lost <- err:
		default:
		}
	}
	l := newLink(a, c, card, loseWith)
	sess, err := a.b.Attach(l, bridge.AttachOptions{Dialect: Dialect, AgentID: a.spec.ID, Remote: a.spec.Card, Envelopes: true, Reached: true})
	if err != nil {
		l.close()
		return nil, &transports.Refused{Err: fmt.Errorf("a2a: %w", err)}
	}
	l.attached(sess)
	a.log.Info("A2A agent connected", "name", card.Name, "version", card.Version, "skills", len(card.Skills),
		"streaming", card.Capabilities.Streaming)
	l.declare(card.Skills)
	go a.watch(ctx, l, card, loseWith)
	return &conn{l: l, sess: sess, lost: lost}, nil
}

// resolve fetches the agent's card, with the spec's headers.
func (a *Agent) resolve(ctx context.Context) (*a2a.AgentCard, error) {
	base, path, err := cardBase(a.spec.Card)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent %s: card %s: %w", a.spec.ID, a.spec.Card, err)
	}
	opts := []agentcard.ResolveOption{agentcard.WithPath(path)}
	for k, v := range a.spec.Headers {
		opts = append(opts, agentcard.WithRequestHeader(k, v))
	}
	card, err := (&agentcard.Resolver{Client: a.spec.HTTP}).Resolve(ctx, base, opts...)
	if err != nil {
		return nil, fmt.Errorf("a2a: agent %s: resolve card %s: %w", a.spec.ID, a.spec.Card, err)
	}
	return card, nil
}

// watch resolves the card every WatchEvery until ctx ends: one that does
// not resolve, or whose interfaces or capabilities changed, loses the
// agent; new skills are declared.
func (a *Agent) watch(ctx context.Context, l *link, card *a2a.AgentCard, lost func(error)) {
	t := time.NewTicker(a.spec.WatchEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, a.spec.WatchEvery)
		now, err := a.resolve(rctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			lost(err)
			return
		case !reflect.DeepEqual(now.SupportedInterfaces, card.SupportedInterfaces) || !reflect.DeepEqual(now.Capabilities, card.Capabilities):
			lost(fmt.Errorf("a2a: agent %s: the card's interfaces or capabilities changed", a.spec.ID))
			return
		case !reflect.DeepEqual(now.Skills, card.Skills):
			a.log.Info("A2A agent skills changed", "skills", len(now.Skills))
			l.declare(now.Skills)
			card = now
		}
	}
}

// attachedSession is what a link needs of the bridge's session.
type attachedSession interface {
	ReceiveEnvelope(env *canonical.Envelope) bridge.Receipt
}
