package ws

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestRefusedConnections: a connection the bridge will not attach is
// accepted and closed with a status that says why: 1008 (policy
// violation) for an agent without its token, 1001 (going away) while the
// bridge shuts down, so that the agent may come back to its successor.
func TestRefusedConnections(t *testing.T) {
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	b.Declare(bridge.AgentSpec{ID: "jules", Dialect: "swarm", Token: "s3cret"})
	mux := http.NewServeMux()
	(&Handler{Bridge: b, Logger: slog.New(slog.DiscardHandler)}).Register(mux)
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closeOf := func(path string) (websocket.StatusCode, string) {
		t.Helper()
		c, _, err := websocket.Dial(ctx, "ws://"+srv.Listener.Addr().String()+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer c.CloseNow()
		_, _, err = c.Read(ctx)
		return websocket.CloseStatus(err), err.Error()
	}
	if code, msg := closeOf("/ws/swarm?agent=jules&token=wrong"); code != websocket.StatusPolicyViolation || !strings.Contains(msg, "agent jules needs its token") {
		t.Errorf("a wrong token: closed with %v (%s), want 1008", code, msg)
	}
	if err := b.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if code, msg := closeOf("/ws/swarm?agent=eddy"); code != websocket.StatusGoingAway || !strings.Contains(msg, "shutting down") {
		t.Errorf("while shutting down: closed with %v (%s), want 1001", code, msg)
	}
}
