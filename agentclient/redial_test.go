package agentclient

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
)

// TestBackoffBounds checks the defaults of Backoff.
func TestBackoffBounds(t *testing.T) {
	cases := []struct {
		b      Backoff
		lo, hi time.Duration
	}{
		{Backoff{}, 100 * time.Millisecond, 10 * time.Second},
		{Backoff{Min: time.Second}, time.Second, 10 * time.Second},
		{Backoff{Min: 20 * time.Second}, 20 * time.Second, 20 * time.Second},
		{Backoff{Min: 10 * time.Millisecond, Max: 50 * time.Millisecond}, 10 * time.Millisecond, 50 * time.Millisecond},
		{Backoff{Min: -1, Max: 50 * time.Millisecond}, 100 * time.Millisecond, 10 * time.Second},
	}
	for _, tc := range cases {
		if lo, hi := tc.b.bounds(); lo != tc.lo || hi != tc.hi {
			t.Errorf("%+v: bounds %s %s, want %s %s", tc.b, lo, hi, tc.lo, tc.hi)
		}
	}
	for _, d := range []time.Duration{1, 2, time.Millisecond, time.Second} {
		for range 100 {
			if w := jittered(d); w < d/2 || w > d {
				t.Fatalf("jittered(%s) = %s, not between %s and %s", d, w, d/2, d)
			}
		}
	}
}

