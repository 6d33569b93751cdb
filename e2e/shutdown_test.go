package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/tidwall/gjson"
)

// TestGracefulShutdown: agents are told in their dialect, a request that
// can finish in time is answered, one that cannot is failed with a clear
// error, new requests are refused, and the connections are closed.
func TestGracefulShutdown(t *testing.T) {
	cfg := config.Default()
	cfg.ShutdownTimeout = 1500 * time.Millisecond
	h := start(t, cfg)
	h.runAgent("fuse", responder("fuse"))
	h.runAgent("fuse", "slow-fuse")
	watcher := h.dial("swarm", "WATCHER")
	c := h.dial("elizaacl", requester("elizaacl"))
	c.send(c.encode(request("elizaacl", "slow-fuse", "sleep", `{"ms":60000}`, "too-long")))
	c.send(c.encode(request("elizaacl", responder("fuse"), "sleep", `{"ms":300}`, "in-time")))
	// Both are in flight once the bridge has accepted them for their fuse
	// agents.
	for range 2 {
		if env := c.decode(c.recv()); env.Act != canonical.ActAccept {
			t.Fatalf("got %s before the accepts", env.Act)
		}
	}
	stopped := make(chan struct{})
	go func() { h.stop(); close(stopped) }()

	notice := watcher.recv()
	if gjson.GetBytes(notice, "message_type").String() != "notification" || gjson.GetBytes(notice, "payload.event_type").String() != "SystemShutdown" {
		t.Errorf("the swarm agent was told %s", notice)
	}
	c.send(c.encode(request("elizaacl", responder("fuse"), "echo", `{}`, "too-late")))
	// Everything the requester gets until the bridge closes the connection.
	answers := map[string]*canonical.Envelope{}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	var end error
	for {
		_, frame, err := c.c.Read(ctx)
		if err != nil {
			end = err
			break
		}
		if env := c.decode(frame); env.Act != canonical.ActAccept {
			answers[env.InReplyTo] = env
		}
	}
	if websocket.CloseStatus(end) != websocket.StatusGoingAway {
		t.Errorf("the connection ended with %v, want going away", end)
	}
	if a := answers["in-time"]; a == nil || a.Act != canonical.ActResult {
		t.Errorf("in-time: %+v", a)
	}
	for _, id := range []string{"too-long", "too-late"} {
		if a := answers[id]; a == nil || a.Error == nil || a.Error.Code != canonical.ErrUnavailable || !strings.Contains(a.Error.Message, "shutting down") {
			t.Errorf("%s: %+v", id, a)
		}
	}
	select {
	case <-stopped:
	case <-time.After(wait):
		t.Fatal("the server did not stop")
	}
}
