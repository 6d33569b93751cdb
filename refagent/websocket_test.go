package refagent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// bridgeSide is what a loopback WebSocket server saw of one agent's
// connection.
type bridgeSide struct {
	path, agent, auth string
	opening           [][]byte // the frames before the server's request
	reply             []byte   // the answer to the server's request
	accept            []byte   // an accept before it (elizaacl's TASK_ACCEPT)
	err               error
}

// fakeBridge serves one WebSocket connection: it records the handshake and
// the first `opening` frames, sends request, records the reply, then, when
// hangUp is set, closes the connection with StatusGoingAway, else reads
// until the agent closes it (and reports the close status on closed).
func fakeBridge(t *testing.T, opening int, request []byte, hangUp bool, seen chan<- bridgeSide, closed chan<- websocket.StatusCode) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		side := bridgeSide{path: r.URL.Path, agent: r.URL.Query().Get("agent"), auth: r.Header.Get("Authorization")}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			side.err = err
			seen <- side
			return
		}
		defer c.CloseNow()
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		for range opening {
			_, f, err := c.Read(ctx)
			if err != nil {
				side.err = err
				seen <- side
				return
			}
			side.opening = append(side.opening, f)
		}
		if side.err = c.Write(ctx, websocket.MessageText, request); side.err == nil {
			_, side.reply, side.err = c.Read(ctx)
		}
		if side.err == nil && gjson.GetBytes(side.reply, "performative").String() == "TASK_ACCEPT" {
			// elizaacl accepts a task before it reports on it
			side.accept = side.reply
			_, side.reply, side.err = c.Read(ctx)
		}
		seen <- side
		if hangUp {
			c.Close(websocket.StatusGoingAway, "bridge stopping")
			return
		}
		for {
			if _, _, err := c.Read(ctx); err != nil {
				closed <- websocket.CloseStatus(err)
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestConnect connects an agent of each dialect to a loopback WebSocket
// server: the dial URL and token, the opening frames, a request answered,
// and a clean close when the context ends.
func TestConnect(t *testing.T) {
	cases := []struct {
		dialect   string
		id, token string
		opening   []canonical.Act // the acts the agent opens with, subscriptions included
	}{
		{"elizaacl", "Jules", "s3cret", []canonical.Act{canonical.ActInformCapabilities, canonical.ActRequest}},
		{"collab", "jules/1", "", []canonical.Act{canonical.ActInformCapabilities, canonical.ActRequest}},
		{"bluelabel", "JULES", "s3cret", []canonical.Act{canonical.ActRequest}},
		{"fuse", "jules", "s3cret", []canonical.Act{canonical.ActInformCapabilities, canonical.ActRequest}},
		{"swarm", "jules", "s3cret", []canonical.Act{canonical.ActQueryCapabilities, canonical.ActRequest}},
	}
	for _, tc := range cases {
		t.Run(tc.dialect, func(t *testing.T) {
			request := encode(t, tc.dialect, &canonical.Envelope{Act: canonical.ActRequest, ID: "req-1", TaskID: "TASK-1",
				Sender: canonical.Party{ID: "BRIDGE"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: tc.id},
				Operation: op("add"), Arguments: `{"a":2,"b":3}`})
			seen := make(chan bridgeSide, 1)
			closed := make(chan websocket.StatusCode, 1)
			srv := fakeBridge(t, len(tc.opening), request, false, seen, closed)
			a, err := New(Options{Dialect: tc.dialect, ID: tc.id, Subscribe: []string{"news"}})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- a.Connect(ctx, "ws://"+srv.Listener.Addr().String()+"/", tc.token) }()

			var side bridgeSide
			select {
			case side = <-seen:
			case <-time.After(testTimeout):
				t.Fatal("the server saw no exchange")
			}
			if side.err != nil {
				t.Fatal(side.err)
			}
			if side.path != "/ws/"+tc.dialect || side.agent != tc.id {
				t.Errorf("dialed %s?agent=%s, want /ws/%s?agent=%s", side.path, side.agent, tc.dialect, tc.id)
			}
			if wantAuth := "Bearer " + tc.token; (tc.token == "" && side.auth != "") || (tc.token != "" && side.auth != wantAuth) {
				t.Errorf("Authorization %q, want %q", side.auth, wantAuth)
			}
			checkValid(t, tc.dialect, "the agent", append(side.opening, side.reply))
			for i, f := range side.opening {
				if env := decode(t, tc.dialect, f); env.Act != tc.opening[i] {
					t.Errorf("opening frame %d is %s, want %s: %s", i, env.Act, tc.opening[i], f)
				}
			}
			if a := side.accept; (a != nil) != (tc.dialect == "elizaacl") || (a != nil && decode(t, tc.dialect, a).InReplyTo != "req-1") {
				t.Errorf("accept before the answer: %s (only elizaacl accepts, quoting the request)", a)
			}
			r := decode(t, tc.dialect, side.reply)
			if r.Act != canonical.ActResult || body(t, tc.dialect, r).(map[string]any)["sum"] != 5.0 {
				t.Errorf("reply %s", side.reply)
			}
			if r.InReplyTo != "req-1" && r.TaskID != "TASK-1" {
				t.Errorf("the reply quotes neither the request's id nor its task: %s", side.reply)
			}

			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Connect after its context ended: %v", err)
				}
			case <-time.After(testTimeout):
				t.Fatal("Connect did not return after its context ended")
			}
			select {
			case code := <-closed:
				if code != websocket.StatusNormalClosure {
					t.Errorf("closed with status %v, want a normal closure", code)
				}
			case <-time.After(testTimeout):
				t.Fatal("the server never saw the connection close")
			}
		})
	}
}

