package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// TestDirectorySync: an agent attached on one instance is listed on the
// other with the instance that holds it, its dialect and its tools as
// declared; when it disconnects the other lists it as its holder does, not
// connected; an instance that joins later learns the agents already there.
func TestDirectorySync(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	calc := a.attach("swarm", "calc", "add", "echo")
	fuse := b.attach("fuse", "fuse-agent", "add")

	// A replica is bound, then given its tools: wait for both.
	onB := b.await("calc", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "a" && len(i.Tools) > 0 }, "held by a, with tools")
	if onB.Dialect != "swarm" || onB.Status != bridge.StatusReady {
		t.Errorf("b lists calc as %s, %s; want swarm, READY", onB.Dialect, onB.Status)
	}
	if got := toolNames(onB); !slices.Equal(got, []string{"add", "echo"}) {
		t.Errorf("b lists calc's tools as %q, want add and echo", got)
	}
	onA := a.await("fuse-agent", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "b" && len(i.Tools) > 0 }, "held by b, with tools")
	if len(onA.Tools) != 1 || onA.Tools[0].Version != "1.0" {
		t.Errorf("a lists fuse-agent's tools as %+v, want one at version 1.0 (fuse declares versions)", onA.Tools)
	}
	// Each instance still holds its own agent.
	if local := a.c.peer.LocalAgents(); len(local) != 1 || local[0].ID != "calc" {
		t.Errorf("a holds %+v, want calc only", local)
	}

	// An instance that joins now is sent the snapshots of those there.
	c := join(t, n.URL(), "c", beat)
	c.await("calc", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "a" }, "held by a")
	c.await("fuse-agent", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "b" }, "held by b")

	// Status changes: the agent leaves its instance; every other
	// instance lists it as its holder does.
	calc.stop()
	// (Its connection is let go of before its status is set: wait for
	// both.)
	held := a.await("calc", func(i bridge.AgentInfo) bool { return !i.Connected && i.Status != bridge.StatusReady }, "disconnected")
	for _, other := range []*instance{b, c} {
		other.await("calc", func(i bridge.AgentInfo) bool { return !i.Connected && i.Status == held.Status }, "disconnected, "+string(held.Status)+" as its holder says")
	}
	if tools := b.b.Tools(); slices.ContainsFunc(tools, func(tl bridge.Tool) bool { return tl.Agent == "calc" }) {
		t.Errorf("b still offers calc's tools: %+v", tools)
	}

	// It connects to another instance: there it is held, and listed so
	// everywhere.
	b.attach("swarm", "calc", "add")
	for _, other := range []*instance{a, c} {
		other.await("calc", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "b" }, "held by b")
	}
	_ = fuse
}

// TestDirectoryRemoval: an agent removed from its instance's directory is
// no longer reachable on the others.
func TestDirectoryRemoval(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	a.attach("swarm", "calc", "add")
	b.await("calc", func(i bridge.AgentInfo) bool { return i.Connected && i.Instance == "a" }, "held by a")
	a.b.Remove("calc", "removed by the test")
	b.await("calc", func(i bridge.AgentInfo) bool { return !i.Connected }, "no longer connected")
	// The snapshots that follow do not bring it back.
	seen := receivedSnapshots(t, b)
	eventually(t, "two heartbeats of a's are heard after the removal", func() bool {
		return receivedSnapshots(t, b) >= seen+2
	})
	if i, _ := b.b.Agent("calc"); i.Connected {
		t.Errorf("b lists calc connected again after a's snapshots: %+v", i)
	}
}

func toolNames(i bridge.AgentInfo) []string {
	var out []string
	for _, tl := range i.Tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// TestDirectoryNewerWins: an agent that connects to another instance
// while its old connection is still open is held by the newer connection
// everywhere; requests reach it there; the old connection closing later
// changes nothing.
func TestDirectoryNewerWins(t *testing.T) {
	n := startNATS(t)
	a := join(t, n.URL(), "a", beat)
	b := join(t, n.URL(), "b", beat)
	old := a.attach("swarm", "calc", "add")
	b.await("calc", connectedOn("a"), "held by a")
	b.attach("swarm", "calc", "add")
	a.await("calc", connectedOn("b"), "held by b, the newer connection")
	if local := a.c.peer.LocalAgents(); len(local) != 0 {
		t.Errorf("a still holds %+v", local)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	ans, err := a.call(ctx, "calc", "add", `{"a":20,"b":22}`)
	if err != nil || !strings.Contains(string(ans.Result), "42") {
		t.Fatalf("a's request: %v %s", err, ans.Result)
	}
	// The answer came from the connection on b: the old one received
	// nothing but what it got when it connected.
	for len(old.received) > 0 {
		if f := <-old.received; strings.Contains(string(f), `"a":20`) {
			t.Errorf("the old connection received the request: %s", f)
		}
	}
	old.stop()
	// Both hold to b's, connected, through a's snapshots that follow.
	seen := receivedSnapshots(t, b)
	eventually(t, "two snapshots of a's after the old connection closed", func() bool { return receivedSnapshots(t, b) >= seen+2 })
	for _, in := range []*instance{a, b} {
		if got, _ := in.b.Agent("calc"); !got.Connected || got.Instance != "b" || got.Status != bridge.StatusReady {
			t.Errorf("%s lists calc as %+v after the old connection closed", in.name, got)
		}
	}
}
