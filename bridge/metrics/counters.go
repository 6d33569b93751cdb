package metrics

import (
	"sync"

	"github.com/prometheus/client_golang/prometheus"
)

// counters keeps a counter vector's counters by a key of their labels, for
// the counts made for every message: a look-up in the vector hashes and
// checks its label values each time, one here reads a map. Only for
// vectors whose series are never deleted, which a kept counter would
// outlive.
type counters[K comparable] struct {
	vec *prometheus.CounterVec
	mu  sync.RWMutex
	by  map[K]prometheus.Counter
}

func newCounters[K comparable](vec *prometheus.CounterVec) *counters[K] {
	return &counters[K]{vec: vec, by: map[K]prometheus.Counter{}}
}

// get returns the counter of k, whose label values labels returns.
func (c *counters[K]) get(k K, labels func() []string) prometheus.Counter {
	c.mu.RLock()
	n, ok := c.by[k]
	c.mu.RUnlock()
	if ok {
		return n
	}
	n = c.vec.WithLabelValues(labels()...)
	c.mu.Lock()
	c.by[k] = n
	c.mu.Unlock()
	return n
}
