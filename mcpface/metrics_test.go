package mcpface

import (
	"strings"
	"testing"
	"time"

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

// TestCalledSeries: each tools/call is counted in the series of its tool
// and outcome, whichever outcome and in whatever order, and observed in its
// tool's histogram; the series a tool keeps are the vectors' own.
func TestCalledSeries(t *testing.T) {
	m, err := newMetrics(nil)
	if err != nil {
		t.Fatal(err)
	}
	calls := []struct{ tool, outcome string }{
		{"a__x", outcomeSuccess}, {"a__x", outcomeSuccess}, {"a__x", outcomeFailure},
		{"b__y", outcomeLimited}, {"a__x", outcomeCancelled}, {"b__y", outcomeLimited},
		{"b__y", "some_other_outcome"}, {"a__x", outcomeBridge}, {"b__y", outcomeInputs},
	}
	for _, c := range calls {
		m.called(c.tool, c.outcome, time.Millisecond)
	}
	if n := testutil.CollectAndCount(m.calls); n != 7 {
		t.Errorf("call series: %d, want 7 (only the outcomes that happened)", n)
	}
	for _, tc := range []struct {
		tool, outcome string
		want          float64
	}{
		{"a__x", outcomeSuccess, 2}, {"a__x", outcomeFailure, 1}, {"a__x", outcomeCancelled, 1},
		{"a__x", outcomeBridge, 1}, {"a__x", outcomeLimited, 0}, {"b__y", outcomeLimited, 2},
		{"b__y", "some_other_outcome", 1}, {"b__y", outcomeInputs, 1}, {"b__y", outcomeSuccess, 0},
	} {
		if got := testutil.ToFloat64(m.calls.WithLabelValues(tc.tool, tc.outcome)); got != tc.want {
			t.Errorf("%s %s: counted %v, want %v", tc.tool, tc.outcome, got, tc.want)
		}
	}
	if n := testutil.CollectAndCount(m.durations); n != 2 {
		t.Errorf("duration series: %d, want one a tool (2)", n)
	}
}
