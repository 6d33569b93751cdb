package mcpface

import (
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestMetrics: the face's metrics are registered where Options.Metrics
// says, once; the sessions open are counted.
func TestMetrics(t *testing.T) {
	l := serve(t, Options{})
	for _, want := range []string{"mcp_sessions_open", "mcp_tools_list_changed_total"} {
		if n, err := testutil.GatherAndCount(l.metrics, want); err != nil || n != 1 {
			t.Errorf("%s: %d series, %v", want, n, err)
		}
	}
	l.connect("", "2025-11-25")
	eventually(t, "the session counted", func() bool { return testutil.ToFloat64(l.f.metrics.sessions) == 1 })
	if _, err := New(l.b, Options{Metrics: l.metrics, Logger: quiet}); err == nil || !strings.Contains(err.Error(), "register metrics") {
		t.Errorf("a second face on the same registry: %v", err)
	}
	if m, err := newMetrics(nil); err != nil || m.calls == nil {
		t.Errorf("no registry: %v, %v", m, err)
	}
}
