package e2e

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
	"github.com/tidwall/gjson"
)

// TestDialOut: the bridge dials an agent that listens for WebSocket
// connections, routes to it, and redials after the agent drops the
// connection.
func TestDialOut(t *testing.T) {
	var accepted atomic.Int32
	var current atomic.Pointer[websocket.Conn]
	agentSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer dial-token" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		accepted.Add(1)
		current.Store(c)
		responderLoop(c)
	}))
	defer agentSrv.Close()
	cfg := config.Default()
	cfg.Agents = []config.Agent{{ID: "swarm-agent", Dialect: "swarm", Token: "dial-token", Reach: "url",
		Settings: ws.Remote{URL: "ws" + agentSrv.URL[len("http"):]}, BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond}}
	h := start(t, cfg)
	h.agentUp("swarm-agent", 0)
	c := h.dial("collab", requester("collab"))
	ask := func(id string) {
		t.Helper()
		c.send(c.encode(request("collab", "swarm-agent", "build_report", `{}`, id)))
		frame := c.recv()
		if env := c.decode(frame); env.Act != canonical.ActResult || gjson.GetBytes(frame, "header.correlationId").String() != id {
			t.Fatalf("got %s: %s", env.Act, frame)
		}
	}
	ask("dial-1")
	// The agent hangs up; the bridge dials again.
	current.Load().Close(websocket.StatusGoingAway, "restarting")
	deadline := time.Now().Add(wait)
	for accepted.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if accepted.Load() < 2 {
		t.Fatal("the bridge did not redial")
	}
	h.agentUp("swarm-agent", 0)
	ask("dial-2")
}
