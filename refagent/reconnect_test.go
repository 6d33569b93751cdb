package refagent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/server"
	"github.com/mcp-bridge/mcp-bridge/server/servertest"
)

// liveBridge is a real bridge (package server) serving on a loopback port.
type liveBridge struct {
	srv  *server.Server
	addr string
	stop func() // shuts it down gracefully and waits for it
}

// runBridge starts a bridge on addr ("127.0.0.1:0" for any port) with cfg
// (nil: the default config).
func runBridge(t *testing.T, addr string, cfg *config.Config) *liveBridge {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	cfg.Listen = addr
	run := servertest.Start(t, cfg, servertest.Options{})
	return &liveBridge{srv: run.Server, addr: run.Addr, stop: run.Stop}
}

// ready waits until the bridge lists id READY with tools declared tools.
func (b *liveBridge) ready(t *testing.T, id string, tools int) {
	t.Helper()
	deadline := time.Now().Add(testTimeout)
	for time.Now().Before(deadline) {
		for _, a := range b.srv.Bridge().Agents("") {
			if a.ID == id && a.Status == bridge.StatusReady && len(a.Capabilities) == tools {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("agent %s is not READY with %d tools: %+v", id, tools, b.srv.Bridge().Agents(""))
}

// TestKeepConnected: an agent of each dialect connected to a real bridge
// that shuts down (closing with 1001) connects again to the bridge that
// replaces it on the same port, declares its tools there and answers
// through it; it stops, with nil, when its context ends.
func TestKeepConnected(t *testing.T) {
	for _, d := range []string{"elizaacl", "collab", "bluelabel", "fuse", "swarm"} {
		t.Run(d, func(t *testing.T) {
			id, tools := "jules", 2
			if d == "bluelabel" {
				id, tools = "JULES", 0 // bluelabel declares no tools
			}
			first := runBridge(t, "127.0.0.1:0", nil)
			a, err := New(Options{Dialect: d, ID: id, Tools: []string{"echo", "add"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- a.KeepConnected(ctx, "ws://"+first.addr, "", Backoff{Min: 10 * time.Millisecond, Max: 200 * time.Millisecond})
			}()
			first.ready(t, id, tools)
			first.stop()

			second := runBridge(t, first.addr, nil)
			second.ready(t, id, tools)
			caller, err := New(Options{Dialect: "swarm", ID: "caller", Tools: []string{}})
			if err != nil {
				t.Fatal(err)
			}
			callerCtx, stopCaller := context.WithCancel(context.Background())
			defer stopCaller()
			go caller.Connect(callerCtx, "ws://"+second.addr, "")
			select {
			case <-caller.Ready():
			case <-time.After(testTimeout):
				t.Fatal("the caller never connected")
			}
			callCtx, stopCall := context.WithTimeout(context.Background(), testTimeout)
			defer stopCall()
			reply, err := caller.Call(callCtx, id, op("add"), `{"a":2,"b":3}`)
			if err != nil || !strings.Contains(string(reply.Result), `"sum":5`) {
				t.Fatalf("a call through the new bridge: %+v %v", reply, err)
			}

			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("KeepConnected after its context ended: %v", err)
				}
			case <-time.After(testTimeout):
				t.Fatal("KeepConnected did not return after its context ended")
			}
		})
	}
}

// TestKeepConnectedEnds: what is not the bridge going away ends
// KeepConnected with an error, with no retry: a bridge that refuses the
// agent (1008, a wrong token) and a bridge that is not there at first.
func TestKeepConnectedEnds(t *testing.T) {
	cfg := config.Default()
	cfg.Agents = []config.Agent{{ID: "jules", Dialect: "swarm", Token: "s3cret"}}
	b := runBridge(t, "127.0.0.1:0", cfg)
	a, err := New(Options{Dialect: "swarm", ID: "jules"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	err = a.KeepConnected(ctx, "ws://"+b.addr, "wrong", Backoff{})
	if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "needs its token") {
		t.Errorf("with a wrong token: %v, want the bridge's refusal (1008)", err)
	}
	b.stop()
	err = a.KeepConnected(ctx, "ws://"+b.addr, "s3cret", Backoff{})
	if err == nil || !strings.Contains(err.Error(), "connecting to ws://"+b.addr) {
		t.Errorf("with no bridge: %v, want the failed connection", err)
	}
}
