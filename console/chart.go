package console

import (
	"net/http"
	"sync"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/metrics"
)

// The chart: the message rates and the request latency over the last
// minutes, sampled from the bridge's totals of the metrics /metrics serves
// (the same counters and histogram, summed over their labels: a gather of
// every series would cost tens of milliseconds with a hundred busy agents),
// one point per sample into a ring of fixed size.

// point is one interval of the chart.
type point struct {
	Time time.Time `json:"time"`
	// In is the messages received per second
	// (bridge_messages_received_total), Out those delivered
	// (agent_messages_total), Errors the bridge's error replies
	// (agent_errors_total).
	In     float64 `json:"in"`
	Out    float64 `json:"out"`
	Errors float64 `json:"errors"`
	// Requests is how many requests were answered in the interval; P50
	// and P99 their round trip's quantiles in milliseconds
	// (agent_request_duration), absent when none were.
	Requests uint64   `json:"requests"`
	P50      *float64 `json:"p50_ms,omitempty"`
	P99      *float64 `json:"p99_ms,omitempty"`
}

// totals are the metrics at one time.
type totals struct {
	at            time.Time
	in, out, errs float64
	count         uint64
	uppers        []float64 // the histogram's bucket bounds, ascending
	cumulative    []uint64  // the requests at most each bound
}

// chart is the ring of points.
type chart struct {
	source func() metrics.Totals
	every  time.Duration
	mu     sync.Mutex
	points []point // a ring
	next   int
	n      int
	last   *totals
}

func newChart(source func() metrics.Totals, size int, every time.Duration) *chart {
	return &chart{source: source, every: every, points: make([]point, max(size, 1))}
}

// sample reads the metrics and adds the point since the last sample.
func (c *chart) sample(now time.Time) {
	t := c.read(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev := c.last; prev != nil {
		if secs := t.at.Sub(prev.at).Seconds(); secs > 0 {
			p := point{Time: t.at, In: rate(prev.in, t.in, secs), Out: rate(prev.out, t.out, secs), Errors: rate(prev.errs, t.errs, secs)}
			if t.count > prev.count {
				p.Requests = t.count - prev.count
				p.P50, p.P99 = quantile(0.5, prev, &t), quantile(0.99, prev, &t)
			}
			c.points[c.next] = p
			c.next = (c.next + 1) % len(c.points)
			c.n = min(c.n+1, len(c.points))
		}
	}
	c.last = &t
}

// rate is a counter's rise per second, 0 when it fell (a series went).
func rate(from, to, secs float64) float64 {
	if to < from {
		return 0
	}
	return (to - from) / secs
}

// read takes the totals now.
func (c *chart) read(now time.Time) totals {
	s := c.source()
	return totals{at: now, in: float64(s.Received), out: float64(s.Delivered), errs: float64(s.Errors),
		count: s.Requests, uppers: s.Bounds, cumulative: s.Answered}
}

// quantile estimates the q-quantile, in milliseconds, of the requests
// answered between prev and cur, as Prometheus's histogram_quantile does:
// linearly within the bucket it falls in; the largest bound when it falls
// past it. The bounds are the same at every sample (metrics.Totals).
func quantile(q float64, prev, cur *totals) *float64 {
	rank := q * float64(cur.count-prev.count)
	below, lower := 0.0, 0.0
	for i, upper := range cur.uppers {
		n := float64(cur.cumulative[i] - prev.cumulative[i])
		if n >= rank && n > below {
			v := (lower + (upper-lower)*(rank-below)/(n-below)) * 1000
			return &v
		}
		below, lower = n, upper
	}
	v := lower * 1000
	return &v
}

// series returns the points, oldest first.
func (c *chart) series() []point {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]point, 0, c.n)
	for i := range c.n {
		out = append(out, c.points[(c.next-c.n+i+len(c.points))%len(c.points)])
	}
	return out
}

// metricsChart answers GET /ui/api/metrics: the chart's points.
func (c *Console) metricsChart(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		EverySeconds  float64 `json:"every_s"`
		WindowSeconds float64 `json:"window_s"`
		Points        []point `json:"points"`
	}{c.chart.every.Seconds(), c.chart.every.Seconds() * float64(len(c.chart.points)), c.chart.series()})
}
