package ws

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/refagent"
)

// heartbeatBridge returns a bridge of the built-in dialects pinging its
// connections every heartbeat (-1: never), logging nothing.
func heartbeatBridge(t *testing.T, heartbeat time.Duration) *bridge.Bridge {
	t.Helper()
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Heartbeat: heartbeat, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// eventually waits until cond holds, failing the test with what after a
// minute: generous, as the machine may be loaded; nothing here is timed.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("a minute went by before %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// lastID returns the id the parker gave the connection it took last.
func lastID(t *testing.T) uint64 {
	t.Helper()
	p := parkerOf()
	if p == nil {
		t.Skip("connections do not park on this system")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.next
}

// newConn returns the connection the parker takes next after the id
// after: the one the Handler accepts next (it lets the connection park
// once the bridge has attached it, so a little after its agent is READY).
func newConn(t *testing.T, after uint64) *promptConn {
	t.Helper()
	var c *promptConn
	eventually(t, "the parker took the connection", func() bool {
		p := parkerOf()
		p.mu.Lock()
		defer p.mu.Unlock()
		c = p.conns[after+1]
		return c != nil
	})
	return c
}

// isParked reports whether c is parked now.
func isParked(c *promptConn) bool {
	p := parkerOf()
	p.mu.Lock()
	defer p.mu.Unlock()
	return c.park.parked
}

// holdsLibrary reports whether c holds a library connection now: one
// that is parked has let it go (library.go).
func holdsLibrary(c *promptConn) bool {
	c.lib.mu.Lock()
	defer c.lib.mu.Unlock()
	return c.lib.c != nil
}

// sweepUntilParked sweeps as the parker does until every one of conns is
// parked: a connection waiting for its next message parks at its second
// sweep.
func sweepUntilParked(t *testing.T, conns ...*promptConn) {
	t.Helper()
	eventually(t, "the connections parked", func() bool {
		parkerOf().sweep()
		for _, c := range conns {
			if !isParked(c) {
				return false
			}
		}
		return true
	})
}

// status returns the agent id's status in b.
func status(b *bridge.Bridge, id string) bridge.Status {
	info, _ := b.Agent(id)
	return info.Status
}

// connectAgent connects a reference agent of dialect to url and returns
// it, with the bridge's end of its connection, once b lists it READY.
func connectAgent(t *testing.T, ctx context.Context, b *bridge.Bridge, url, id, dialect string) (*refagent.Agent, *promptConn) {
	t.Helper()
	a, err := refagent.New(refagent.Options{ID: id, Dialect: dialect})
	if err != nil {
		t.Fatal(err)
	}
	after := lastID(t)
	go func() { _ = a.Connect(ctx, url, "") }()
	eventually(t, id+" was READY", func() bool { return status(b, id) == bridge.StatusReady })
	select {
	case <-a.Ready():
	case <-ctx.Done():
		t.Fatal(ctx.Err())
	}
	return a, newConn(t, after)
}

// TestParkedAgentsTalk: two agents whose connections are parked talk
// through the bridge, over and over: the request wakes the caller's
// connection, is delivered to the parked callee, whose answer wakes its
// own; each time both park again, letting go of their library
// connections, and the reading goroutines they had go. Under the race
// detector this is many park and wake cycles.
func TestParkedAgentsTalk(t *testing.T) {
	b := heartbeatBridge(t, -1)
	url := "ws://" + serveBridge(t, b)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	caller, cc := connectAgent(t, ctx, b, url, "PARK-CALLER", "swarm")
	_, ec := connectAgent(t, ctx, b, url, "PARK-CALLEE", "elizaacl")
	for k := range 60 {
		sweepUntilParked(t, cc, ec)
		// Let go as the reader parked, or by a sweep after (the answer's
		// write may have held it then).
		eventually(t, fmt.Sprintf("round %d: the parked connections let their library connections go", k), func() bool {
			parkerOf().sweep()
			return !holdsLibrary(cc) && !holdsLibrary(ec)
		})
		cctx, done := context.WithTimeout(ctx, time.Minute)
		reply, err := caller.Call(cctx, "PARK-CALLEE", caller.Operation("echo"), canonical.JSON(fmt.Sprintf(`{"k":%d}`, k)))
		done()
		if err != nil {
			t.Fatalf("call %d to a parked agent: %v", k, err)
		}
		if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), fmt.Sprintf(`"k":%d}`, k)) {
			t.Fatalf("call %d to a parked agent: %+v", k, reply)
		}
	}
	sweepUntilParked(t, cc, ec)
	if s := status(b, "PARK-CALLEE"); s != bridge.StatusReady {
		t.Errorf("the callee is %s after its calls, want READY", s)
	}
}

// rawAgent is an agent's WebSocket connection to the bridge, made with
// coder/websocket, with the TCP connection under it.
type rawAgent struct {
	ws  *websocket.Conn
	tcp net.Conn
}

