package cluster

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// receivedSnapshots counts the snapshots the instance received.
func receivedSnapshots(t *testing.T, in *instance) float64 {
	t.Helper()
	return testutil.ToFloat64(in.c.m.received.WithLabelValues(kindSnapshot))
}

// TestMetrics: the cluster's metrics are registered where Options.Metrics
// says, and count what happens: connected, the other instances, the
// messages sent and received by kind.
func TestMetrics(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	eventually(t, "a counts b", func() bool { return testutil.ToFloat64(a.c.m.instances) == 1 })
	eventually(t, "b has received snapshots and a has sent some", func() bool {
		return receivedSnapshots(t, b) > 0 && testutil.ToFloat64(a.c.m.sent.WithLabelValues(kindSnapshot)) > 0
	})
	if got := testutil.ToFloat64(a.c.m.connected); got != 1 {
		t.Errorf("bridge_cluster_connected is %v, want 1", got)
	}
	families, err := a.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, f := range families {
		names[f.GetName()] = true
	}
	for _, want := range []string{"bridge_cluster_connected", "bridge_cluster_instances",
		"bridge_cluster_messages_sent_total", "bridge_cluster_messages_received_total"} {
		if !names[want] {
			t.Errorf("%s is not registered (%v)", want, names)
		}
	}
	// A registry that has them already refuses a second instance's.
	if _, err := New(a.b, Options{URL: n.URL(), Name: "again", Logger: quiet, Metrics: a.metrics}); err == nil ||
		!strings.Contains(err.Error(), "register metrics") {
		t.Errorf("a second registration: %v", err)
	}
	// No registerer: none registered, and the instance still counts.
	if m, err := newMetrics(nil); err != nil || m.sent == nil {
		t.Errorf("newMetrics(nil): %v, %v", m, err)
	}
	reg := prometheus.NewRegistry()
	if _, err := newMetrics(reg); err != nil {
		t.Fatal(err)
	}
	if n, err := testutil.GatherAndCount(reg); err != nil || n != 2 {
		// The two gauges; counter vectors have no series until counted.
		t.Errorf("a fresh registry gathers %d series (%v), want the 2 gauges", n, err)
	}
}
