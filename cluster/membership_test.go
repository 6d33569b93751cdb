package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestInstances: each instance lists the others it hears from, never
// itself, and forgets one that leaves.
func TestInstances(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	c := join(t, n.URL(), "c", beat)
	for _, tc := range []struct {
		in   *instance
		want []string
	}{{a, []string{"b", "c"}}, {b, []string{"a", "c"}}, {c, []string{"a", "b"}}} {
		eventually(t, tc.in.name+" lists "+strings.Join(tc.want, ", "), func() bool {
			got := tc.in.c.Instances()
			slices.Sort(got)
			return slices.Equal(got, tc.want)
		})
		if tc.in.c.Name() != tc.in.name || tc.in.b.Instance() != tc.in.name || !tc.in.c.Connected() {
			t.Errorf("%s: Name %q, its bridge's instance %q, connected %v", tc.in.name, tc.in.c.Name(), tc.in.b.Instance(), tc.in.c.Connected())
		}
	}
	c.c.Close()
	c.c.Close() // a second Close does nothing
	for _, in := range []*instance{a, b} {
		eventually(t, in.name+" forgets c", func() bool { return !slices.Contains(in.c.Instances(), "c") })
	}
}

// TestClose: an instance that leaves says so: its agents are UNAVAILABLE
// on the others at once, not after three of its heartbeats (here an
// hour).
func TestClose(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", time.Hour)
	b.attach("swarm", "calc", "add")
	a.await("calc", connectedOn("b"), "held by b")
	b.c.Close()
	a.await("calc", unavailable, "disconnected and UNAVAILABLE")
	if slices.Contains(a.c.Instances(), "b") {
		t.Errorf("a still lists b: %v", a.c.Instances())
	}
}

// TestInstanceGone: an instance whose heartbeats stop, without a word, is
// gone after three: its agents are UNAVAILABLE on the others and the
// requests in flight to them are answered unavailable.
func TestInstanceGone(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat, noRetries)
	b := join(t, n.URL(), "b", beat)
	slow := b.attach("swarm", "slow", "sleep")
	a.await("slow", connectedOn("b"), "held by b")
	p := a.b.Go(context.Background(), a.request("slow", "sleep", `{"ms":300000}`))
	defer p.Cancel()
	select {
	case <-slow.received:
	case <-time.After(wait):
		t.Fatal("the request never reached slow")
	}
	// b's connection to NATS ends without a bye: to a, b just stops.
	b.c.nc.Close()
	select {
	case <-p.Done():
	case <-time.After(wait):
		t.Fatal("the request in flight to b's agent was never answered")
	}
	ans, err := p.Result()
	if got := codeOf(ans, err); got != canonical.ErrUnavailable {
		t.Errorf("the request in flight: code %q, want unavailable (%v %+v)", got, err, ans)
	}
	if msg := messageOf(ans, err); !strings.Contains(msg, "heartbeats") {
		t.Errorf("the request in flight: %q, want the reason: b's heartbeats stopped", msg)
	}
	a.await("slow", unavailable, "disconnected and UNAVAILABLE")
	if slices.Contains(a.c.Instances(), "b") {
		t.Errorf("a still lists b: %v", a.c.Instances())
	}
}

// unavailable is the condition of an agent disconnected and UNAVAILABLE.
// (Its connection is let go of before its status is set: a condition on
// one alone may see the other not yet changed.)
func unavailable(i bridge.AgentInfo) bool {
	return !i.Connected && i.Status == bridge.StatusUnavailable
}
