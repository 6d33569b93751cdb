package resilience

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestRetryPolicy(t *testing.T) {
	p := DefaultRetryPolicy
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 9: 10 * time.Second} {
		if got := p.Delay(n); got != want {
			t.Errorf("delay(%d) = %v, want %v", n, got, want)
		}
	}
	yes, no := true, false
	for _, tc := range []struct {
		e    *canonical.Error
		want bool
	}{
		{nil, false},
		{&canonical.Error{Code: canonical.ErrTimeout}, true},
		{&canonical.Error{Code: canonical.ErrUnavailable}, true},
		{&canonical.Error{Code: canonical.ErrNotFound}, false},
		{&canonical.Error{Code: canonical.ErrNotFound, Retryable: &yes}, true},
		{&canonical.Error{Code: canonical.ErrTimeout, Retryable: &no}, false},
	} {
		if got := p.Retryable(tc.e); got != tc.want {
			t.Errorf("retryable(%+v) = %v", tc.e, got)
		}
	}
}

func TestBreaker(t *testing.T) {
	p := BreakerPolicy{FailureThreshold: 2, ResetTimeout: time.Minute, HalfOpenRequests: 2}
	var br Breaker
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	step := func(what string, ok bool, at time.Time, wantState Circuit) {
		t.Helper()
		if s, _ := br.Record(p, ok, at); s != wantState {
			t.Fatalf("%s: state %d, want %d", what, s, wantState)
		}
	}
	allow := func(what string, at time.Time, want bool) {
		t.Helper()
		if ok, _, _ := br.Allow(p, at); ok != want {
			t.Fatalf("%s: allow %v, want %v", what, ok, want)
		}
	}
	step("a failure", false, t0, Closed)
	step("a success resets the count", true, t0, Closed)
	step("a failure", false, t0, Closed)
	step("a second in a row opens", false, t0, Open)
	allow("open", t0.Add(59*time.Second), false)
	allow("after the reset timeout: probe 1", t0.Add(time.Minute), true)
	allow("probe 2", t0.Add(time.Minute), true)
	allow("no third probe", t0.Add(time.Minute), false)
	step("a probe succeeds", true, t0.Add(time.Minute), HalfOpen)
	step("the second closes it", true, t0.Add(time.Minute), Closed)
	step("a failure", false, t0.Add(2*time.Minute), Closed)
	step("opens again", false, t0.Add(2*time.Minute), Open)
	allow("half-open", t0.Add(3*time.Minute), true)
	step("a failed probe opens it", false, t0.Add(3*time.Minute), Open)
	allow("open again", t0.Add(3*time.Minute+time.Second), false)
}
