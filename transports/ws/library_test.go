package ws

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// libraryPair is an accepted connection's promptLink and reader's source,
// with the peer's end.
type libraryPair struct {
	l    promptLink
	in   source
	peer *websocket.Conn
}

// newLibraryPair accepts a connection on loopback as the Handler does,
// offering subprotocols (the Handler offers none).
func newLibraryPair(t *testing.T, subprotocols ...string) libraryPair {
	t.Helper()
	type accepted struct {
		l  promptLink
		in source
	}
	links := make(chan accepted, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, l, in, ok := acceptPrompt(t, w, r, &websocket.AcceptOptions{Subprotocols: subprotocols}); ok {
			links <- accepted{l, in}
		}
	}))
	t.Cleanup(srv.Close)
	peer, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(srv.URL, "http"), &websocket.DialOptions{Subprotocols: subprotocols})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { peer.CloseNow() })
	peer.SetReadLimit(-1)
	a := <-links
	return libraryPair{l: a.l, in: a.in, peer: peer}
}

// TestLibraryLetGo: an accepted connection whose reader parks lets its
// library connection go, and makes it again,
// over the same socket, for each use: a message the bridge writes reaches
// the peer whole, the library connection made for it is let go by the
// parker's sweep as the connection stays idle, a message from the peer is
// read whole through the one made for the reader, and a close after it
// was let go again reaches the peer with its reason.
func TestLibraryLetGo(t *testing.T) {
	p := newLibraryPair(t)
	pc := p.l.pc
	if !holdsLibrary(pc) {
		t.Fatal("accepted: holds no library connection")
	}
	p.in.idle() // the reader parks
	if holdsLibrary(pc) {
		t.Fatal("the reader parked, and the library connection stayed")
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, frame := range []string{`{"n":1}`, strings.Repeat("y", 70000)} {
		if err := p.l.Send(ctx, bridge.Outbound{Frame: []byte(frame)}); err != nil {
			t.Fatalf("send %d while let go: %v", i, err)
		}
		_, got, err := p.peer.Read(ctx)
		if err != nil || string(got) != frame {
			t.Fatalf("send %d while let go: the peer read %d bytes (%v), want %d", i, len(got), err, len(frame))
		}
		if !holdsLibrary(pc) {
			t.Fatalf("send %d: the library connection made for it is gone already", i)
		}
		pc.letGo() // as the sweep does for a parked connection
		if holdsLibrary(pc) {
			t.Fatalf("send %d, swept: the library connection stayed", i)
		}
	}

	if err := p.peer.Write(ctx, websocket.MessageText, []byte(`{"from":"peer"}`)); err != nil {
		t.Fatal(err)
	}
	c, err := p.in.conn() // the reader resumes
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := c.Read(ctx)
	if err != nil || string(got) != `{"from":"peer"}` {
		t.Fatalf("read after let go: %q, %v", got, err)
	}
	p.in.idle()
	if holdsLibrary(pc) {
		t.Fatal("the reader parked again, and the library connection stayed")
	}

	closed := make(chan error, 1)
	go func() { _, _, err := p.peer.Read(ctx); closed <- err }()
	if err := p.l.Close("going"); err != nil {
		t.Logf("close: %v", err) // the peer's answer may race the socket's end
	}
	err = <-closed
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway || ce.Reason != "going" {
		t.Fatalf("the peer read %v after a close while let go, want 1001 \"going\"", err)
	}
	if err := p.l.Send(ctx, bridge.Outbound{Frame: []byte(`{}`)}); err == nil {
		t.Fatal("a send after the close went through")
	}
}

// TestLibraryPinned: a connection whose handshake negotiated a
// subprotocol, which a library connection made again would not have,
// keeps its library connection as its reader parks.
func TestLibraryPinned(t *testing.T) {
	p := newLibraryPair(t, "mcp-bridge.test")
	p.in.idle()
	p.l.pc.letGo()
	if !holdsLibrary(p.l.pc) {
		t.Fatal("a connection with a subprotocol let its library connection go")
	}
}
