package metrics

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// vectors are the per-agent series as the client library keeps them: what
// the bridge registered before it kept them itself, and what its
// exposition must equal.
type vectors struct {
	reg      *prometheus.Registry
	messages *prometheus.CounterVec
	duration *prometheus.HistogramVec
	queue    *prometheus.GaugeVec
	status   *prometheus.GaugeVec
}

func newVectors(t testing.TB) *vectors {
	v := &vectors{reg: prometheus.NewRegistry(),
		messages: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "agent_messages_total",
			Help: "Messages delivered by the bridge, by sending agent, receiving agent and canonical act."}, []string{"source", "dest", "type"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "agent_request_duration",
			Help: "Seconds from a request's arrival to its answer's delivery.", Buckets: prometheus.ExponentialBuckets(0.0001, 4, 10)}, []string{"source", "dest"}),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "agent_queue_size",
			Help: "Messages waiting in an agent's outbound queue."}, []string{"agent_id"}),
		status: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "bridge_agent_status",
			Help: "An agent's current lifecycle state: one series per agent, with the value 1."}, []string{"agent_id", "status"}),
	}
	for _, c := range []prometheus.Collector{v.messages, v.duration, v.queue, v.status} {
		if err := v.reg.Register(c); err != nil {
			t.Fatal(err)
		}
	}
	return v
}

var perAgent = []string{"agent_messages_total", "agent_request_duration", "agent_queue_size", "bridge_agent_status"}

// gatherPerAgent returns the per-agent families of reg, their created
// timestamps cleared (they say when each side made its series), after
// checking that every counter and histogram has one.
func gatherPerAgent(t *testing.T, reg prometheus.Gatherer) map[string]*dto.MetricFamily {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*dto.MetricFamily{}
	for _, mf := range families {
		if !strings.HasPrefix(mf.GetName(), "agent_") && mf.GetName() != "bridge_agent_status" {
			continue
		}
		for _, m := range mf.GetMetric() {
			switch {
			case m.GetCounter() != nil:
				if m.GetCounter().GetCreatedTimestamp() == nil {
					t.Errorf("%s %v: no created timestamp", mf.GetName(), m.GetLabel())
				}
				m.Counter.CreatedTimestamp = nil
			case m.GetHistogram() != nil:
				if m.GetHistogram().GetCreatedTimestamp() == nil {
					t.Errorf("%s %v: no created timestamp", mf.GetName(), m.GetLabel())
				}
				m.Histogram.CreatedTimestamp = nil
			}
		}
		out[mf.GetName()] = mf
	}
	return out
}

