package e2e

import (
	"context"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// statusOf returns the status /v1/agents gives id.
func (h *harness) statusOf(id string) bridge.Status {
	for _, a := range h.srv.Bridge().Agents("") {
		if a.ID == id {
			return a.Status
		}
	}
	return ""
}

// awaitStatus waits until id has status.
func (h *harness) awaitStatus(id string, status bridge.Status) {
	h.t.Helper()
	deadline := time.Now().Add(wait)
	for h.statusOf(id) != status {
		if time.Now().After(deadline) {
			h.t.Fatalf("%s is %s, never %s", id, h.statusOf(id), status)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// awaitEvent reads the collab watcher's messages until the status event
// saying agent is status.
func awaitEvent(c *client, agent string, status bridge.Status) {
	c.t.Helper()
	for {
		frame := c.recv()
		if gjson.GetBytes(frame, "body.event").String() == bridge.StatusEvent &&
			gjson.GetBytes(frame, "body.data.agent_id").String() == agent &&
			gjson.GetBytes(frame, "body.data.status").String() == string(status) {
			return
		}
	}
}

// answerAs is a swarm answer to req from the agent id.
func answerAs(t *testing.T, req []byte, id string) []byte {
	t.Helper()
	out, err := sjson.SetBytes(swarmResponse(req), "sender_id", id)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestHealth: an agent that lets 3 requests in a row time out is
// UNAVAILABLE, and READY again when it answers; subscribers of
// agent-status hear of each change, in their dialect.
func TestHealth(t *testing.T) {
	cfg := config.Default()
	cfg.RequestTimeout = 50 * time.Millisecond
	h := start(t, cfg)
	watcher := h.dial("collab", requester("collab"))
	watcher.subscribe("collab", bridge.StatusTopic)
	mute := h.dial("swarm", "mute")
	c := h.dial("fuse", requester("fuse"))
	var last []byte
	for i := range 3 {
		c.send(c.encode(request("fuse", "mute", "work", `{}`, "t-"+string(rune('0'+i)))))
		last = mute.recv()
		if reply := c.decode(c.recv()); reply.Error == nil || reply.Error.Code != canonical.ErrTimeout {
			t.Fatalf("request %d: %+v", i, reply.Error)
		}
	}
	h.awaitStatus("mute", bridge.StatusUnavailable)
	awaitEvent(watcher, "mute", bridge.StatusUnavailable)
	// A late answer is news: it is alive.
	mute.send(answerAs(t, last, "mute"))
	h.awaitStatus("mute", bridge.StatusReady)
	awaitEvent(watcher, "mute", bridge.StatusReady)
}

// TestHeartbeats: a WebSocket agent that stops answering pings is
// UNAVAILABLE after 3, READY when it answers again.
func TestHeartbeats(t *testing.T) {
	cfg := config.Default()
	cfg.Heartbeat = 30 * time.Millisecond
	h := start(t, cfg)
	// coder/websocket answers pings only while the connection is read: a
	// client that does not read misses them.
	deaf := h.dial("swarm", "deaf")
	h.awaitStatus("deaf", bridge.StatusUnavailable)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() { _, _, _ = deaf.c.Read(ctx) }() // reading again answers the pings
	h.awaitStatus("deaf", bridge.StatusReady)
}

// TestAgentKilled: an agent whose connection drops mid-stream is
// UNAVAILABLE, its requesters get errors, and it is READY when it comes
// back.
func TestAgentKilled(t *testing.T) {
	h := start(t, nil)
	victim := h.dial("swarm", "victim")
	c := h.dial("collab", requester("collab"))
	c.send(c.encode(request("collab", "victim", "work", `{}`, "mid-stream")))
	victim.recv()
	victim.c.CloseNow() // no close handshake: the connection is lost
	if reply := c.decode(c.recv()); reply.Error == nil || reply.InReplyTo != "mid-stream" {
		t.Fatalf("the requester got %+v", reply)
	}
	h.awaitStatus("victim", bridge.StatusUnavailable)
	again := h.dial("swarm", "victim")
	h.awaitStatus("victim", bridge.StatusReady)
	c.send(c.encode(request("collab", "victim", "work", `{}`, "after")))
	req := again.recv()
	again.send(answerAs(t, req, "victim"))
	if reply := c.decode(c.recv()); reply.Act != canonical.ActResult {
		t.Errorf("after it came back: %s %+v", reply.Act, reply.Error)
	}
}
