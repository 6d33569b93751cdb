package metrics

import (
	"slices"
	"sort"
	"sync/atomic"
)

// Totals are counts since the bridge started, summed over every agent: what
// the web console's chart samples. Reading them costs the same whatever
// the number of agents, where gathering the labelled series does not (100
// busy agents make 2,000 series of agent_request_duration, a 2 MB scrape
// that takes tens of milliseconds of CPU).
type Totals struct {
	// Received counts bridge_messages_received_total, Delivered
	// agent_messages_total, Errors agent_errors_total, over all labels.
	Received, Delivered, Errors uint64
	// Requests counts the requests answered (agent_request_duration's
	// count); Answered[i] those answered within Bounds[i] seconds, the
	// histogram's bucket bounds, ascending.
	Requests uint64
	Bounds   []float64
	Answered []uint64
}

// totals are the running Totals.
type totals struct {
	received, delivered, errors atomic.Uint64
	bounds                      []float64
	requests                    []atomic.Uint64 // by bucket; the last past every bound
}

func newTotals(bounds []float64) *totals {
	return &totals{bounds: bounds, requests: make([]atomic.Uint64, len(bounds)+1)}
}

func (t *totals) answered(seconds float64) {
	t.requests[sort.SearchFloat64s(t.bounds, seconds)].Add(1)
}

// Totals returns the totals now.
func (m *Metrics) Totals() Totals {
	t := m.totals
	s := Totals{Received: t.received.Load(), Delivered: t.delivered.Load(), Errors: t.errors.Load(),
		Bounds: slices.Clone(t.bounds), Answered: make([]uint64, len(t.bounds))}
	for i := range t.requests {
		n := t.requests[i].Load()
		s.Requests += n
		if i < len(s.Answered) {
			s.Answered[i] = s.Requests
		}
	}
	return s
}
