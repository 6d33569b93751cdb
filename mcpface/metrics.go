package mcpface

import (
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a tools/call, as the mcp_tool_calls_total metric counts them.
const (
	outcomeSuccess   = "success"      // the agent's result
	outcomeFailure   = "failure"      // the agent's failure or refusal, or a failed result
	outcomeBridge    = "unavailable"  // the bridge's own error: agent gone, timed out, queue full, circuit open
	outcomeInputs    = "needs_input"  // the agent wants inputs the client cannot give
	outcomeCancelled = "cancelled"    // the client cancelled
	outcomeLimited   = "rate_limited" // over a limit of mcp.limits: not sent to the agent
	outcomeUnknown   = "unknown_tool" // no such tool for this client: in the audit log only
)

// metrics are the MCP face's Prometheus metrics.
type metrics struct {
	sessions    prometheus.Gauge         // mcp_sessions_open
	calls       *prometheus.CounterVec   // mcp_tool_calls_total{tool,outcome}
	durations   *prometheus.HistogramVec // mcp_tool_call_duration_seconds{tool}
	listChanged prometheus.Counter       // mcp_tools_list_changed_total
	limited     *prometheus.CounterVec   // mcp_rate_limited_total{limit}
	relayed     prometheus.Counter       // mcp_answers_relayed_total
	// tools holds each called tool's series of calls and durations
	// (*toolSeries by tool name), so that a tools/call does not look its
	// labels up in the vectors again.
	tools sync.Map
}

// outcomes are the outcomes mcp_tool_calls_total counts, in the order of
// toolSeries.calls.
var outcomes = [...]string{outcomeSuccess, outcomeFailure, outcomeBridge, outcomeInputs, outcomeCancelled, outcomeLimited}

// toolSeries are one tool's series: its duration histogram and its call
// counter of each outcome, each made on the first call that needs it.
type toolSeries struct {
	duration prometheus.Observer
	calls    [len(outcomes)]atomic.Pointer[prometheus.Counter]
}

func newMetrics(r prometheus.Registerer) (*metrics, error) {
	m := &metrics{
		sessions: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mcp_sessions_open", Help: "MCP sessions open on the bridge's MCP face.",
		}),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_tool_calls_total", Help: "tools/call handled, by tool and outcome (success, failure, unavailable, needs_input, cancelled, rate_limited).",
		}, []string{"tool", "outcome"}),
		durations: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "mcp_tool_call_duration_seconds", Help: "Seconds from a tools/call to its result.",
			Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10),
		}, []string{"tool"}),
		listChanged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcp_tools_list_changed_total", Help: "notifications/tools/list_changed sent to the MCP sessions.",
		}),
		limited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "mcp_rate_limited_total", Help: "MCP requests refused by mcp.limits, by limit: per_client and per_tool (a tools/call), http (a request answered 429).",
		}, []string{"limit"}),
		relayed: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mcp_answers_relayed_total", Help: "Clients' answers to requests of another instance of the cluster (an elicitation's), relayed to it.",
		}),
	}
	if r == nil {
		return m, nil
	}
	for _, c := range []prometheus.Collector{m.sessions, m.calls, m.durations, m.listChanged, m.limited, m.relayed} {
		if err := r.Register(c); err != nil {
			return nil, errors.Join(errors.New("mcp: register metrics"), err)
		}
	}
	return m, nil
}

// called counts one tools/call and observes how long it took.
func (m *metrics) called(tool, outcome string, d time.Duration) {
	ts := m.series(tool)
	ts.counter(m.calls, tool, outcome).Inc()
	ts.duration.Observe(d.Seconds())
}

// series returns tool's series, made on its first call.
func (m *metrics) series(tool string) *toolSeries {
	if v, ok := m.tools.Load(tool); ok {
		return v.(*toolSeries)
	}
	v, _ := m.tools.LoadOrStore(tool, &toolSeries{duration: m.durations.WithLabelValues(tool)})
	return v.(*toolSeries)
}

// counter returns the counter of tool's calls that ended with outcome.
func (ts *toolSeries) counter(calls *prometheus.CounterVec, tool, outcome string) prometheus.Counter {
	i := 0
	for i < len(outcomes) && outcomes[i] != outcome {
		i++
	}
	if i == len(outcomes) {
		return calls.WithLabelValues(tool, outcome)
	}
	if c := ts.calls[i].Load(); c != nil {
		return *c
	}
	c := calls.WithLabelValues(tool, outcome)
	ts.calls[i].Store(&c)
	return c
}
