package console

import (
	"math"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestChart samples the totals of the bridge's metrics, counted with known
// values: the rates are the counters' rise per second, and the quantiles
// are those of the requests answered in the interval only, interpolated in
// agent_request_duration's buckets (0.1 ms times powers of 4) as
// histogram_quantile does.
func TestChart(t *testing.T) {
	m, err := metrics.New(nil, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	c := newChart(m.Totals, 3, time.Second)
	t0 := time.Unix(1000, 0)
	// Before the first sample: a request that must not count.
	m.RequestDone("a", "z", 50*time.Millisecond)
	c.sample(t0)
	if got := c.series(); len(got) != 0 {
		t.Fatalf("a first sample is the baseline, yet the chart has %v", got)
	}

	for range 20 {
		m.Received("swarm", canonical.ActRequest)
	}
	for range 10 {
		m.Received("fuse", canonical.ActEvent)
	}
	for range 40 {
		m.Delivered("a", "z", canonical.ActRequest)
	}
	m.Errored("a", canonical.ErrTimeout)
	m.Errored("b", canonical.ErrRejected)
	// 100 requests over two pairs of agents: 60 of 0.5 ms (in the bucket
	// from 0.4 to 1.6 ms), 40 of 5 ms (from 1.6 to 6.4).
	for i := range 100 {
		src, d := "a", 500*time.Microsecond
		if i%2 == 1 {
			src = "b"
		}
		if i >= 60 {
			d = 5 * time.Millisecond
		}
		m.RequestDone(src, "z", d)
	}
	c.sample(t0.Add(2 * time.Second))
	pts := c.series()
	if len(pts) != 1 {
		t.Fatalf("%d points, want 1", len(pts))
	}
	p := pts[0]
	if p.In != 15 || p.Out != 20 || p.Errors != 1 || p.Requests != 100 {
		t.Errorf("point %+v: want in 15/s, out 20/s, errors 1/s, 100 requests", p)
	}
	// p50: rank 50 of the 60 in the bucket from 0.4 to 1.6 ms.
	// p99: rank 99, the 39th of the 40 in the next, from 1.6 to 6.4.
	wantP50, wantP99 := 0.4+1.2*50/60, 1.6+4.8*39/40
	if p.P50 == nil || p.P99 == nil || math.Abs(*p.P50-wantP50) > 1e-9 || math.Abs(*p.P99-wantP99) > 1e-9 {
		t.Errorf("p50 %v, p99 %v: want %v and %v", deref(p.P50), deref(p.P99), wantP50, wantP99)
	}

	// No request in an interval: no quantiles; past the last bucket: its
	// bound (0.1 ms times 4^9).
	c.sample(t0.Add(3 * time.Second))
	m.RequestDone("a", "z", 30*time.Second)
	c.sample(t0.Add(4 * time.Second))
	c.sample(t0.Add(5 * time.Second))
	pts = c.series()
	if len(pts) != 3 {
		t.Fatalf("%d points, want the ring's 3", len(pts))
	}
	if pts[0].P50 != nil || pts[0].Requests != 0 || pts[0].Out != 0 {
		t.Errorf("an idle interval: %+v", pts[0])
	}
	if want := 0.1 * math.Pow(4, 9); pts[1].P99 == nil || math.Abs(*pts[1].P99-want) > 1e-6 {
		t.Errorf("a request past the largest bucket: p99 %v, want %v ms", deref(pts[1].P99), want)
	}
	if !pts[2].Time.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("the newest point is at %v, want the last sample's time", pts[2].Time)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}
