package ws

import (
	"bytes"
	"context"
	"errors"
	"net"
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
// library connection go, and makes it again, over the same socket, for
// each use: a message the bridge writes reaches the peer whole, and the
// library connection made for it is let go by the parker's sweep as the
// connection stays idle; one handed to it at once is written by the
// connection itself, whole, and the library connection made after it for
// the answer; a message from the peer is read whole through the one made
// for the reader, and a close after it was let go again reaches the peer
// with its reason.
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
	frames := []string{`{"n":1}`, strings.Repeat("y", 70000), `{"n":2}`, strings.Repeat("z", 70000)}
	for i, frame := range frames {
		if i < 2 {
			if err := p.l.Send(ctx, bridge.Outbound{Frame: []byte(frame)}); err != nil {
				t.Fatalf("send %d while let go: %v", i, err)
			}
		} else {
			// At once: the connection writes the frame itself (writeText),
			// then makes its library connection.
			backlog, err := p.l.SendNow(bridge.Outbound{Frame: []byte(frame)})
			if err == nil && backlog {
				err = p.l.Flush(ctx)
			}
			if err != nil {
				t.Fatalf("send %d at once while let go: %v", i, err)
			}
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

// recorder is a net.Conn that keeps what is written to it.
type recorder struct {
	net.Conn // nil: only Write and Close are used
	b        bytes.Buffer
}

func (r *recorder) Write(p []byte) (int, error) { return r.b.Write(p) }
func (r *recorder) Close() error                { return nil }

// FuzzTextFrame holds the connection's own text frames (writeText, what
// SendNow writes) to the library's: the same message, written by a library connection over a
// promptConn and by a promptConn itself, is the same bytes on the socket,
// whatever its length (a payload repeated to cross the 126 and 65,536
// byte lengths whose headers differ).
func FuzzTextFrame(f *testing.F) {
	for _, seed := range []struct {
		p      string
		repeat uint16
	}{{"", 0}, {`{"n":1}`, 0}, {"x", 124}, {"x", 125}, {"xy", 32767}, {"x", 65535}, {"xyz", 30000}} {
		f.Add([]byte(seed.p), seed.repeat)
	}
	lib, own := &recorder{}, &recorder{}
	libSide, ownSide := &promptConn{Conn: lib}, &promptConn{Conn: own}
	libSide.lib.mu.Lock()
	conn, err := libSide.libLocked()
	libSide.lib.mu.Unlock()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { conn.CloseNow() })
	f.Fuzz(func(t *testing.T, p []byte, repeat uint16) {
		msg := bytes.Repeat(p, 1+int(repeat)%(70000/max(1, len(p))+1))
		lib.b.Reset()
		own.b.Reset()
		if err := conn.Write(context.Background(), websocket.MessageText, msg); err != nil {
			t.Fatal(err)
		}
		if err := ownSide.writeText(msg); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(lib.b.Bytes(), own.b.Bytes()) {
			n := min(16, lib.b.Len(), own.b.Len())
			t.Fatalf("a %d-byte message: the library wrote %d bytes (%x...), the connection %d (%x...)", len(msg), lib.b.Len(), lib.b.Bytes()[:n], own.b.Len(), own.b.Bytes()[:n])
		}
	})
}

// TestTextFrameNotNow: the connection writes no frame of its own while a
// frame is part-way on the socket (its start kept for its payload, or its
// payload still to come) or once it is closing: it says so, having
// written nothing, and the library writes the message.
func TestTextFrameNotNow(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(c *promptConn)
	}{
		{"a frame's start kept", func(c *promptConn) { c.npend = 2 }},
		{"a frame's payload to come", func(c *promptConn) { c.left = 10 }},
		{"closing", func(c *promptConn) { c.park.closing.Store(true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			c := &promptConn{Conn: rec}
			tc.set(c)
			if err := c.writeText([]byte(`{"n":1}`)); err != errNotNow {
				t.Fatalf("writeText: %v, want errNotNow", err)
			}
			if rec.b.Len() != 0 {
				t.Fatalf("wrote %q", rec.b.Bytes())
			}
		})
	}
}