// dialRaw connects as the swarm agent id (declared in b) and returns the
// connection once b lists the agent READY, with the bridge's end of it.
func dialRaw(t *testing.T, ctx context.Context, b *bridge.Bridge, addr, id string, opts *websocket.DialOptions) (rawAgent, *promptConn) {
	t.Helper()
	var ra rawAgent
	dialer := &net.Dialer{}
	if opts == nil {
		opts = &websocket.DialOptions{}
	}
	opts.HTTPClient = &http.Client{Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := dialer.DialContext(ctx, network, addr)
			ra.tcp = c
			return c, err
		},
	}}
	after := lastID(t)
	c, _, err := websocket.Dial(ctx, "ws://"+addr+"/ws/swarm?agent="+id, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	ra.ws = c
	eventually(t, id+" was READY", func() bool { return status(b, id) == bridge.StatusReady })
	return ra, newConn(t, after)
}

// readAll reads c until it fails, answering pings as the library does
// while it reads.
func readAll(ctx context.Context, c *websocket.Conn) {
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

// TestParkedConnectionEnds: a parked connection ends as a read one does.
// A close frame from the agent ends its session normally (STOPPED), the
// bridge answering the close; a TCP connection that drops without one is
// found lost (UNAVAILABLE). Either way its reader goes.
func TestParkedConnectionEnds(t *testing.T) {
	for _, tc := range []struct {
		name string
		end  func(ra rawAgent) error
		want bridge.Status
	}{
		{"close frame", func(ra rawAgent) error { return ra.ws.Close(websocket.StatusNormalClosure, "bye") }, bridge.StatusStopped},
		{"dropped", func(ra rawAgent) error { return ra.tcp.Close() }, bridge.StatusUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := heartbeatBridge(t, -1)
			id := "PARK-END-" + strings.ReplaceAll(tc.name, " ", "-")
			b.Declare(bridge.AgentSpec{ID: id, Dialect: "swarm"})
			addr := serveBridge(t, b)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			ra, pc := dialRaw(t, ctx, b, addr, id, nil)
			sweepUntilParked(t, pc)
			if err := tc.end(ra); err != nil {
				t.Fatalf("ending the connection: %v", err)
			}
			eventually(t, fmt.Sprintf("%s was %s", id, tc.want), func() bool { return status(b, id) == tc.want })
			// The parker let the connection go.
			eventually(t, "the parker forgot the connection", func() bool {
				p := parkerOf()
				p.mu.Lock()
				defer p.mu.Unlock()
				return p.conns[pc.park.id] == nil && !pc.park.parked
			})
		})
	}
}

// TestParkedHeartbeat: the heartbeat pings parked connections; an agent
// that answers stays READY and its connection parks again after each
// round; one that reads but stops answering pings is found UNAVAILABLE,
// parked or not, as a connection with a reader is. And a parked agent the
// bridge removes gets its close frame.
func TestParkedHeartbeat(t *testing.T) {
	b := heartbeatBridge(t, 1500*time.Millisecond)
	b.Declare(bridge.AgentSpec{ID: "PARK-BEAT", Dialect: "swarm"})
	b.Declare(bridge.AgentSpec{ID: "PARK-MUTE", Dialect: "swarm"})
	addr := serveBridge(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	// Answers: pings that came while its connection was parked.
	var pc *promptConn
	var pingsParked, pings atomic.Int32
	ready := make(chan struct{})
	ra, pc0 := dialRaw(t, ctx, b, addr, "PARK-BEAT", &websocket.DialOptions{
		OnPingReceived: func(context.Context, []byte) bool {
			<-ready
			pings.Add(1)
			if isParked(pc) {
				pingsParked.Add(1)
			}
			return true
		},
	})
	pc = pc0
	close(ready)
	go readAll(ctx, ra.ws)
	// Mute: reads, answers no ping.
	mute, mc := dialRaw(t, ctx, b, addr, "PARK-MUTE", &websocket.DialOptions{
		OnPingReceived: func(context.Context, []byte) bool { return false },
	})
	go readAll(ctx, mute.ws)
	sweepUntilParked(t, mc)
	// Removed while parked: the bridge's close frame, the agent's answer
	// read by the library's Close, and the reader resumed to end. (Its
	// detach, on this goroutine, also orders the two sessions' making
	// before the heartbeat's reading of them, which bridge.Attach does
	// not: the race detector reports their first ping otherwise.)
	b.Declare(bridge.AgentSpec{ID: "PARK-GONE", Dialect: "swarm"})
	gone, gc := dialRaw(t, ctx, b, addr, "PARK-GONE", nil)
	closed := make(chan error, 1)
	go func() { _, _, err := gone.ws.Read(ctx); closed <- err }()
	sweepUntilParked(t, gc)
	b.Remove("PARK-GONE", "removed from the config")
	if err := <-closed; websocket.CloseStatus(err) != websocket.StatusGoingAway {
		t.Errorf("an agent removed while parked read %v, want its close frame (1001)", err)
	}
	eventually(t, "the parker forgot the removed connection", func() bool {
		p := parkerOf()
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.conns[gc.park.id] == nil && !gc.park.parked
	})

	eventually(t, "three pings came to the parked connection", func() bool { return pingsParked.Load() >= 3 })
	eventually(t, "the connection parked again after its pong", func() bool { return isParked(pc) })
	eventually(t, "PARK-MUTE was UNAVAILABLE", func() bool { return status(b, "PARK-MUTE") == bridge.StatusUnavailable })
	if s := status(b, "PARK-BEAT"); s != bridge.StatusReady {
		t.Errorf("an agent answering pings while parked is %s, want READY", s)
	}
	t.Logf("%d pings, %d of them to the parked connection", pings.Load(), pingsParked.Load())
}
