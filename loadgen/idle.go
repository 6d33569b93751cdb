package loadgen

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// probeRequests is how many round trips one probe of latency times, one
// at a time.
const probeRequests = 200

// IdleReport is what idle agents cost the bridge, and whether they slow a
// request down.
type IdleReport struct {
	Agents  int
	Connect time.Duration // connecting them all, until the bridge listed them READY
	// Unloaded is the round trip of a lone request before the idle agents
	// came, to one agent of each dialect in turn; Reached that of a lone
	// request to one of them (of every dialect, as they are), once all are
	// connected; each probe probeRequests round trips, one at a time.
	Unloaded, Reached Latency
	// Without and With are the memory of a bridge in its own process
	// before and after they connected (zero for a bridge in this
	// process, whose memory is also the load generator's).
	Without, With Memory
}

// PerAgent returns the resident memory and Go heap each idle agent added,
// in bytes.
func (r *IdleReport) PerAgent() (rss, heap float64) {
	if r.Agents == 0 {
		return 0, 0
	}
	n := float64(r.Agents)
	return float64(r.With.RSS-r.Without.RSS) / n, float64(r.With.HeapInuse-r.Without.HeapInuse) / n
}

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
	if err := l.serveIdle(ctx, brs, lone); err != nil {
		return nil, err
	}
	var err error
	if out.Unloaded, err = l.probe(ctx, br, "PROBE-UNLOADED", lone); err != nil {
		return nil, err
	}
	if br.own() {
		if out.Without, err = br.scrape(); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
		}
	}
	peers := make([]peer, l.o.Idle)
	for i := range peers {
		peers[i] = peer{id: fmt.Sprintf("IDLE-%05d", i), dialect: i % len(l.langs)}
	}
	began := time.Now()
	if err := l.serveIdle(ctx, brs, peers); err != nil {
		return nil, err
	}
	out.Connect = time.Since(began)
	if br.own() {
		if out.With, err = br.scrape(); err != nil {
			return nil, fmt.Errorf("loadgen: the bridge's memory: %w", err)
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
// the bridge lists them all READY.
func (l *load) serveIdle(ctx context.Context, brs *bridges, peers []peer) error {
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for _, p := range peers {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := l.dial(ctx, brs.list[0], p)
			if err != nil {
				mu.Lock()
				if first == nil {
					first = err
				}
				mu.Unlock()
				return
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
	want := make(map[string]bool, len(peers))
	for _, p := range peers {
		want[p.id] = true
	}
	return brs.waitReady(ctx, want, connectWait+time.Duration(len(peers))*time.Millisecond)
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
