package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"slices"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/cluster"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
	"github.com/mcp-bridge/mcp-bridge/server"
)

// connectWait bounds connecting the agents and the bridge's stopping.
const connectWait = 30 * time.Second

// Run starts a bridge on a loopback port (or Instances of them, joined as
// a cluster on an embedded NATS), connects the agents to it and drives the
// load, and returns what it measured. With several instances it first
// drives the same load through one bridge, and the report holds both. Its
// error is for a run that could not start: bad options, a bridge that
// would not start, an agent that could not connect, or a bridge that would
// not stop (the report is then complete). ctx ending stops the run early,
// like the Timeout, or ends it before the load while the agents connect;
// the report says so.
func Run(ctx context.Context, o Options) (Report, error) {
	o = o.WithDefaults()
	if err := o.Check(); err != nil {
		return Report{}, fmt.Errorf("loadgen: %w", err)
	}
	if o.Instances == 1 {
		return runOnce(ctx, o)
	}
	one := o
	one.Instances = 1
	single, err := runOnce(ctx, one)
	if err != nil || ctx.Err() != nil {
		return single, err
	}
	rep, err := runOnce(ctx, o)
	rep.Single = &single
	return rep, err
}

// runOnce is one run of the load through o.Instances bridges.
func runOnce(ctx context.Context, o Options) (Report, error) {
	began := time.Now()
	brs, err := startBridges(o)
	if err != nil {
		return Report{}, err
	}
	pl := newPlan(dialects.Names(), o.Agents, o.Pairs, o.Instances)
	l := &load{o: o, plan: pl}
	if l.langs, err = langsOf(pl.dialects); err != nil {
		return Report{}, errors.Join(err, brs.stop())
	}
	if err := l.connect(ctx, brs); err != nil {
		l.close()
		if ctx.Err() != nil {
			rep := l.report("interrupted", 0)
			rep.Setup = time.Since(began)
			return rep, brs.stop()
		}
		return Report{}, errors.Join(err, brs.stop())
	}
	var idle *IdleReport
	if o.Idle > 0 {
		if idle, err = l.idle(ctx, brs.list[0]); err != nil {
			l.close()
			return Report{}, errors.Join(err, brs.stop())
		}
	}
	own := len(brs.list) == 1 && brs.list[0].own()
	var before Memory
	if own {
		if before, err = brs.list[0].scrape(); err != nil {
			l.close()
			return Report{}, errors.Join(fmt.Errorf("loadgen: the bridge's memory: %w", err), brs.stop())
		}
	}
	rep := l.drive(ctx)
	rep.Setup = l.setup.Sub(began)
	rep.Idle = idle
	if own {
		after, err := brs.list[0].scrape()
		if err != nil {
			return rep, errors.Join(fmt.Errorf("loadgen: the bridge's memory: %w", err), brs.stop())
		}
		rep.Bridge = &BridgeMemory{Before: before, After: after}
	}
	return rep, brs.stop()
}

// running is a bridge of a run: started in the process (srv), spawned as
// a child (child), or one the run was given (neither).
type running struct {
	srv    *server.Server
	addr   string
	cancel context.CancelFunc
	done   chan error
	child  *exec.Cmd
	dir    string // the child's config
}

// own reports whether the bridge runs in a process of its own, whose
// memory the run can measure.
func (r *running) own() bool { return r.srv == nil }

// bridges are the bridges of a run, and the NATS server that joins them
// when there are several.
type bridges struct {
	list []*running
	nats *cluster.Embedded
}

// startBridges runs o.Instances bridges on the default config, on
// loopback ports, validating as o says; several join a cluster on a NATS
// server started for them.
func startBridges(o Options) (*bridges, error) {
	brs := &bridges{}
	switch {
	case len(o.Spawn) > 0:
		r, err := spawnBridge(o.Spawn, o)
		if err != nil {
			return nil, err
		}
		brs.list = []*running{r}
		return brs, nil
	case o.External != "":
		r, err := externalBridge(o.External)
		if err != nil {
			return nil, err
		}
		brs.list = []*running{r}
		return brs, nil
	}
	if o.Instances > 1 {
		n, err := cluster.StartEmbedded("127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("loadgen: %w", err)
		}
		brs.nats = n
	}
	for i := range o.Instances {
		cfg := config.Default()
		cfg.Listen = "127.0.0.1:0"
		cfg.Validate = o.Validate
		cfg.ShutdownTimeout = 2 * time.Second
		if brs.nats != nil {
			cfg.Cluster.NATS = brs.nats.URL()
			cfg.Cluster.Name = instanceName(i)
		}
		r, err := startBridge(cfg, o.Logger)
		if err != nil {
			return nil, errors.Join(err, brs.stop())
		}
		brs.list = append(brs.list, r)
	}
	return brs, nil
}

