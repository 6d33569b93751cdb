package ws

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/tidwall/gjson"
)

// TestRefusedConnections: a connection the bridge will not attach is
// accepted and closed with a status that says why: 1008 (policy
// violation) for an agent without its token, 1001 (going away) while the
// bridge shuts down, so that the agent may come back to its successor.
func TestRefusedConnections(t *testing.T) {
	b := newBridge(t)
	b.Declare(bridge.AgentSpec{ID: "jules", Dialect: "swarm", Token: "s3cret"})
	addr := serveBridge(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	closeOf := func(path string) (websocket.StatusCode, string) {
		t.Helper()
		c, _, err := websocket.Dial(ctx, "ws://"+addr+path, nil)
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

// TestRefusedBeforeHandshake: a connection refused before the WebSocket
// handshake gets its status and a JSON body saying why, as the HTTP API
// answers: 404 for a dialect the bridge does not speak, 400 for ?agent=
// with no dialect.
func TestRefusedBeforeHandshake(t *testing.T) {
	b := newBridge(t)
	addr := serveBridge(t, b)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, tc := range []struct {
		path, code, message string
		status              int
	}{
		{"/ws/klingon?agent=worf", "not-found", `ws: unknown dialect "klingon"`, http.StatusNotFound},
		{"/ws?agent=worf", "invalid-message", "ws: ?agent= needs the dialect in the path", http.StatusBadRequest},
	} {
		c, resp, err := websocket.Dial(ctx, "ws://"+addr+tc.path, nil)
		if err == nil {
			c.CloseNow()
			t.Fatalf("%s: connected", tc.path)
		}
		if resp == nil {
			t.Fatalf("%s: no response: %v", tc.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" ||
			gjson.GetBytes(body, "error.code").String() != tc.code || !strings.Contains(gjson.GetBytes(body, "error.message").String(), tc.message) {
			t.Errorf("%s: %d %s %s, want %d with error %s: %s", tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, tc.status, tc.code, tc.message)
		}
	}
}

// newBridge returns a bridge of the built-in dialects on the default
// mappings, logging nothing.
func newBridge(t *testing.T) *bridge.Bridge {
	t.Helper()
	m := dialects.DefaultMappings()
	reg, err := builtin.Registry(m)
	if err != nil {
		t.Fatal(err)
	}
	b, err := bridge.New(bridge.Options{Registry: reg, Mappings: m, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// serveBridge serves b's WebSocket handler on a loopback port until the
// test ends, and returns its address.
func serveBridge(t *testing.T, b *bridge.Bridge) string {
	mux := http.NewServeMux()
	(&Handler{Bridge: b, Logger: slog.New(slog.DiscardHandler)}).Register(mux)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// TestAttachedBeforeHandshake: an agent that names itself is attached
// before the handshake's answer leaves, so that once its Dial returns,
// any other agent can address it; over plain TCP (a promptConn) and over
// TLS (heldConn). The bridge answered the handshake first once, and a
// peer that sent to an agent right after it connected could find it
// unknown. The agents then talk, their first message and the bridge's
// answer behind the handshake.
func TestAttachedBeforeHandshake(t *testing.T) {
	b := newBridge(t)
	mux := http.NewServeMux()
	(&Handler{Bridge: b, Logger: slog.New(slog.DiscardHandler)}).Register(mux)
	plain := httptest.NewServer(mux)
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(mux)
	t.Cleanup(secure.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, url string
		opts      *websocket.DialOptions
	}{
		{"plain", "ws" + strings.TrimPrefix(plain.URL, "http"), nil},
		{"tls", "wss" + strings.TrimPrefix(secure.URL, "https"), &websocket.DialOptions{HTTPClient: secure.Client()}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := range 300 {
				id := tc.name + "-" + strconv.Itoa(i)
				c, _, err := websocket.Dial(ctx, tc.url+"/ws/swarm?agent="+id, tc.opts)
				if err != nil {
					t.Fatal(err)
				}
				if a, ok := b.Agent(id); !ok || !a.Connected {
					t.Fatalf("%s: the handshake was answered before the agent was attached (known %v)", id, ok)
				}
				if i%100 == 0 {
					// A request to an agent nobody knows: the bridge's
					// refusal comes back over the same connection.
					msg := `{"message_id":"m-1","message_type":"request","sender_id":"` + id + `","receiver_id":"nobody",` +
						`"timestamp":"2026-11-25T10:00:00Z","payload":{"tool_name":"add","arguments":{}}}`
					if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
						t.Fatal(err)
					}
					_, got, err := c.Read(ctx)
					if err != nil || !strings.Contains(string(got), "nobody") {
						t.Fatalf("%s: the answer to a request: %s, %v", id, got, err)
					}
				}
				c.CloseNow()
			}
		})
	}
}