// TestWentAway checks which close statuses mean the bridge went away.
func TestWentAway(t *testing.T) {
	cases := []struct {
		err  error
		want bool
	}{
		{websocket.CloseError{Code: websocket.StatusGoingAway}, true},
		{fmt.Errorf("wrapped: %w", websocket.CloseError{Code: websocket.StatusServiceRestart}), true},
		{websocket.CloseError{Code: websocket.StatusTryAgainLater}, true},
		{websocket.CloseError{Code: websocket.StatusNormalClosure}, false},
		{websocket.CloseError{Code: websocket.StatusPolicyViolation}, false},
		{fmt.Errorf("the connection dropped"), false},
		{nil, false},
	}
	for _, tc := range cases {
		if got := WentAway(tc.err); got != tc.want {
			t.Errorf("WentAway(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// bridgeScript is how a loopback bridge treats the connections made to it,
// numbered from 1.
type bridgeScript struct {
	// refuse are the handshakes answered 503, counting every attempt.
	refuse map[int]bool
	// close are the connections closed with a status once the agent has
	// introduced itself; the others are served until the agent closes.
	close map[int]websocket.StatusCode
}

// scriptedBridge serves s on loopback and sends each introduction it
// reads on intros.
func scriptedBridge(t *testing.T, s bridgeScript, intros chan<- string) *httptest.Server {
	t.Helper()
	var attempts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(attempts.Add(1))
		if s.refuse[n] {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		c, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer c.CloseNow()
		_, intro, err := c.Read(context.Background())
		if err != nil {
			return
		}
		intros <- string(intro)
		if code, ok := s.close[n]; ok {
			c.Close(code, "scripted")
			return
		}
		for {
			if _, _, err := c.Read(context.Background()); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// introducing serves a connection as an agent does: it introduces itself
// ("hello N" on its Nth connection), then reads until the connection
// ends, or until ctx does (it then closes the connection, returning nil).
func introducing(calls *atomic.Int32) func(context.Context, *Conn) error {
	return func(ctx context.Context, c *Conn) error {
		defer c.CloseNow()
		n := calls.Add(1)
		if err := c.Write(ctx, fmt.Appendf(nil, "hello %d", n)); err != nil {
			return err
		}
		stop := context.AfterFunc(ctx, func() { c.Close("stopping") })
		defer stop()
		for {
			if _, err := c.Read(context.Background()); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("connection %d: %w", n, err)
			}
		}
	}
}

// TestRedialer runs a Redialer against a scripted loopback bridge: it
// introduces the agent on every connection, reconnects after the bridge
// goes away (retrying handshakes that fail meanwhile), returns the error
// of a connection that ends otherwise and of a first dial that fails, and
// returns nil once its context ends.
func TestRedialer(t *testing.T) {
	cases := []struct {
		name   string
		script bridgeScript
		intros []string // the introductions the bridge reads
		status websocket.StatusCode
		fails  string // what Run's error holds; "" for nil once ctx ends
		logs   []string
	}{
		{
			name: "back after going away",
			script: bridgeScript{refuse: map[int]bool{2: true, 3: true},
				close: map[int]websocket.StatusCode{1: websocket.StatusGoingAway, 4: websocket.StatusServiceRestart}},
			intros: []string{"hello 1", "hello 2", "hello 3"},
			logs:   []string{"agent: the bridge went away; reconnecting", "agent: cannot reconnect yet", "attempt=2", "agent: reconnected"},
		},
		{
			name:   "refused",
			script: bridgeScript{close: map[int]websocket.StatusCode{1: websocket.StatusGoingAway, 2: websocket.StatusPolicyViolation}},
			intros: []string{"hello 1", "hello 2"},
			status: websocket.StatusPolicyViolation,
			fails:  "connection 2: ",
		},
		{
			name:   "not there at first",
			script: bridgeScript{refuse: map[int]bool{1: true}},
			fails:  "HTTP 503 Service Unavailable",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			intros := make(chan string, 10)
			srv := scriptedBridge(t, tc.script, intros)
			var calls atomic.Int32
			var logs syncbuf.Buffer
			r := &Redialer{
				Dial:    func(ctx context.Context) (*Conn, error) { return Dial(ctx, wsURL(srv, "/ws/swarm"), Options{}) },
				Serve:   introducing(&calls),
				Backoff: Backoff{Min: 5 * time.Millisecond, Max: 20 * time.Millisecond},
				Logger:  slog.New(slog.NewTextHandler(&logs, nil)),
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan error, 1)
			go func() { done <- r.Run(ctx) }()
			for _, want := range tc.intros {
				select {
				case got := <-intros:
					if got != want {
						t.Errorf("introduction %q, want %q", got, want)
					}
				case <-time.After(testTimeout):
					t.Fatalf("no introduction %q", want)
				}
			}
			if tc.fails == "" {
				cancel()
			}
			select {
			case err := <-done:
				switch {
				case tc.fails == "" && err != nil:
					t.Errorf("Run after its context ended: %v", err)
				case tc.fails != "" && (err == nil || !strings.Contains(err.Error(), tc.fails)):
					t.Errorf("Run: %v, want an error holding %q", err, tc.fails)
				case tc.status != 0 && websocket.CloseStatus(err) != tc.status:
					t.Errorf("Run: %v, want close status %d", err, tc.status)
				}
			case <-time.After(testTimeout):
				t.Fatal("Run did not return")
			}
			if n := int(calls.Load()); n != len(tc.intros) {
				t.Errorf("Serve called %d times, want %d", n, len(tc.intros))
			}
			for _, want := range tc.logs {
				if !strings.Contains(logs.String(), want) {
					t.Errorf("the log lacks %q:\n%s", want, logs.String())
				}
			}
		})
	}
}

// TestRedialerStops checks that Run returns nil when its context ends
// while it waits to redial a bridge that is gone.
func TestRedialerStops(t *testing.T) {
	intros := make(chan string, 1)
	refuse := map[int]bool{}
	for n := 2; n < 1000; n++ {
		refuse[n] = true
	}
	srv := scriptedBridge(t, bridgeScript{refuse: refuse, close: map[int]websocket.StatusCode{1: websocket.StatusGoingAway}}, intros)
	var calls atomic.Int32
	r := &Redialer{
		Dial:    func(ctx context.Context) (*Conn, error) { return Dial(ctx, wsURL(srv, "/"), Options{}) },
		Serve:   introducing(&calls),
		Backoff: Backoff{Min: time.Millisecond, Max: 5 * time.Millisecond},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if err := r.Run(ctx); err != nil {
		t.Errorf("Run: %v, want nil once its context ended", err)
	}
	if <-intros != "hello 1" || calls.Load() != 1 {
		t.Errorf("served %d connections, want 1", calls.Load())
	}
}
