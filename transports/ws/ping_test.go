package ws

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// pingPair is a promptLink accepted on loopback whose peer reports the
// payload of every ping it answers on pings, and reads while read is
// open.
type pingPair struct {
	l     promptLink
	peer  *websocket.Conn
	pings chan string
}

func newPingPair(t *testing.T) *pingPair {
	t.Helper()
	links := make(chan promptLink, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, l, in, ok := acceptPrompt(t, w, r, nil)
		if !ok {
			return
		}
		go func() {
			_, _ = carryFrames(c, in)
		}()
		links <- l
	}))
	t.Cleanup(srv.Close)
	pings := make(chan string, 16)
	peer, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{
		OnPingReceived: func(_ context.Context, p []byte) bool {
			pings <- string(p)
			return true
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.CloseNow() })
	go func() {
		for {
			if _, _, err := peer.Read(context.Background()); err != nil {
				return
			}
		}
	}()
	return &pingPair{l: <-links, peer: peer, pings: pings}
}

// carryFrames reads c through in until it ends, as the Handler's reader
// does, for a connection attached to no bridge: it only reads (the
// library answers control frames as it reads).
func carryFrames(c *websocket.Conn, in source) (int, error) {
	n := 0
	for {
		_, r, err := c.Reader(context.Background())
		if err != nil {
			in.release()
			return n, err
		}
		buf := takeMsgBuf()
		_, err = buf.ReadFrom(r)
		giveMsgBuf(buf)
		if err != nil {
			return n, err
		}
		n++
	}
}

// TestPingOfItsOwn: an idle accepted connection writes its heartbeat's
// ping itself (its payload, not the library's counter) and hears the
// pong through its frame follower, keeping no waiter afterwards; a ping
// whose connection closes while it waits ends with the connection, not
// with its context.
func TestPingOfItsOwn(t *testing.T) {
	p := newPingPair(t)
	for i := range 3 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := p.l.Ping(ctx)
		cancel()
		if err != nil {
			t.Fatalf("ping %d: %v", i, err)
		}
		if got := <-p.pings; got != string(pingFrame[2:]) {
			t.Fatalf("ping %d: the peer got payload %q, want the connection's own %q", i, got, pingFrame[2:])
		}
	}
	// Other tests' connections may have pings in flight: only this one's
	// waiter is looked for.
	pongWaiters.mu.Lock()
	_, left := pongWaiters.m[&p.l.pc.in]
	pongWaiters.mu.Unlock()
	if left {
		t.Fatal("the connection's pong waiter is left after its pings were answered")
	}

	// A peer that never answers: the ping waits until the connection is
	// closed under it.
	q := newPingPair(t)
	q.peer.CloseNow()
	// The peer's end is gone; whatever the bridge's socket says, the
	// ping must end, and with the closing once the connection closes.
	done := make(chan error, 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	go func() { done <- q.l.Ping(ctx) }()
	time.Sleep(10 * time.Millisecond)
	q.l.pc.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a ping to a closed peer was answered")
		}
		if ctx.Err() != nil {
			t.Fatalf("the ping ended with its context, not the connection: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the ping went on after its connection closed")
	}
}
