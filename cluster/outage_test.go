package cluster

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestNATSOutage: while NATS is down each instance serves its own agents,
// lists the others' UNAVAILABLE and says it is not connected; when NATS is
// back they rejoin, and each lists the other's agents again.
func TestNATSOutage(t *testing.T) {
	n := startNATS(t)
	addr := strings.TrimPrefix(n.URL(), "nats://")
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	a.attach("swarm", "calc-a", "add")
	b.attach("fuse", "calc-b", "add")
	a.await("calc-b", connectedOn("b"), "held by b")
	b.await("calc-a", connectedOn("a"), "held by a")

	n.Shutdown()
	for _, tc := range []struct {
		in          *instance
		own, other  string
		otherHolder string
	}{{a, "calc-a", "calc-b", "b"}, {b, "calc-b", "calc-a", "a"}} {
		eventually(t, tc.in.name+" knows NATS is gone", func() bool { return !tc.in.c.Connected() })
		tc.in.await(tc.other, unavailable, "disconnected and UNAVAILABLE while NATS is down")
		if v := testutil.ToFloat64(tc.in.c.m.connected); v != 0 {
			t.Errorf("%s: bridge_cluster_connected %v while NATS is down", tc.in.name, v)
		}
		if len(tc.in.c.Instances()) != 0 {
			t.Errorf("%s lists instances while NATS is down: %v", tc.in.name, tc.in.c.Instances())
		}
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		ans, err := tc.in.call(ctx, tc.own, "add", `{"a":20,"b":22}`)
		cancel()
		if err != nil || ans.Act != canonical.ActResult || !strings.Contains(string(ans.Result), "42") {
			t.Errorf("%s's own agent while NATS is down: %v %s %s", tc.in.name, err, ans.Act, ans.Result)
		}
	}

	// NATS comes back where it was.
	var again *Embedded
	eventually(t, "NATS restarts on "+addr, func() bool {
		if ln, err := net.Listen("tcp", addr); err == nil {
			ln.Close()
		} else {
			return false
		}
		e, err := StartEmbedded(addr)
		if err != nil {
			return false
		}
		again = e
		return true
	})
	t.Cleanup(again.Shutdown)
	for _, tc := range []struct {
		in            *instance
		other, holder string
	}{{a, "calc-b", "b"}, {b, "calc-a", "a"}} {
		eventually(t, tc.in.name+" reconnects", func() bool { return tc.in.c.Connected() })
		tc.in.await(tc.other, connectedOn(tc.holder), "held by "+tc.holder+" again")
		eventually(t, tc.in.name+" says it is connected", func() bool { return testutil.ToFloat64(tc.in.c.m.connected) == 1 })
		ctx, cancel := context.WithTimeout(context.Background(), wait)
		ans, err := tc.in.call(ctx, tc.other, "add", `{"a":1,"b":1}`)
		cancel()
		if err != nil || ans.Act != canonical.ActResult || !strings.Contains(string(ans.Result), "2") {
			t.Errorf("%s to %s after NATS is back: %v %s %s", tc.in.name, tc.other, err, ans.Act, ans.Result)
		}
	}
}

// TestNATSOutageInFlight: a request in flight to another instance's agent
// when NATS goes away is answered unavailable, saying why.
func TestNATSOutageInFlight(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat, noRetries)
	b := join(t, n.URL(), "b", beat)
	slow := b.attach("swarm", "slow", "sleep")
	a.await("slow", connectedOn("b"), "held by b")
	p := a.b.Go(context.Background(), a.request("slow", "sleep", `{"ms":300000}`))
	defer p.Cancel()
	for reached := false; !reached; {
		select {
		case f := <-slow.received:
			reached = strings.Contains(string(f), "300000")
		case <-time.After(wait):
			t.Fatal("the request never reached slow")
		}
	}
	n.Shutdown()
	select {
	case <-p.Done():
	case <-time.After(wait):
		t.Fatal("the request in flight was never answered")
	}
	ans, err := p.Result()
	if got := codeOf(ans, err); got != canonical.ErrUnavailable {
		t.Errorf("code %q, want unavailable (%v %+v)", got, err, ans)
	}
	if msg := messageOf(ans, err); !strings.Contains(msg, "NATS is unreachable") {
		t.Errorf("%q, want the reason: NATS is unreachable", msg)
	}
}