// TestPerAgentSeries: the series kept per agent are exposed as the client
// library's vectors expose the same counts, gauges and observations:
// names, help, types, labels, values, buckets; a forgotten agent's go,
// and a status replaces the one before.
func TestPerAgentSeries(t *testing.T) {
	steps := []struct {
		name string
		do   func(m *Metrics, v *vectors, r *rand.Rand)
	}{
		{"nothing yet", func(*Metrics, *vectors, *rand.Rand) {}},
		{"agents come, are sent messages and answer", func(m *Metrics, v *vectors, r *rand.Rand) {
			for i := range 40 {
				id := fmt.Sprintf("agent-%02d", i)
				m.Status(id, "READY")
				v.status.WithLabelValues(id, "READY").Set(1)
				if i%3 != 0 {
					m.Queue(id).Set(i % 5)
					v.queue.WithLabelValues(id).Set(float64(i % 5))
				}
			}
			acts := []canonical.Act{canonical.ActRequest, canonical.ActResult, canonical.ActEvent}
			for range 2000 {
				src, dst := fmt.Sprintf("agent-%02d", r.IntN(40)), fmt.Sprintf("agent-%02d", r.IntN(7))
				act := acts[r.IntN(len(acts))]
				m.Delivered(src, dst, act)
				v.messages.WithLabelValues(src, dst, string(act)).Inc()
				// From 10 us to 100 s, and on the bounds themselves.
				d := time.Duration(float64(10*time.Microsecond) * float64(uint64(1)<<r.IntN(24)))
				if r.IntN(10) == 0 {
					d = time.Duration(durationBuckets[r.IntN(len(durationBuckets))] * float64(time.Second))
				}
				m.RequestDone(src, dst, d)
				v.duration.WithLabelValues(src, dst).Observe(d.Seconds())
			}
		}},
		{"statuses change, one agent is forgotten", func(m *Metrics, v *vectors, _ *rand.Rand) {
			for _, id := range []string{"agent-03", "agent-04"} {
				m.Status(id, "UNAVAILABLE")
				v.status.DeleteLabelValues(id, "READY")
				v.status.WithLabelValues(id, "UNAVAILABLE").Set(1)
			}
			m.Forget("agent-05")
			v.queue.DeleteLabelValues("agent-05")
			v.status.DeleteLabelValues("agent-05", "READY")
		}},
		{"a queue gauge kept by a forgotten agent's session changes nothing", func(m *Metrics, v *vectors, _ *rand.Rand) {
			g := m.Queue("agent-07")
			v.queue.WithLabelValues("agent-07")
			m.Forget("agent-07")
			v.queue.DeleteLabelValues("agent-07")
			v.status.DeleteLabelValues("agent-07", "READY")
			g.Set(9)
		}},
	}
	reg := prometheus.NewRegistry()
	m, err := New(reg, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	v := newVectors(t)
	r := rand.New(rand.NewPCG(1, 2))
	for _, step := range steps {
		step.do(m, v, r)
		got, want := gatherPerAgent(t, reg), gatherPerAgent(t, v.reg)
		for _, name := range perAgent {
			if !proto.Equal(got[name], want[name]) {
				t.Errorf("%s: %s:\n got %v\nwant %v", step.name, name, got[name], want[name])
			}
		}
	}
	if got := len(gatherPerAgent(t, reg)["bridge_agent_status"].GetMetric()); got != 38 {
		t.Errorf("%d agents with a status, want 38", got)
	}
}

// TestPerAgentSeriesConcurrent: counts and observations made from many
// goroutines at once, while scrapes read them, all arrive, and a scrape
// never shows a histogram whose count disagrees with its buckets.
func TestPerAgentSeriesConcurrent(t *testing.T) {
	reg := prometheus.NewRegistry()
	m, err := New(reg, func() float64 { return 0 })
	if err != nil {
		t.Fatal(err)
	}
	const workers, each = 8, 400
	var wg sync.WaitGroup
	stop := make(chan struct{})
	scraped := make(chan error, 1)
	go func() {
		defer close(scraped)
		for {
			select {
			case <-stop:
				return
			default:
			}
			families, err := reg.Gather()
			if err != nil {
				scraped <- err
				return
			}
			for _, mf := range families {
				for _, s := range mf.GetMetric() {
					if h := s.GetHistogram(); h != nil {
						if b := h.GetBucket(); len(b) > 0 && b[len(b)-1].GetCumulativeCount() > h.GetSampleCount() {
							scraped <- fmt.Errorf("%v: %d in the buckets, count %d", s.GetLabel(), b[len(b)-1].GetCumulativeCount(), h.GetSampleCount())
							return
						}
					}
				}
			}
		}
	}()
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				id := fmt.Sprintf("a-%d", (w+i)%5)
				m.Delivered(id, "b", canonical.ActRequest)
				m.RequestDone(id, "b", time.Duration(i)*time.Millisecond)
				m.Status(id, []string{"READY", "BUSY"}[i%2])
				m.Queue(id).Set(i)
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-scraped; err != nil {
		t.Error(err)
	}
	families := gatherPerAgent(t, reg)
	var delivered float64
	var observed uint64
	for _, s := range families["agent_messages_total"].GetMetric() {
		delivered += s.GetCounter().GetValue()
	}
	for _, s := range families["agent_request_duration"].GetMetric() {
		observed += s.GetHistogram().GetSampleCount()
	}
	if delivered != workers*each || observed != workers*each {
		t.Errorf("delivered %v, observed %d; want %d each", delivered, observed, workers*each)
	}
	if n := len(families["bridge_agent_status"].GetMetric()); n != 5 {
		t.Errorf("%d status series, want one for each of 5 agents", n)
	}
}

// BenchmarkScrape gathers the per-agent series of 10,000 agents, each with
// a status, a queue and the count of one message delivered to it: as the
// bridge keeps them, and as the client library's vectors kept them.
func BenchmarkScrape(b *testing.B) {
	const agents = 10000
	ids := make([]string, agents)
	for i := range ids {
		ids[i] = fmt.Sprintf("IDLE-%05d", i)
	}
	b.Run("kept", func(b *testing.B) {
		reg := prometheus.NewRegistry()
		m, err := New(reg, func() float64 { return 0 })
		if err != nil {
			b.Fatal(err)
		}
		for _, id := range ids {
			m.Status(id, "READY")
			m.Queue(id).Set(0)
			m.Delivered("mcp-bridge", id, canonical.ActResult)
		}
		benchGather(b, reg, 3*agents)
	})
	b.Run("vectors", func(b *testing.B) {
		v := newVectors(b)
		for _, id := range ids {
			v.status.WithLabelValues(id, "READY").Set(1)
			v.queue.WithLabelValues(id).Set(0)
			v.messages.WithLabelValues("mcp-bridge", id, string(canonical.ActResult)).Inc()
		}
		benchGather(b, v.reg, 3*agents)
	})
}

func benchGather(b *testing.B, reg prometheus.Gatherer, series int) {
	for b.Loop() {
		families, err := reg.Gather()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, mf := range families {
			if strings.HasPrefix(mf.GetName(), "agent_") || mf.GetName() == "bridge_agent_status" {
				n += len(mf.GetMetric())
			}
		}
		if n != series {
			b.Fatalf("%d series, want %d", n, series)
		}
	}
}
