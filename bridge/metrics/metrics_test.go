package metrics

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg, func() float64 { return 7 })
	if err != nil {
		t.Fatal(err)
	}
	m.Delivered("a", "b", canonical.ActRequest)
	m.Delivered("a", "b", canonical.ActRequest)
	m.Errored("a", canonical.ErrTimeout)
	m.Received("swarm", canonical.ActEvent)
	m.RequestDone("a", "b", 3*time.Millisecond)
	m.Handled(10 * time.Microsecond)
	m.Queue("b").Set(4)
	m.Expired()
	m.Duplicate()
	m.Retry()
	m.Boost()
	m.Late()
	m.Late()
	m.Circuit("b", 2)
	m.Connections(1)
	m.Status("b", "STOPPED")
	m.Status("b", "READY")
	want := `
# HELP agent_messages_total Messages delivered by the bridge, by sending agent, receiving agent and canonical act.
# TYPE agent_messages_total counter
agent_messages_total{dest="b",source="a",type="request"} 2
# HELP agent_errors_total Error replies made by the bridge, by the agent answered and canonical error code.
# TYPE agent_errors_total counter
agent_errors_total{error_type="timeout",source="a"} 1
# HELP agent_queue_size Messages waiting in an agent's outbound queue.
# TYPE agent_queue_size gauge
agent_queue_size{agent_id="b"} 4
# HELP bridge_late_answers_total Answers that came after their request was closed (timed out, cancelled, answered) and were dropped.
# TYPE bridge_late_answers_total counter
bridge_late_answers_total 2
# HELP bridge_circuit_state An agent's circuit breaker: 0 closed, 1 half-open, 2 open.
# TYPE bridge_circuit_state gauge
bridge_circuit_state{agent_id="b"} 2
# HELP bridge_agent_status An agent's current lifecycle state: one series per agent, with the value 1.
# TYPE bridge_agent_status gauge
bridge_agent_status{agent_id="b",status="READY"} 1
# HELP bridge_pending_requests Requests awaiting their answer.
# TYPE bridge_pending_requests gauge
bridge_pending_requests 7
# HELP bridge_connections Attached connections.
# TYPE bridge_connections gauge
bridge_connections 1
`
	names := []string{"agent_messages_total", "agent_errors_total", "agent_queue_size", "bridge_late_answers_total",
		"bridge_circuit_state", "bridge_agent_status", "bridge_pending_requests", "bridge_connections"}
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), names...); err != nil {
		t.Error(err)
	}
	for name, n := range map[string]int{"agent_request_duration": 1, "bridge_message_handling_seconds": 1,
		"bridge_messages_expired_total": 1, "bridge_duplicates_total": 1, "bridge_retries_total": 1,
		"bridge_priority_boosts_total": 1, "bridge_messages_received_total": 1} {
		if got, err := testutil.GatherAndCount(reg, name); err != nil || got != n {
			t.Errorf("%s: %d series (%v), want %d", name, got, err, n)
		}
	}
	// A forgotten agent's series go.
	m.Forget("b")
	if got, _ := testutil.GatherAndCount(reg, "bridge_agent_status", "agent_queue_size", "bridge_circuit_state"); got != 0 {
		t.Errorf("%d series of a forgotten agent remain", got)
	}
	// A second registration of the same metrics fails, with a clear error.
	if _, err := New(reg, func() float64 { return 0 }); err == nil || !strings.Contains(err.Error(), "register metrics") {
		t.Errorf("registering twice: %v", err)
	}
}

// TestTotals: the totals are the labelled series summed: the counters'
// values and the request histogram's cumulative buckets, as a gather of
// the registry gives them.
func TestTotals(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		src, dst := "a", "b"
		if i%3 == 0 {
			src, dst = "c", "d"
		}
		m.Received([]string{"swarm", "fuse"}[i%2], canonical.ActRequest)
		m.Delivered(src, dst, canonical.ActResult)
		if i%7 == 0 {
			m.Errored(src, canonical.ErrTimeout)
		}
		// 0.1 ms to about 20 s, and exactly on a bound.
		m.RequestDone(src, dst, time.Duration(float64(100*time.Microsecond)*float64(uint64(1)<<(i%18))))
	}
	m.RequestDone("a", "b", 1600*time.Microsecond)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var want Totals
	cumulative := map[float64]uint64{}
	for _, mf := range families {
		for _, s := range mf.GetMetric() {
			switch mf.GetName() {
			case "bridge_messages_received_total":
				want.Received += uint64(s.GetCounter().GetValue())
			case "agent_messages_total":
				want.Delivered += uint64(s.GetCounter().GetValue())
			case "agent_errors_total":
				want.Errors += uint64(s.GetCounter().GetValue())
			case "agent_request_duration":
				want.Requests += s.GetHistogram().GetSampleCount()
				for _, b := range s.GetHistogram().GetBucket() {
					cumulative[b.GetUpperBound()] += b.GetCumulativeCount()
				}
			}
		}
	}
	got := m.Totals()
	if got.Received != want.Received || got.Delivered != want.Delivered || got.Errors != want.Errors || got.Requests != want.Requests {
		t.Errorf("totals %+v, the series sum to %+v", got, want)
	}
	if len(got.Bounds) != len(cumulative) {
		t.Fatalf("%d bounds, the histogram has %d", len(got.Bounds), len(cumulative))
	}
	for i, b := range got.Bounds {
		if got.Answered[i] != cumulative[b] {
			t.Errorf("within %gs: %d, the histogram says %d", b, got.Answered[i], cumulative[b])
		}
	}
}

// TestCountersShared: counts made through the kept counters, from many
// goroutines at once and for labels seen first by any of them, are the
// vectors' counts.
func TestCountersShared(t *testing.T) {
	m, err := New(prometheus.NewRegistry(), func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 500
	dialects := []string{"collab", "swarm", "fuse"}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				d := dialects[(w+i)%len(dialects)]
				m.Received(d, canonical.ActRequest)
				m.Delivered(d, "b", canonical.ActResult)
			}
		})
	}
	wg.Wait()
	var received float64
	for _, d := range dialects {
		received += testutil.ToFloat64(m.received.WithLabelValues(d, string(canonical.ActRequest)))
	}
	var delivered uint64
	for _, n := range m.messages.by {
		delivered += n.n.Load()
	}
	if received != workers*each || delivered != workers*each || len(m.messages.by) != len(dialects) {
		t.Errorf("received %v, delivered %v in %d series; want %d each in %d", received, delivered, len(m.messages.by), workers*each, len(dialects))
	}
}

// BenchmarkCount is the two counts made for every message: through the
// kept counters, and through the vectors as before.
func BenchmarkCount(b *testing.B) {
	m, err := New(prometheus.NewRegistry(), func() float64 { return 0 })
	if err != nil {
		b.Fatal(err)
	}
	b.Run("kept", func(b *testing.B) {
		for b.Loop() {
			m.Received("collab", canonical.ActRequest)
			m.Delivered("collab-requester-1", "swarm-responder-1", canonical.ActRequest)
		}
	})
	vec := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_messages_total"}, []string{"source", "dest", "type"})
	b.Run("vectors", func(b *testing.B) {
		for b.Loop() {
			m.received.WithLabelValues("collab", string(canonical.ActRequest)).Inc()
			vec.WithLabelValues("collab-requester-1", "swarm-responder-1", string(canonical.ActRequest)).Inc()
		}
	})
}
