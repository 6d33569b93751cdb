package console

import (
	"math"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// TestChart samples a registry holding the metrics the chart reads, with
// known values: the rates are the counters' rise per second, and the
// quantiles are those of the requests answered in the interval only,
// interpolated in their buckets as histogram_quantile does.
func TestChart(t *testing.T) {
	reg := prometheus.NewRegistry()
	received := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "bridge_messages_received_total"}, []string{"dialect"})
	delivered := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_messages_total"}, []string{"source"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_errors_total"}, []string{"source"})
	duration := prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "agent_request_duration",
		Buckets: []float64{0.001, 0.01, 0.1}}, []string{"source"})
	reg.MustRegister(received, delivered, errs, duration)

	c := newChart(reg, 3, time.Second)
	t0 := time.Unix(1000, 0)
	// Before the first sample: requests that must not count.
	duration.WithLabelValues("a").Observe(0.05)
	c.sample(t0)
	if got := c.series(); len(got) != 0 {
		t.Fatalf("a first sample is the baseline, yet the chart has %v", got)
	}

	received.WithLabelValues("swarm").Add(20)
	received.WithLabelValues("fuse").Add(10)
	delivered.WithLabelValues("a").Add(40)
	errs.WithLabelValues("a").Add(2)
	// 100 requests over two series: 60 under 1 ms, 40 between 1 and 10.
	for i := range 100 {
		src, d := "a", 0.0005
		if i%2 == 1 {
			src = "b"
		}
		if i >= 60 {
			d = 0.005
		}
		duration.WithLabelValues(src).Observe(d)
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
	// p50: rank 50 of 60 in the first bucket (0 to 1 ms).
	// p99: rank 99, the 39th of the 40 in the second (1 to 10 ms).
	if p.P50 == nil || p.P99 == nil || math.Abs(*p.P50-50.0/60) > 1e-9 || math.Abs(*p.P99-(1+9*39.0/40)) > 1e-9 {
		t.Errorf("p50 %v, p99 %v: want %v and %v", deref(p.P50), deref(p.P99), 50.0/60, 1+9*39.0/40)
	}

	// No request in an interval: no quantiles; past the last bucket: its
	// bound.
	c.sample(t0.Add(3 * time.Second))
	duration.WithLabelValues("a").Observe(5)
	c.sample(t0.Add(4 * time.Second))
	c.sample(t0.Add(5 * time.Second))
	pts = c.series()
	if len(pts) != 3 {
		t.Fatalf("%d points, want the ring's 3", len(pts))
	}
	if pts[0].P50 != nil || pts[0].Requests != 0 || pts[0].Out != 0 {
		t.Errorf("an idle interval: %+v", pts[0])
	}
	if pts[1].P99 == nil || *pts[1].P99 != 100 {
		t.Errorf("a request past the largest bucket: p99 %v, want 100 ms", deref(pts[1].P99))
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
