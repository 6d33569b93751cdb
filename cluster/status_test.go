package cluster

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestStatusChanges: an agent's status changes on its instance while it
// stays connected (UNAVAILABLE after requests timed out in a row, READY
// again once it answers); the other instances list it as its instance
// does.
func TestStatusChanges(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat, noRetries)
	b := join(t, n.URL(), "b", beat)
	a.attach("swarm", "slow", "sleep")
	b.await("slow", connectedOn("a"), "held by a")
	// Three requests that time out, in a row: the agent answers each
	// after its time is up, long after (its first late answer makes it
	// READY again).
	for i := range 3 {
		req := a.request("slow", "sleep", `{"ms":5000}`)
		req.TTL = canonical.Dur(50 * time.Millisecond)
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		ans, err := a.b.Call(ctx, req)
		cancel()
		if got := codeOf(ans, err); got != canonical.ErrTimeout {
			t.Fatalf("request %d: code %q, want timeout (%v %+v)", i+1, got, err, ans)
		}
	}
	onA := a.await("slow", func(i bridge.AgentInfo) bool { return i.Status == bridge.StatusUnavailable }, "UNAVAILABLE")
	if !onA.Connected {
		t.Fatalf("a lists slow disconnected: %+v", onA)
	}
	b.await("slow", func(i bridge.AgentInfo) bool {
		return i.Status == bridge.StatusUnavailable && i.Connected && i.Instance == "a"
	}, "UNAVAILABLE, connected to a")
	// Its late answers come: READY again, everywhere.
	a.await("slow", func(i bridge.AgentInfo) bool { return i.Status == bridge.StatusReady }, "READY again")
	b.await("slow", func(i bridge.AgentInfo) bool { return i.Status == bridge.StatusReady && i.Connected }, "READY again")
}