// TestConnectEnds checks that Connect reports a connection the bridge
// closes and a handshake the bridge refuses, and fails the calls waiting.
func TestConnectEnds(t *testing.T) {
	t.Run("the bridge hangs up", func(t *testing.T) {
		request := encode(t, "swarm", &canonical.Envelope{Act: canonical.ActRequest, ID: "req-1", Sender: canonical.Party{ID: "BRIDGE"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "jules"}, Operation: op("echo"), Arguments: `{}`})
		seen := make(chan bridgeSide, 1)
		srv := fakeBridge(t, 1, request, true, seen, nil)
		a, err := New(Options{Dialect: "swarm", ID: "jules"})
		if err != nil {
			t.Fatal(err)
		}
		err = a.Connect(context.Background(), "ws://"+srv.Listener.Addr().String(), "")
		if side := <-seen; side.err != nil {
			t.Fatal(side.err)
		}
		if websocket.CloseStatus(err) != websocket.StatusGoingAway || !strings.Contains(err.Error(), "agent jules: connection to ws://") {
			t.Errorf("Connect: %v, want the bridge's going-away close", err)
		}
	})
	t.Run("the bridge refuses", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "bad token", http.StatusUnauthorized)
		}))
		defer srv.Close()
		a, err := New(Options{Dialect: "fuse"})
		if err != nil {
			t.Fatal(err)
		}
		err = a.Connect(context.Background(), "ws://"+srv.Listener.Addr().String(), "wrong")
		if err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("Connect: %v, want the 401 reported", err)
		}
	})
	t.Run("a call waiting when the transport ends", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, err := websocket.Accept(w, r, nil)
			if err != nil {
				return
			}
			defer c.CloseNow()
			ctx := r.Context()
			c.Read(ctx) // the introduction
			c.Read(ctx) // the call, never answered
			c.Close(websocket.StatusGoingAway, "bye")
		}))
		defer srv.Close()
		a, err := New(Options{Dialect: "fuse", ID: "eddy"})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- a.Connect(context.Background(), "ws://"+srv.Listener.Addr().String(), "") }()
		select {
		case <-a.Ready():
		case err := <-done:
			t.Fatalf("Connect: %v", err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
		defer cancel()
		_, err = a.Call(ctx, "jules", op("echo"), `{}`)
		if !errors.Is(err, errClosed) {
			t.Errorf("Call: %v, want %v", err, errClosed)
		}
		if err := <-done; err == nil {
			t.Error("Connect returned nil when the bridge hung up")
		}
	})
}
