package metrics

import (
	"math"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// The series the bridge keeps per agent (its status, its queue's length,
// the messages it was delivered, its requests' durations) are kept here as
// plain values and made into metrics when scraped: the client library's
// own series (a Gauge, Counter or Histogram child of a vector) cost an
// idle agent of a large bridge hundreds of bytes each, for label pairs and
// bookkeeping made once and kept, where the values are tens of bytes.
// The exposition is the same: names, help, labels, values, and the created
// timestamps of the counters and histograms.

// agentSeries is one agent's bridge_agent_status and agent_queue_size.
type agentSeries struct {
	status string // the status label of its bridge_agent_status; "" for none
	queue  QueueGauge
}

// QueueGauge is one agent's agent_queue_size. The zero value is unused.
type QueueGauge struct {
	n atomic.Int64
	// shown is set once the agent's series exists: Metrics.Queue made it.
	shown atomic.Bool
}

// Set sets the queue's length.
func (g *QueueGauge) Set(n int) { g.n.Store(int64(n)) }

// agentsCollector makes bridge_agent_status{agent_id,status} and
// agent_queue_size{agent_id} of every agent it keeps, when scraped.
type agentsCollector struct {
	status, queue *prometheus.Desc
	mu            sync.Mutex
	by            map[string]*agentSeries
}

func newAgentsCollector() *agentsCollector {
	return &agentsCollector{
		status: prometheus.NewDesc("bridge_agent_status", "An agent's current lifecycle state: one series per agent, with the value 1.",
			[]string{"agent_id", "status"}, nil),
		queue: prometheus.NewDesc("agent_queue_size", "Messages waiting in an agent's outbound queue.", []string{"agent_id"}, nil),
		by:    map[string]*agentSeries{},
	}
}

// seriesLocked returns the series of id, making them; c.mu is held.
func (c *agentsCollector) seriesLocked(id string) *agentSeries {
	s := c.by[id]
	if s == nil {
		s = &agentSeries{}
		c.by[strings.Clone(id)] = s
	}
	return s
}

// setStatus makes status the agent id's one bridge_agent_status series.
func (c *agentsCollector) setStatus(id, status string) {
	c.mu.Lock()
	c.seriesLocked(id).status = status
	c.mu.Unlock()
}

// queueOf returns the agent id's agent_queue_size, making the series.
func (c *agentsCollector) queueOf(id string) *QueueGauge {
	c.mu.Lock()
	defer c.mu.Unlock()
	q := &c.seriesLocked(id).queue
	q.shown.Store(true)
	return q
}

// forget removes the agent id's series; a QueueGauge of it handed out
// before is no longer shown.
func (c *agentsCollector) forget(id string) {
	c.mu.Lock()
	delete(c.by, id)
	c.mu.Unlock()
}

// Describe implements prometheus.Collector.
func (c *agentsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.status
	ch <- c.queue
}

// Collect implements prometheus.Collector. The series are read under the
// lock and made into metrics after it, so that a scrape of many agents
// does not hold up the events that change them.
func (c *agentsCollector) Collect(ch chan<- prometheus.Metric) {
	type row struct {
		id, status string
		queue      int64
		queued     bool
	}
	c.mu.Lock()
	rows := make([]row, 0, len(c.by))
	for id, s := range c.by {
		rows = append(rows, row{id: id, status: s.status, queue: s.queue.n.Load(), queued: s.queue.shown.Load()})
	}
	c.mu.Unlock()
	for _, r := range rows {
		if r.status != "" {
			ch <- prometheus.MustNewConstMetric(c.status, prometheus.GaugeValue, 1, r.id, r.status)
		}
		if r.queued {
			ch <- prometheus.MustNewConstMetric(c.queue, prometheus.GaugeValue, float64(r.queue), r.id)
		}
	}
}

// counted is one series of a counterCollector.
type counted struct {
	n       atomic.Uint64
	created int64 // unix nanoseconds
}

// labeled holds the series of one metric by a key of their labels, each
// made the first time its key is counted and never deleted: a count
// reads a map and adds to integers, and the labels are written out only
// when scraped.
type labeled[K comparable, V any] struct {
	desc   *prometheus.Desc
	labels func(K) []string
	mu     sync.RWMutex
	by     map[K]*V
}

// of returns the series of k, made by made the first time, under the key
// own returns (its strings copied out of whatever they were read from).
func (l *labeled[K, V]) of(k K, own func(K) K, made func() *V) *V {
	l.mu.RLock()
	v := l.by[k]
	l.mu.RUnlock()
	if v != nil {
		return v
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if v = l.by[k]; v == nil {
		v = made()
		l.by[own(k)] = v
	}
	return v
}

// Describe implements prometheus.Collector.
func (l *labeled[K, V]) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

// counterCollector is a counter with labels whose series are never
// deleted (agent_messages_total).
type counterCollector[K comparable] struct {
	labeled[K, counted]
}

func newCounterCollector[K comparable](desc *prometheus.Desc, labels func(K) []string) *counterCollector[K] {
	return &counterCollector[K]{labeled[K, counted]{desc: desc, labels: labels, by: map[K]*counted{}}}
}

// add adds 1 to the series of k, which own returns as the map keeps it.
func (c *counterCollector[K]) add(k K, own func(K) K) {
	c.of(k, own, newCounted).n.Add(1)
}

// newCounted makes a counter's series, created now.
func newCounted() *counted { return &counted{created: time.Now().UnixNano()} }

// Collect implements prometheus.Collector.
func (c *counterCollector[K]) Collect(ch chan<- prometheus.Metric) {
	type row struct {
		k       K
		n       uint64
		created int64
	}
	c.mu.RLock()
	rows := make([]row, 0, len(c.by))
	for k, n := range c.by {
		rows = append(rows, row{k, n.n.Load(), n.created})
	}
	c.mu.RUnlock()
	for _, r := range rows {
		ch <- prometheus.MustNewConstMetricWithCreatedTimestamp(c.desc, prometheus.CounterValue, float64(r.n), time.Unix(0, r.created), c.labels(r.k)...)
	}
}

// durationBucketCount is the number of agent_request_duration's bucket
// bounds.
const durationBucketCount = 10

// durationBuckets are agent_request_duration's bucket bounds, seconds.
var durationBuckets = prometheus.ExponentialBuckets(0.0001, 4, durationBucketCount)

// histogramSeries is one series of a histogramCollector: how many
// observations fell in each bucket (the last past every bound), not
// cumulated, and their sum.
type histogramSeries struct {
	counts  [durationBucketCount + 1]atomic.Uint64
	sum     atomic.Uint64 // float64 bits
	created int64         // unix nanoseconds
}

// observe counts v, which falls in bucket i.
func (h *histogramSeries) observe(i int, v float64) {
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// histogramCollector is a histogram with labels whose series are never
// deleted (agent_request_duration), with the bounds durationBuckets.
type histogramCollector[K comparable] struct {
	labeled[K, histogramSeries]
}

func newHistogramCollector[K comparable](desc *prometheus.Desc, labels func(K) []string) *histogramCollector[K] {
	return &histogramCollector[K]{labeled[K, histogramSeries]{desc: desc, labels: labels, by: map[K]*histogramSeries{}}}
}

// observe counts v in the series of k, which own returns as the map keeps
// it.
func (c *histogramCollector[K]) observe(k K, own func(K) K, v float64) {
	c.of(k, own, newHistogramSeries).observe(sort.SearchFloat64s(durationBuckets, v), v)
}

// newHistogramSeries makes a histogram's series, created now.
func newHistogramSeries() *histogramSeries { return &histogramSeries{created: time.Now().UnixNano()} }

// Collect implements prometheus.Collector. A series' count is the sum of
// its buckets as read, so that the two always agree.
func (c *histogramCollector[K]) Collect(ch chan<- prometheus.Metric) {
	c.mu.RLock()
	keys := make([]K, 0, len(c.by))
	series := make([]*histogramSeries, 0, len(c.by))
	for k, h := range c.by {
		keys = append(keys, k)
		series = append(series, h)
	}
	c.mu.RUnlock()
	for i, h := range series {
		buckets := make(map[float64]uint64, durationBucketCount)
		var count uint64
		for b := range h.counts {
			count += h.counts[b].Load()
			if b < durationBucketCount {
				buckets[durationBuckets[b]] = count
			}
		}
		sum := math.Float64frombits(h.sum.Load())
		ch <- prometheus.MustNewConstHistogramWithCreatedTimestamp(c.desc, count, sum, buckets, time.Unix(0, h.created), c.labels(keys[i])...)
	}
}
