package ws

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// idleAgents is how many idle agents TestIdleAgents connects.
const idleAgents = 2000

// TestIdleAgents: 2,000 reference agents over the five dialects connect
// and introduce themselves with their tools, as live agents do; the bridge
// lists every one (READY, with its tools where its dialect declares them),
// page by page; agents of every dialect picked over the whole range answer
// a request through the bridge; once all is quiet the package's
// connections hold no read or write buffer, no goroutine reads them
// (they are parked) and they hold no library connection, by its own
// count; and parked agents still answer.
func TestIdleAgents(t *testing.T) {
	libraries := LibraryConns() // other tests' connections still open
	// No heartbeat: its pongs wake parked connections (TestParkedHeartbeat),
	// and a round over 2,000 agents would keep some awake at any moment.
	b := heartbeatBridge(t, -1)
	url := "ws://" + serveBridge(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	dialects := []string{"swarm", "elizaacl", "collab", "fuse", "bluelabel"}
	ids := make([]string, idleAgents)
	for i := range ids {
		d := dialects[i%len(dialects)]
		a, err := refagent.New(refagent.Options{ID: fmt.Sprintf("IDLE-%04d", i), Dialect: d})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = a.ID()
		go func() { _ = a.Connect(ctx, url, "") }()
	}
	caller, err := refagent.New(refagent.Options{ID: "caller", Dialect: "swarm"})
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = caller.Connect(ctx, url, "") }()

	// Listed: every agent READY, with its tools but in bluelabel, which
	// declares none.
	listed := func() (ready, withTools int) {
		after := ""
		for {
			page, more := b.AgentsPage("", after, 500)
			for _, a := range page {
				if a.Status == bridge.StatusReady && a.ID != "caller" {
					ready++
					if len(a.Tools) > 0 {
						withTools++
					}
				}
			}
			if !more {
				return ready, withTools
			}
			after = page[len(page)-1].ID
		}
	}
	wantTools := idleAgents - idleAgents/len(dialects)
	deadline := time.Now().Add(2 * time.Minute)
	ready, withTools := listed()
	for (ready < idleAgents || withTools < wantTools) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
		ready, withTools = listed()
	}
	if ready != idleAgents || withTools != wantTools {
		t.Fatalf("%d agents listed READY, %d with tools; want %d, %d", ready, withTools, idleAgents, wantTools)
	}
	select {
	case <-caller.Ready():
	case <-time.After(time.Minute):
		t.Fatal("the caller did not connect")
	}

	// Reachable: an echo to agents spread over the whole range, every
	// dialect among them.
	for k := range 50 {
		id := ids[(k*(idleAgents/50)+k)%idleAgents]
		cctx, done := context.WithTimeout(ctx, time.Minute)
		reply, err := caller.Call(cctx, id, caller.Operation("echo"), canonical.JSON(fmt.Sprintf(`{"n":%d}`, k)))
		done()
		if err != nil {
			t.Fatalf("echo to %s: %v", id, err)
		}
		// The echo comes back as the dialect holds a result: {"n":k},
		// or under data.
		if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), fmt.Sprintf(`"n":%d}`, k)) {
			t.Fatalf("echo to %s: %+v", id, reply)
		}
	}

	// Idle: no connection holds a buffer once what was sent is written
	// and read.
	for time.Now().Before(deadline) && Buffers() != (BufferCounts{}) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := Buffers(); got != (BufferCounts{}) {
		t.Errorf("%d agents idle: buffers held %+v, want none", idleAgents+1, got)
	}

	// Parked: no goroutine reads an idle connection, once it has been
	// quiet through a sweep, nor does it hold its library connection, by
	// the package's own count.
	connected := int64(idleAgents + 1)
	deadline = time.Now().Add(time.Minute)
	for time.Now().Before(deadline) && (Parked() != connected || Readers() != 0 || LibraryConns() != libraries) {
		time.Sleep(10 * time.Millisecond)
	}
	if parked, reading := Parked(), Readers(); parked != connected || reading != 0 {
		t.Errorf("%d agents idle: %d connections parked, %d reading goroutines; want %d, none", connected, parked, reading, connected)
	}
	if held := LibraryConns() - libraries; held != 0 {
		t.Errorf("%d agents idle: %d library connections held, want none", connected, held)
	}

	// And they answer from there: each echo wakes the caller's
	// connection and its agent's, parked.
	for k := range 20 {
		id := ids[(k*(idleAgents/20)+7)%idleAgents]
		cctx, done := context.WithTimeout(ctx, time.Minute)
		reply, err := caller.Call(cctx, id, caller.Operation("echo"), canonical.JSON(fmt.Sprintf(`{"m":%d}`, k)))
		done()
		if err != nil {
			t.Fatalf("echo to %s, parked: %v", id, err)
		}
		if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), fmt.Sprintf(`"m":%d}`, k)) {
			t.Fatalf("echo to %s, parked: %+v", id, reply)
		}
	}
}
