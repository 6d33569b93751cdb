package loadgen

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// probeRequests is how many round trips one probe of latency times, one
// at a time.
const probeRequests = 200

// IdleReport is what idle agents cost the bridge, and whether they slow a
// request down.
type IdleReport struct {
	Agents  int
	Connect time.Duration // connecting them all and their introductions, until the bridge listed them READY with their tools
	// Unloaded is the round trip of a lone request before the idle agents
	// came, to one agent of each dialect in turn; Reached that of a lone
	// request to one of them (of every dialect, as they are), once all are
	// connected; each probe probeRequests round trips, one at a time.
	Unloaded, Reached Latency
	// Without and With are the memory of a bridge in its own process
	// before and after they connected (zero for a bridge in this
	// process, whose memory is also the load generator's), each read
	// after a collection.
	Without, With Memory
	// PeakWithout and PeakWith are the bridge process's peak resident
	// memory over PeakWindow, which holds a heartbeat round, before the
	// idle agents connected and once they all had introduced themselves
	// (zero for a bridge in this process). PeakBy says how it was read.
	PeakWithout, PeakWith int64
	PeakWindow            time.Duration
	PeakBy                string
}

// PerAgent returns the resident memory and Go heap each idle agent added,
// in bytes: the resident memory is the peak over the window above the
// empty bridge's where it was measured, else what /metrics said after a
// collection.
func (r *IdleReport) PerAgent() (rss, heap float64) {
	if r.Agents == 0 {
		return 0, 0
	}
	n := float64(r.Agents)
	heap = float64(r.With.HeapInuse-r.Without.HeapInuse) / n
	if r.PeakWith > 0 {
		return float64(r.PeakWith-r.PeakWithout) / n, heap
	}
	return float64(r.With.RSS-r.Without.RSS) / n, heap
}

// PeakWindow is how long the peak resident memory of a bridge is watched:
// longer than the default heartbeat (10 s) by a little, so that it holds a
// whole round of pings.
const PeakWindow = 11 * time.Second

// idle connects the run's idle agents to br, each a responder that
// answers what it is sent, and measures what they cost and the latency of
// a request to them against an unloaded one.
func (l *load) idle(ctx context.Context, br *running) (*IdleReport, error) {
	out := &IdleReport{Agents: l.o.Idle}
	brs := &bridges{list: []*running{br}}
	// The unloaded round trip, to responders of the probe's own, one of
	// each dialect, as the idle agents are: the dialects' translations do
	// not cost the same.
	lone := make([]peer, len(l.langs))
	for d := range lone {
		lone[d] = peer{id: fmt.Sprintf("PROBE-RSP-%d", d), dialect: d}
	}
	if err := l.serveIdle(ctx, brs, lone, nil); err != nil {
		return nil, err
	}
	var err error
	if out.Unloaded, err = l.probe(ctx, br, "PROBE-UNLOADED", lone); err != nil {
		return nil, err
	}
	if br.own() {
		if out.PeakWithout, out.PeakBy, err = br.peakRSS(ctx, PeakWindow); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
		}
		if out.Without, err = br.scrape(); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
		}
		if l.o.HeapProfile != "" {
			if err := br.heapProfile(l.o.HeapProfile + ".before"); err != nil {
				return nil, err
			}
		}
	}
	peers := make([]peer, l.o.Idle)
	for i := range peers {
		peers[i] = peer{id: fmt.Sprintf("IDLE-%05d", i), dialect: i % len(l.langs)}
	}
	began := time.Now()
	if err := l.serveIdle(ctx, brs, peers, lone); err != nil {
		return nil, err
	}
	out.Connect = time.Since(began)
	if br.own() {
		// The peak first, as the agents left the bridge: a collection
		// before it would hide the garbage of their connections.
		if out.PeakWith, _, err = br.peakRSS(ctx, PeakWindow); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
		}
		out.PeakWindow = PeakWindow
		if out.With, err = br.scrape(); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
		}
		if l.o.HeapProfile != "" {
			if err := br.heapProfile(l.o.HeapProfile); err != nil {
				return nil, err
			}
		}
	}
	// A request to one of them: spread over all of them, every dialect
	// (peer i speaks dialect i mod the dialects: the k-th target is moved
	// on by k so that a step that is a multiple of their number does not
	// pick one dialect only).
	step := max(1, len(peers)/probeRequests)
	some := make([]peer, 0, probeRequests)
	for k := range min(probeRequests, len(peers)) {
		some = append(some, peers[(k*step+k)%len(peers)])
	}
	if out.Reached, err = l.probe(ctx, br, "PROBE-IDLE", some); err != nil {
		return nil, err
	}
	return out, nil
}

