package upstream

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/child"
	"github.com/mcp-bridge/mcp-bridge/transports"
)

// Upstream keeps one MCP server connected to the bridge as an agent.
type Upstream struct {
	b        *bridge.Bridge
	spec     Spec
	log      *slog.Logger
	restarts atomic.Int64
}

// New returns the upstream spec describes, for the bridge b.
func New(b *bridge.Bridge, s Spec) *Upstream {
	s = s.withDefaults()
	return &Upstream{b: b, spec: s, log: s.Logger.With("agent", s.ID, "upstream", s.where())}
}

// Restarts returns how many times the server was started or dialled again
// after its connection ended.
func (u *Upstream) Restarts() int { return int(u.restarts.Load()) }

// Run connects the server, declares its tools and carries the bridge's
// requests to it until ctx ends; a connection that ends (the child exits,
// the HTTP server stops answering) is made again after a backoff. Run
// returns an error at once when the spec cannot work (no id, neither or both
// of command and url), or when the bridge refuses the agent (its id is taken
// by an agent of a dialect); nil when ctx ends.
func (u *Upstream) Run(ctx context.Context) error {
	switch {
	case u.spec.ID == "":
		return errors.New("upstream: the agent has no id")
	case (len(u.spec.Command) == 0) == (u.spec.URL == ""):
		return fmt.Errorf("upstream: agent %s needs one of command and url", u.spec.ID)
	}
	u.b.Starting(u.spec.ID)
	wait := child.NewBackoff(u.spec.BackoffMin, u.spec.BackoffMax)
	return transports.Redial(ctx, wait, u.connect, func(err error, d time.Duration) {
		u.log.Warn("upstream MCP server unreachable; connecting again", "in", d, "error", err)
	}, &u.restarts)
}

// connect makes one connection to the server and serves it until it ends
// or ctx does. It returns why the connection ended.
func (u *Upstream) connect(ctx context.Context, first bool) error {
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	c, err := u.open(runCtx)
	if err != nil {
		return err
	}
	defer c.done()
	select {
	case <-ctx.Done():
		c.sess.Detach()
		return ctx.Err()
	case err := <-c.lost:
		c.sess.Lost(err)
		return err
	}
}

// conn is one connection to the server, attached to the bridge.
type conn struct {
	l    *link
	sess *bridge.Session
	lost chan error // why the connection was lost
	done func()     // ends the connection
}

// open connects the server, lists its tools, attaches it to the bridge
// and declares them; the connection lives until ctx ends or it is lost.
func (u *Upstream) open(ctx context.Context) (*conn, error) {
	lost := make(chan error, 1)
	loseWith := func(err error) {
		select {
		case lost <- err:
		default:
		}
	}
	c, done, err := u.dial(ctx, loseWith)
	if err != nil {
		return nil, err
	}
	l := newLink(u, c, loseWith)
	c.OnNotification(l.notified)
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-bridge", Version: "1"}
	ictx, cancel := context.WithTimeout(ctx, u.spec.StopGrace+5*time.Second)
	info, err := c.Initialize(ictx, init)
	cancel()
	if err != nil {
		done()
		return nil, fmt.Errorf("initialize: %w", err)
	}
	tools, err := l.list(ctx)
	if err != nil {
		done()
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	sess, err := u.b.Attach(l, bridge.AttachOptions{Dialect: Dialect, AgentID: u.spec.ID, Remote: u.spec.where(), Envelopes: true, Reached: true})
	if err != nil {
		done()
		return nil, &transports.Refused{Err: fmt.Errorf("upstream: %w", err)}
	}
	l.attached(sess)
	u.log.Info("upstream MCP server connected", "server", info.ServerInfo.Name, "version", info.ServerInfo.Version,
		"protocol", info.ProtocolVersion, "tools", len(tools))
	l.declare(tools)
	return &conn{l: l, sess: sess, lost: lost, done: done}, nil
}

// dial starts the server (stdio) or reaches it (HTTP) and returns its
// client, started, and what ends the connection. Problems of the
// connection later are told to lost.
func (u *Upstream) dial(ctx context.Context, lost func(error)) (*client.Client, func(), error) {
	if u.spec.URL != "" {
		// Continuous listening keeps the connection on a protocol
		// version that has the standalone GET stream (where list_changed
		// comes) and the ping; it also keeps mcp-go from adopting
		// 2026-07-28 against a server that does not offer it
		// (notes/mcp-libraries.md).
		t, err := transport.NewStreamableHTTP(u.spec.URL, transport.WithHTTPHeaders(u.spec.Headers),
			//lint:ignore SA1019 the subscriptions/listen replacement is not what the servers we reach speak yet
			transport.WithContinuousListening(), transport.WithHTTPLogger(u.log))
		if err != nil {
			return nil, nil, err
		}
		c := client.NewClient(t)
		c.OnConnectionLost(func(err error) { lost(fmt.Errorf("the connection was lost: %w", err)) })
		if err := c.Start(ctx); err != nil {
			return nil, nil, err
		}
		go u.watch(ctx, c, lost)
		return c, func() { _ = c.Close() }, nil
	}
	p, err := child.Start(u.spec.Command, u.spec.Env, u.spec.Dir)
	if err != nil {
		return nil, nil, err
	}
	go u.logStderr(p)
	c := client.NewClient(transport.NewIO(p.Stdout, p.Stdin, p.Stderr))
	if err := c.Start(ctx); err != nil {
		_ = p.Stop(func() { _ = p.Stdin.Close() }, u.spec.StopGrace)
		p.CloseOutput()
		return nil, nil, err
	}
	u.log.Info("upstream MCP server started", "pid", p.Pid())
	go func() {
		select {
		case <-p.Exited():
			lost(fmt.Errorf("the server exited: %s", p.Status()))
		case <-ctx.Done():
		}
	}()
	return c, func() {
		if err := p.Stop(func() { _ = c.Close() }, u.spec.StopGrace); err != nil {
			u.log.Warn("upstream MCP server not stopped cleanly", "pid", p.Pid(), "error", err)
		}
		p.CloseOutput()
	}, nil
}

// watch pings the server every PingEvery until ctx ends; a ping it does not
// answer in time loses the connection.
func (u *Upstream) watch(ctx context.Context, c *client.Client, lost func(error)) {
	t := time.NewTicker(u.spec.PingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !c.IsInitialized() {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, u.spec.PingEvery)
		//lint:ignore SA1019 the connection is on a legacy version (continuous listening), where ping is the liveness check
		err := c.Ping(pctx)
		cancel()
		if err != nil && ctx.Err() == nil {
			lost(fmt.Errorf("ping: %w", err))
			return
		}
	}
}

// logStderr logs what a child writes on its standard error, a record per
// line at debug level.
func (u *Upstream) logStderr(p *child.Process) {
	sc := bufio.NewScanner(p.Stderr)
	for sc.Scan() {
		u.log.Debug("upstream MCP server stderr", "pid", p.Pid(), "line", sc.Text())
	}
}

// attachedSession is what a link needs of the bridge's session.
type attachedSession interface {
	ReceiveEnvelope(env *canonical.Envelope) bridge.Receipt
}
