package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/peer"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestForward: a request on one instance for an agent another holds is
// delivered there, in the agent's dialect, and its answer comes back to
// the caller; the agent's failures come back as its failures; a request
// for an agent its instance no longer holds is answered unavailable.
func TestForward(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	for _, d := range []string{"swarm", "fuse", "collab"} {
		b.attach(d, d+"-calc", "add", "fail")
	}
	for _, tc := range []struct {
		agent, tool, args string
		result            string // the result holds it
		code              canonical.ErrorCode
	}{
		{"swarm-calc", "add", `{"a":2,"b":40}`, "42", ""},
		{"fuse-calc", "add", `{"a":1,"b":2}`, "3", ""},
		{"collab-calc", "add", `{"a":-1,"b":1}`, "0", ""},
		{"swarm-calc", "fail", `{}`, "", canonical.ErrExecutionFailed},
	} {
		t.Run(tc.agent+"/"+tc.tool, func(t *testing.T) {
			a.await(tc.agent, connectedOn("b"), "held by b")
			ctx, cancel := context.WithTimeout(context.Background(), wait)
			defer cancel()
			ans, err := a.call(ctx, tc.agent, tc.tool, tc.args)
			if got := codeOf(ans, err); got != tc.code {
				t.Fatalf("error code %q, want %q (%+v)", got, tc.code, ans)
			}
			if tc.code == "" && (ans.Act != canonical.ActResult || !strings.Contains(string(ans.Result), tc.result)) {
				t.Errorf("answer %s %s, want a result with %s", ans.Act, ans.Result, tc.result)
			}
		})
	}
	if got := testutilCount(a, kindDeliver, true); got < 4 {
		t.Errorf("a sent %v deliveries, want at least 4", got)
	}
	if got := testutilCount(a, kindAnswer, false); got < 4 {
		t.Errorf("a received %v answers, want at least 4", got)
	}
}

// TestForwardNotHeld: a request forwarded to an instance that does not
// hold its agent (the directories disagree for a moment) is answered
// unavailable by that instance, and the answer reaches the caller.
func TestForwardNotHeld(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat, noRetries)
	join(t, n.URL(), "b", beat)
	eventually(t, "a hears b", func() bool { return slices.Contains(a.c.Instances(), "b") })
	a.c.peer.RemoteUp(peer.RemoteAgent{Instance: "b", ID: "ghost", Dialect: "swarm", Transport: "websocket",
		Status: bridge.StatusReady, Since: time.Now(), Tools: []canonical.Tool{{Name: "add"}}})
	a.await("ghost", connectedOn("b"), "held by b, as a believes")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ans, err := a.call(ctx, "ghost", "add", `{"a":1,"b":1}`)
	if got := codeOf(ans, err); got != canonical.ErrUnavailable {
		t.Fatalf("error code %q, want unavailable (%v %+v)", got, err, ans)
	}
	if msg := messageOf(ans, err); !strings.Contains(msg, "not connected to instance b") {
		t.Errorf("the error says %q, want that b does not hold ghost", msg)
	}
}

// connectedOn is the condition of an agent connected through instance.
func connectedOn(instance string) func(bridge.AgentInfo) bool {
	return func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == instance }
}

// testutilCount is the number of messages of kind the instance sent (or
// received).
func testutilCount(in *instance, kind string, sent bool) float64 {
	if sent {
		return testutil.ToFloat64(in.c.m.sent.WithLabelValues(kind))
	}
	return testutil.ToFloat64(in.c.m.received.WithLabelValues(kind))
}