// serveIdle connects peers to the bridge, eight at a time, each answering
// what it is sent until the run closes its connection, and waits until
// the bridge lists them all READY. With lone (the probe's responders, one
// per dialect), each peer introduces itself as a live agent of its dialect
// does (introduce), and the wait is also for their tools to be listed.
func (l *load) serveIdle(ctx context.Context, brs *bridges, peers, lone []peer) error {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	want := make(map[string]int, len(peers))
	for _, p := range peers {
		var intro [][]byte
		named, tools := true, false
		if lone != nil {
			var err error
			if intro, named, tools, err = l.introduction(p, lone[p.dialect]); err != nil {
				return err
			}
		}
		want[p.id] = 0
		if tools {
			want[p.id] = 1 // its tools
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			fail := func(err error) {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
			}
			c, err := l.dialAs(ctx, brs.list[0], p, named)
			if err != nil {
				fail(err)
				return
			}
			for _, f := range intro {
				if err := c.Write(ctx, f); err != nil {
					fail(fmt.Errorf("loadgen: introduce %s: %w", p.id, err))
					return
				}
			}
			r := l.newResponder(p, len(l.plan.requesters)+1, 0)
			r.conn = c
			go func() { _ = r.run(context.Background()) }()
		})
	}
	wg.Wait()
	if first != nil {
		return first
	}
	return brs.waitListed(ctx, want, connectWait+time.Duration(len(peers))*time.Millisecond)
}

// introduction returns the frames p opens its connection with, as a live
// agent of its dialect does, whether it is named in the URL, and whether
// the frames declare its tools: the reference agent's introduction with
// all its tools (a swarm handshake, an elizaacl INFORM_CAPABILITIES, a
// collab registration, a fuse declaration); in a dialect that has none
// (bluelabel, a2a), its first message, which introduces it: a request to
// the probe's responder of its dialect, answered at once, the agent named
// in the URL only when its frames do not name their sender (a2a).
func (l *load) introduction(p, to peer) (frames [][]byte, named, tools bool, err error) {
	lg := &l.langs[p.dialect]
	a, err := refagent.New(refagent.Options{ID: p.id, Dialect: lg.name})
	if err != nil {
		return nil, false, false, fmt.Errorf("loadgen: agent %s (%s): %w", p.id, lg.name, err)
	}
	if intro := a.Introduction(); len(intro) > 0 {
		return intro, true, true, nil
	}
	q := len(l.plan.requesters) // the probe's number: the responder answers it
	env := request(&lg.wire, p.id, to.id, p.id+"-INTRO", arguments(nil, q, 0, ""))
	frame, err := lg.codec.Encode(nil, env, encodeContext(p.id))
	if err != nil {
		return nil, false, false, fmt.Errorf("loadgen: the first message of %s (%s): %w", p.id, lg.name, err)
	}
	return [][]byte{frame}, !dialects.NamesSender(lg.codec), false, nil
}

// probe times probeRequests round trips from a collab requester named id
// to targets in turn, one at a time, and returns their latency.
func (l *load) probe(ctx context.Context, br *running, id string, targets []peer) (Latency, error) {
	p := peer{id: id, dialect: slices.Index(l.plan.dialects, "collab")}
	c, err := l.dial(ctx, br, p)
	if err != nil {
		return Latency{}, err
	}
	r := l.newRequester(p, len(l.plan.requesters), targets, probeRequests, 1)
	r.conn = c
	pr := &progress{base: time.Now(), stop: make(chan struct{})}
	read := make(chan struct{})
	go func() { defer close(read); _ = r.read(context.Background(), pr) }()
	sent := make(chan error, 1)
	go func() { sent <- r.send(context.Background(), pr, 0, 0, "") }()
	deadline := time.Now().Add(connectWait)
	for pr.answered.Load() < probeRequests && time.Now().Before(deadline) && ctx.Err() == nil {
		time.Sleep(time.Millisecond)
	}
	// The requester's counts are read once its reader has stopped.
	close(pr.stop)
	c.CloseNow()
	<-read
	if n := pr.answered.Load(); n < probeRequests {
		return Latency{}, fmt.Errorf("loadgen: probe %s: %d of %d answered", id, n, probeRequests)
	}
	if err := <-sent; err != nil {
		return Latency{}, fmt.Errorf("loadgen: probe %s: %w", id, err)
	}
	if r.errors > 0 {
		return Latency{}, fmt.Errorf("loadgen: probe %s: %d errors, e.g. %+v", id, r.errors, r.kinds)
	}
	var all []int64
	for _, ns := range r.latency {
		all = append(all, ns...)
	}
	return summarise(all), nil
}
