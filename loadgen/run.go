package loadgen

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/server"
)

// connectWait bounds connecting the agents and the bridge's stopping.
const connectWait = 30 * time.Second

// Run starts a bridge on a loopback port, connects the agents to it and
// drives the load, and returns what it measured. Its error is for a run
// that could not start: bad options, a bridge that would not start, an
// agent that could not connect, or a bridge that would not stop (the
// report is then complete). ctx ending stops the run early, like the
// Timeout, or ends it before the load while the agents connect; the
// report says so.
func Run(ctx context.Context, o Options) (Report, error) {
	o = o.WithDefaults()
	if err := o.Check(); err != nil {
		return Report{}, fmt.Errorf("loadgen: %w", err)
	}
	began := time.Now()
	br, err := startBridge(o)
	if err != nil {
		return Report{}, err
	}
	pl := newPlan(dialects.Names(), o.Agents, o.Pairs)
	l := &load{o: o, plan: pl}
	if err := l.connect(ctx, br); err != nil {
		l.close()
		if ctx.Err() != nil {
			rep := l.report("interrupted", 0)
			rep.Setup = time.Since(began)
			return rep, br.stop()
		}
		return Report{}, errors.Join(err, br.stop())
	}
	rep := l.drive(ctx)
	rep.Setup = l.setup.Sub(began)
	return rep, br.stop()
}

// running is a bridge started for a run.
type running struct {
	srv    *server.Server
	addr   string
	cancel context.CancelFunc
	done   chan error
}

// startBridge runs a bridge on the default config, on a loopback port,
// validating as o says.
func startBridge(o Options) (*running, error) {
	cfg := config.Default()
	cfg.Listen = "127.0.0.1:0"
	cfg.Validate = o.Validate
	cfg.ShutdownTimeout = 2 * time.Second
	log := o.Logger
	if log == nil {
		log = slog.New(slog.NewJSONHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
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

// stop shuts the bridge down and waits for it.
func (r *running) stop() error {
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
	o          Options
	plan       *plan
	requesters []*requester
	responders []*responder
	conns      []*websocket.Conn
	setup      time.Time // when every agent was connected
}

// connect dials every agent's WebSocket and waits until the bridge lists
// them all as ready.
func (l *load) connect(ctx context.Context, br *running) error {
	names := l.plan.dialects
	codecs := make([]dialects.Codec, len(names))
	wires := make([]wire, len(names))
	reg := builtin.Default()
	for d, name := range names {
		rec, found := dialects.RecordOf(name)
		c, ok := reg.Lookup(name)
		if !found || !ok {
			return fmt.Errorf("loadgen: no codec for %s", name)
		}
		codecs[d], wires[d] = c, wireOf(rec, c)
	}
	dial := func(p peer) (*websocket.Conn, error) {
		u := fmt.Sprintf("ws://%s/ws/%s?agent=%s", br.addr, names[p.dialect], p.id)
		dctx, cancel := context.WithTimeout(ctx, connectWait)
		defer cancel()
		c, _, err := websocket.Dial(dctx, u, nil)
		if err != nil {
			return nil, fmt.Errorf("loadgen: connect %s (%s): %w", p.id, names[p.dialect], err)
		}
		c.SetReadLimit(-1)
		l.conns = append(l.conns, c)
		return c, nil
	}
	for _, p := range l.plan.responders {
		r := newResponder(p, codecs[p.dialect], wires[p.dialect], len(l.plan.requesters), l.o.FailEvery)
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
		r := newRequester(p, i, codecs[p.dialect], wires[p.dialect], targets, l.plan.quota[i], l.o.Window, len(names))
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
	deadline := time.Now().Add(connectWait)
	for {
		ready := 0
		for _, a := range br.srv.Bridge().Agents("") {
			if want[a.ID] && a.Status == bridge.StatusReady {
				ready++
			}
		}
		if ready == len(want) {
			l.setup = time.Now()
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("loadgen: %d of %d agents ready after %s", ready, len(want), connectWait)
		}
		time.Sleep(2 * time.Millisecond)
	}
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
