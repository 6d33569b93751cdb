package bridge

import (
	"errors"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus"
)

// metrics are the bridge's Prometheus metrics: those of specs/collab.md
// section 7.2, and the bridge's own.
type metrics struct {
	messages    *prometheus.CounterVec   // agent_messages_total{source,dest,type}
	duration    *prometheus.HistogramVec // agent_request_duration{source,dest}
	errors      *prometheus.CounterVec   // agent_errors_total{source,error_type}
	queue       *prometheus.GaugeVec     // agent_queue_size{agent_id}
	expired     prometheus.Counter       // bridge_messages_expired_total
	duplicates  prometheus.Counter       // bridge_duplicates_total
	retries     prometheus.Counter       // bridge_retries_total
	boosts      prometheus.Counter       // bridge_priority_boosts_total
	circuit     *prometheus.GaugeVec     // bridge_circuit_state{agent_id}
	received    *prometheus.CounterVec   // bridge_messages_received_total{dialect,type}
	handling    prometheus.Histogram     // bridge_message_handling_seconds
	status      *prometheus.GaugeVec     // bridge_agent_status{agent_id,status}
	connections prometheus.Gauge         // bridge_connections
	pending     prometheus.GaugeFunc     // bridge_pending_requests
}

func newMetrics(r prometheus.Registerer, pending func() float64) (*metrics, error) {
	m := &metrics{
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agent_messages_total", Help: "Messages delivered by the bridge, by sending agent, receiving agent and canonical act.",
		}, []string{"source", "dest", "type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "agent_request_duration", Help: "Seconds from a request's arrival to its answer's delivery.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"source", "dest"}),
		errors: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "agent_errors_total", Help: "Error replies made by the bridge, by the agent answered and canonical error code.",
		}, []string{"source", "error_type"}),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "agent_queue_size", Help: "Messages waiting in an agent's outbound queue.",
		}, []string{"agent_id"}),
		boosts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_priority_boosts_total", Help: "Answers raised to the priority of the request they answer.",
		}),
		retries: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "bridge_retries_total", Help: "Requests delivered again after a retryable failure.",
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
		status: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "bridge_agent_status", Help: "1 for an agent's current lifecycle state, 0 for the others.",
		}, []string{"agent_id", "status"}),
		connections: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "bridge_connections", Help: "Attached connections.",
		}),
		pending: prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "bridge_pending_requests", Help: "Requests awaiting their answer.",
		}, pending),
	}
	if r == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.messages, m.duration, m.errors, m.queue, m.expired, m.duplicates, m.retries, m.boosts, m.circuit, m.received, m.handling, m.status, m.connections, m.pending} {
		if err := r.Register(c); err != nil {
			return nil, errors.Join(errors.New("bridge: register metrics"), err)
		}
	}
	return m, nil
}

func (m *metrics) handled(d time.Duration) { m.handling.Observe(d.Seconds()) }

func (m *metrics) errored(source string, code canonical.ErrorCode) {
	m.errors.WithLabelValues(source, string(code)).Inc()
}

func (m *metrics) requestDone(p *pending, d time.Duration) {
	m.duration.WithLabelValues(p.sender.ID, p.receiver.id).Observe(d.Seconds())
}

// queued records the length of a session's outbound queue under its
// agent's id.
func (m *metrics) queued(s *Session, n int) {
	if s.opts.Ephemeral {
		return
	}
	if g := s.queueGauge(m); g != nil {
		g.Set(float64(n))
	}
}

// queueGauge is a session's queue length gauge, looked up once for the
// agent it speaks for.
type queueGauge struct {
	agent string
	g     prometheus.Gauge
}

// queueGauge returns the gauge of s's queue, nil until s speaks for an
// agent.
func (s *Session) queueGauge(m *metrics) prometheus.Gauge {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent == nil {
		return nil
	}
	if q := &s.queue; q.g == nil || q.agent != s.agent.id {
		q.agent, q.g = s.agent.id, m.queue.WithLabelValues(s.agent.id)
	}
	return s.queue.g
}

var statuses = []Status{StatusInitializing, StatusReady, StatusBusy, StatusUnavailable, StatusStopping, StatusStopped}

func (m *metrics) setStatus(id string, s Status) {
	for _, st := range statuses {
		v := 0.0
		if st == s {
			v = 1
		}
		m.status.WithLabelValues(id, string(st)).Set(v)
	}
}
