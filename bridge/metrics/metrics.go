// Package metrics holds the bridge's Prometheus metrics: those of
// specs/collab.md section 7.2 (agent_messages_total, agent_request_duration,
// agent_errors_total, agent_queue_size) and the bridge's own (bridge_*).
package metrics

import (
	"errors"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus"
)

// Metrics are the bridge's metrics. Their methods are safe for concurrent
// use.
type Metrics struct {
	messages    *counterCollector[deliveredKey] // agent_messages_total{source,dest,type}
	duration    *histogramCollector[requestKey] // agent_request_duration{source,dest}
	errors      *prometheus.CounterVec          // agent_errors_total{source,error_type}
	agents      *agentsCollector                // agent_queue_size{agent_id}, bridge_agent_status{agent_id,status}
	expired     prometheus.Counter              // bridge_messages_expired_total
	duplicates  prometheus.Counter              // bridge_duplicates_total
	retries     prometheus.Counter              // bridge_retries_total
	boosts      prometheus.Counter              // bridge_priority_boosts_total
	late        prometheus.Counter              // bridge_late_answers_total
	circuit     *prometheus.GaugeVec            // bridge_circuit_state{agent_id}
	received    *prometheus.CounterVec          // bridge_messages_received_total{dialect,type}
	handling    prometheus.Histogram            // bridge_message_handling_seconds
	connections prometheus.Gauge                // bridge_connections
	pending     prometheus.GaugeFunc            // bridge_pending_requests
	reg         prometheus.Registerer           // where Table registers; nil: nowhere
	totals      *totals                         // the same counts over all labels
	// The counters of received by their labels.
	heard *counters[receivedKey]
}

// deliveredKey, requestKey and receivedKey are the labels of
// agent_messages_total, agent_request_duration and
// bridge_messages_received_total.
type (
	deliveredKey struct {
		source, dest string
		act          canonical.Act
	}
	requestKey struct {
		source, dest string
	}
	receivedKey struct {
		dialect string
		act     canonical.Act
	}
)

// The label values of a key, and the key with its own copy of its strings.
func (k deliveredKey) labels() []string { return []string{k.source, k.dest, string(k.act)} }
func (k deliveredKey) own() deliveredKey {
	return deliveredKey{strings.Clone(k.source), strings.Clone(k.dest), canonical.Act(strings.Clone(string(k.act)))}
}
func (k requestKey) labels() []string { return []string{k.source, k.dest} }
func (k requestKey) own() requestKey {
	return requestKey{strings.Clone(k.source), strings.Clone(k.dest)}
}

// New returns the metrics, registered with r (nil registers none); pending
// tells the number of open requests when scraped.
func New(r prometheus.Registerer, pending func() float64) (*Metrics, error) {
	m := &Metrics{
		messages: newCounterCollector(prometheus.NewDesc("agent_messages_total",
			"Messages delivered by the bridge, by sending agent, receiving agent and canonical act.",
			[]string{"source", "dest", "type"}, nil), deliveredKey.labels),
		duration: newHistogramCollector(prometheus.NewDesc("agent_request_duration",
			"Seconds from a request's arrival to its answer's delivery.", []string{"source", "dest"}, nil), requestKey.labels),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agent_errors_total", Help: "Error replies made by the bridge, by the agent answered and canonical error code.",
		}, []string{"source", "error_type"}),
		agents: newAgentsCollector(),
		boosts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_priority_boosts_total", Help: "Answers raised to the priority of the request they answer.",
		}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_retries_total", Help: "Requests delivered again after a retryable failure.",
		}),
		late: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_late_answers_total", Help: "Answers that came after their request was closed (timed out, cancelled, answered) and were dropped.",
		}),
		circuit: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "bridge_circuit_state", Help: "An agent's circuit breaker: 0 closed, 1 half-open, 2 open.",
		}, []string{"agent_id"}),
		duplicates: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_duplicates_total", Help: "Messages received again within the dedupe window, and not delivered again.",
		}),
		expired: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_messages_expired_total", Help: "Messages dropped undelivered because their time ran out while queued.",
		}),
		received: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "bridge_messages_received_total", Help: "Messages received and understood, by dialect and canonical act.",
		}, []string{"dialect", "type"}),
		handling: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "bridge_message_handling_seconds", Help: "Seconds to decode, route, translate and hand over one received message.",
			Buckets: prometheus.ExponentialBuckets(0.000005, 3, 10),
		}),
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bridge_connections", Help: "Attached connections.",
		}),
		pending: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bridge_pending_requests", Help: "Requests awaiting their answer.",
		}, pending),
	}
	m.reg = r
	m.totals = newTotals(durationBuckets)
	m.heard = newCounters[receivedKey](m.received)
	if r == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.messages, m.duration, m.errors, m.agents, m.expired, m.duplicates, m.retries, m.boosts, m.late, m.circuit, m.received, m.handling, m.connections, m.pending} {
		if err := r.Register(c); err != nil {
			return nil, errors.Join(errors.New("bridge: register metrics"), err)
		}
	}
	return m, nil
}

// Handled observes the time one received message took to handle.
func (m *Metrics) Handled(d time.Duration) { m.handling.Observe(d.Seconds()) }

// Errored counts an error reply the bridge made for the agent source.
func (m *Metrics) Errored(source string, code canonical.ErrorCode) {
	m.errors.WithLabelValues(source, string(code)).Inc()
	m.totals.errors.Add(1)
}

// RequestDone observes a request's time from arrival to answer.
func (m *Metrics) RequestDone(source, dest string, d time.Duration) {
	m.duration.observe(requestKey{source, dest}, requestKey.own, d.Seconds())
	m.totals.answered(d.Seconds())
}

// Delivered counts a message delivered from source to dest.
func (m *Metrics) Delivered(source, dest string, act canonical.Act) {
	m.messages.add(deliveredKey{source, dest, act}, deliveredKey.own)
	m.totals.delivered.Add(1)
}

// Received counts a message received and understood.
func (m *Metrics) Received(dialect string, act canonical.Act) {
	m.heard.get(receivedKey{dialect, act}, func() []string { return []string{dialect, string(act)} }).Inc()
	m.totals.received.Add(1)
}

// Queue returns the gauge of the agent id's queue length, making its
// series.
func (m *Metrics) Queue(id string) *QueueGauge { return m.agents.queueOf(id) }

// Expired counts a message dropped because it expired while queued.
func (m *Metrics) Expired() { m.expired.Inc() }

// Duplicate counts a message received again within the dedupe window.
func (m *Metrics) Duplicate() { m.duplicates.Inc() }

// Retry counts a request delivered again.
func (m *Metrics) Retry() { m.retries.Inc() }

// Boost counts an answer raised to its request's priority.
func (m *Metrics) Boost() { m.boosts.Inc() }

// Late counts an answer that came after its request was closed.
func (m *Metrics) Late() { m.late.Inc() }

// Circuit sets the state of the agent id's circuit breaker (0 closed, 1
// half-open, 2 open).
func (m *Metrics) Circuit(id string, state int) { m.circuit.WithLabelValues(id).Set(float64(state)) }

// Connections adds delta to the attached connections.
func (m *Metrics) Connections(delta int) { m.connections.Add(float64(delta)) }

// Status sets the agent id's lifecycle state: its one series, for status,
// is 1, and it has none for the other statuses.
func (m *Metrics) Status(id, status string) { m.agents.setStatus(id, status) }

// Forget removes the series of an agent the bridge no longer knows.
func (m *Metrics) Forget(id string) {
	m.agents.forget(id)
	m.circuit.DeleteLabelValues(id)
}