// instanceName names the run's instance i in its cluster.
func instanceName(i int) string { return fmt.Sprintf("bench-%d", i+1) }

// startBridge runs a bridge on cfg.
func startBridge(cfg *config.Config, log *slog.Logger) (*running, error) {
	if log == nil {
		log = slog.New(logjson.New(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	srv, err := server.New(cfg, nil, log)
	if err != nil {
		return nil, fmt.Errorf("loadgen: bridge: %w", err)
	}
	ln, err := srv.Listen()
	if err != nil {
		return nil, fmt.Errorf("loadgen: bridge: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{srv: srv, addr: ln.Addr().String(), cancel: cancel, done: make(chan error, 1)}
	go func(ln net.Listener) { r.done <- srv.Run(ctx, ln) }(ln)
	return r, nil
}

// stop shuts the bridges down, all at once, waits for them, and stops
// their NATS server.
func (brs *bridges) stop() error {
	errs := make([]error, len(brs.list))
	var wg sync.WaitGroup
	for i, r := range brs.list {
		wg.Go(func() { errs[i] = r.stop() })
	}
	wg.Wait()
	if brs.nats != nil {
		brs.nats.Shutdown()
	}
	return errors.Join(errs...)
}

// stop shuts the bridge down and waits for it; one the run was given is
// left running.
func (r *running) stop() error {
	switch {
	case r.child != nil:
		return r.stopChild()
	case r.srv == nil:
		return nil
	}
	r.cancel()
	select {
	case err := <-r.done:
		if err != nil {
			return fmt.Errorf("loadgen: bridge: %w", err)
		}
		return nil
	case <-time.After(connectWait):
		return errors.New("loadgen: the bridge did not stop")
	}
}

// load is one run's agents.
type load struct {
	mu         sync.Mutex // guards conns
	o          Options
	plan       *plan
	langs      []lang // the plan's dialects, as the run speaks them
	requesters []*requester
	responders []*responder
	conns      []*agentclient.Conn
	setup      time.Time // when every agent was connected
}

// connect dials every agent's WebSocket, each to its instance, and waits
// until every bridge lists them all as ready.
func (l *load) connect(ctx context.Context, brs *bridges) error {
	dial := func(p peer) (*agentclient.Conn, error) { return l.dial(ctx, brs.list[p.instance], p) }
	for _, p := range l.plan.responders {
		// One more requester than the plan's: the probe of idle agents.
		r := l.newResponder(p, len(l.plan.requesters)+1, l.o.FailEvery)
		var err error
		if r.conn, err = dial(p); err != nil {
			return err
		}
		l.responders = append(l.responders, r)
	}
	for i, p := range l.plan.requesters {
		targets := make([]peer, len(l.plan.targets[i]))
		for k, j := range l.plan.targets[i] {
			targets[k] = l.plan.responders[j]
		}
		r := l.newRequester(p, i, targets, l.plan.quota[i], l.o.Window)
		var err error
		if r.conn, err = dial(p); err != nil {
			return err
		}
		l.requesters = append(l.requesters, r)
	}
	want := map[string]bool{}
	for _, p := range append(slices.Clone(l.plan.requesters), l.plan.responders...) {
		want[p.id] = true
	}
	if err := brs.waitReady(ctx, want, connectWait); err != nil {
		return err
	}
	l.setup = time.Now()
	return nil
}

// waitReady waits until every bridge lists every agent of want READY, or
// for at most within.
func (brs *bridges) waitReady(ctx context.Context, want map[string]bool, within time.Duration) error {
	tools := make(map[string]int, len(want))
	for id := range want {
		tools[id] = 0
	}
	return brs.waitListed(ctx, tools, within)
}

// waitListed waits until every bridge lists every agent of want READY
// with at least as many tools as want says, or for at most within.
func (brs *bridges) waitListed(ctx context.Context, want map[string]int, within time.Duration) error {
	deadline := time.Now().Add(within)
	poll := 2 * time.Millisecond
	if brs.list[0].own() {
		// A /v1/agents of all of them each time: its garbage would be the
		// bridge's memory measured next (a millisecond for 2,000 agents,
		// 50 ms to 1 s).
		poll = min(time.Second, max(50*time.Millisecond, time.Duration(len(want))*time.Millisecond/2))
	}
	for {
		ready := len(want)
		for _, br := range brs.list {
			n, err := br.ready(ctx, want)
			if err != nil {
				return fmt.Errorf("loadgen: the bridge's agents: %w", err)
			}
			ready = min(ready, n)
		}
		if ready == len(want) {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("loadgen: %d of %d agents ready on every bridge after %s", ready, len(want), within)
		}
		time.Sleep(poll)
	}
}

// dial connects the agent p to the bridge br, named in the URL; the run
// closes the connection at its end.
func (l *load) dial(ctx context.Context, br *running, p peer) (*agentclient.Conn, error) {
	return l.dialAs(ctx, br, p, true)
}

// dialAs connects the agent p to the bridge br, named in the URL
// (?agent=) when named is set, else left for its first message to
// introduce; the run closes the connection at its end.
func (l *load) dialAs(ctx context.Context, br *running, p peer, named bool) (*agentclient.Conn, error) {
	u := fmt.Sprintf("ws://%s/ws/%s", br.addr, l.langs[p.dialect].name)
	if named {
		u += "?agent=" + p.id
	}
	dctx, cancel := context.WithTimeout(ctx, connectWait)
	defer cancel()
	c, err := agentclient.Dial(dctx, u, agentclient.Options{ReadLimit: -1})
	if err != nil {
		return nil, fmt.Errorf("loadgen: connect %s (%s): %w", p.id, l.langs[p.dialect].name, err)
	}
	l.mu.Lock()
	l.conns = append(l.conns, c)
	l.mu.Unlock()
	return c, nil
}

// ready counts the agents of want the bridge lists READY, with at least
// as many tools as want says.
func (r *running) ready(ctx context.Context, want map[string]int) (int, error) {
	n := 0
	if r.srv != nil {
		for _, a := range r.srv.Bridge().Agents("") {
			if least, ok := want[a.ID]; ok && a.Status == bridge.StatusReady && len(a.Tools) >= least {
				n++
			}
		}
		return n, nil
	}
	tools, err := r.readyTools(ctx)
	for id, least := range want {
		if got, ok := tools[id]; ok && got >= least {
			n++
		}
	}
	return n, err
}

// close drops every agent's connection.
func (l *load) close() {
	for _, c := range l.conns {
		c.CloseNow()
	}
}

// drive runs the load to its end and reports.
func (l *load) drive(ctx context.Context) Report {
	o := l.o
	p := &progress{base: time.Now(), stop: make(chan struct{})}
	bg := context.Background()
	var readers, senders sync.WaitGroup
	f := &faults{signal: make(chan struct{}, 1)}
	for _, r := range l.responders {
		readers.Go(func() { f.ended(r.id, r.run(bg)) })
	}
	var interval time.Duration
	if o.Rate > 0 {
		interval = time.Duration(float64(len(l.requesters)) / o.Rate * float64(time.Second))
	}
	fill := filler(o.Payload)
	for i, r := range l.requesters {
		readers.Go(func() { f.ended(r.id, r.read(bg, p)) })
		// Requesters on a schedule start spread over one interval.
		offset := interval * time.Duration(i) / time.Duration(len(l.requesters))
		senders.Go(func() {
			if err := r.send(bg, p, interval, offset, fill); err != nil {
				f.ended(r.id, err)
			}
		})
	}
	stopped := l.wait(ctx, p, f.signal)
	if stopped != "" {
		// Senders stop before their next request; what they sent gets
		// Grace to be answered.
		close(p.stop)
		grace := time.Now().Add(Grace)
		for p.answered.Load() < p.sent.Load() && time.Now().Before(grace) {
			time.Sleep(time.Millisecond)
		}
	}
	end := p.now()
	if last := p.last.Load(); last > 0 {
		end = last
	}
	// Closing the connections also ends a write the bridge never took.
	f.finish()
	l.close()
	senders.Wait()
	readers.Wait()
	rep := l.report(stopped, time.Duration(end))
	rep.Broken, rep.BrokenExample = f.count()
	return rep
}

// wait returns when every request is answered (""), or why the run stops
// early.
func (l *load) wait(ctx context.Context, p *progress, broken <-chan struct{}) string {
	limit := time.NewTimer(l.o.Timeout)
	defer limit.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if p.answered.Load() >= int64(l.o.Pairs) {
				return ""
			}
		case <-limit.C:
			return "time limit"
		case <-ctx.Done():
			return "interrupted"
		case <-broken:
			return "a connection failed"
		}
	}
}

// faults collects the agents whose connection ended, or whose sending
// failed, before the run did.
type faults struct {
	mu      sync.Mutex
	done    bool
	n       int
	example string
	signal  chan struct{} // told of the first
}

// ended records that agent id's loop returned with err; after finish
// that is the run ending, not a fault.
func (f *faults) ended(id string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.done {
		return
	}
	if f.n == 0 {
		f.example = fmt.Sprintf("%s: %v", id, err)
		f.signal <- struct{}{}
	}
	f.n++
}

// finish marks the end of the run: connections end from now on.
func (f *faults) finish() {
	f.mu.Lock()
	f.done = true
	f.mu.Unlock()
}

func (f *faults) count() (int, string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.n, f.example
}
