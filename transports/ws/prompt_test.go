package ws

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// TestPromptConnOrder: over a real loopback connection whose peer does not
// read yet, prompt writes never wait (what the socket cannot take is kept),
// held writes wait for the next, and the peer then reads every byte in the
// order written.
func TestPromptConnOrder(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	peer, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer peer.Close()
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	pc := newPromptConn(c)
	if pc == nil {
		t.Fatal("a TCP connection gave no promptConn")
	}
	var want bytes.Buffer
	chunk := func(i int) []byte { return bytes.Repeat([]byte{byte('a' + i%26)}, 64<<10) }
	// Prompt writes until the socket is full and some are kept.
	i := 0
	for ; i < 10000; i++ {
		p := chunk(i)
		want.Write(p)
		backlog, err := pc.writeNow(func() error { _, err := pc.Write(p); return err })
		if err != nil {
			t.Fatal(err)
		}
		if backlog {
			break
		}
	}
	if i == 10000 {
		t.Fatal("the socket never filled")
	}
	// A prompt write behind a backlog is kept too, at once.
	tail := []byte("after the backlog")
	want.Write(tail)
	if backlog, err := pc.writeNow(func() error { _, err := pc.Write(tail); return err }); err != nil || !backlog {
		t.Fatalf("backlog %v, error %v", backlog, err)
	}
	got := make(chan []byte)
	go func() {
		b, _ := io.ReadAll(peer)
		got <- b
	}()
	// Held, then written with the next; then flushed.
	held, next := []byte("held"), []byte("next")
	want.Write(held)
	want.Write(next)
	if err := pc.writeHeld(func() error { _, err := pc.Write(held); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := pc.Write(next); err != nil {
		t.Fatal(err)
	}
	if err := pc.flush(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if b := <-got; !bytes.Equal(b, want.Bytes()) {
		t.Fatalf("the peer read %d bytes, want %d in order", len(b), want.Len())
	}
}

// TestPromptSendBehindPing: over a real WebSocket whose peer stopped
// reading, a heartbeat's ping blocked on the full socket holds the
// connection's write; a prompt send then answers bridge.ErrBusy at once
// instead of waiting behind it (its caller is another agent's reader).
// Once the peer reads again, the ping is answered and prompt sends go
// through.
func TestPromptSendBehindPing(t *testing.T) {
	type accepted struct {
		c *websocket.Conn
		l promptLink
	}
	links := make(chan accepted, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if c, l, _, ok := acceptPrompt(t, w, r, nil); ok {
			links <- accepted{c, l}
		}
	}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	peer, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer peer.CloseNow()
	peer.SetReadLimit(-1)
	a := <-links
	l := a.l
	defer a.c.CloseNow()
	// The bridge reads every connection: pongs arrive through the reader.
	go func() {
		for {
			if _, _, err := a.c.Read(ctx); err != nil {
				return
			}
		}
	}()

	// Prompt sends until the socket is full and some are kept.
	frame := bytes.Repeat([]byte("x"), 16<<10)
	for i := 0; ; i++ {
		if i == 10000 {
			t.Fatal("the socket never filled")
		}
		backlog, err := l.SendNow(bridge.Outbound{Frame: frame})
		if err != nil {
			t.Fatal(err)
		}
		if backlog {
			break
		}
	}
	pinged := make(chan error, 1)
	go func() { pinged <- l.Ping(ctx) }()
	for l.pc.waiting.Load() == 0 {
		select {
		case err := <-pinged:
			t.Fatalf("the ping returned (%v) though the peer reads nothing", err)
		case <-time.After(time.Millisecond):
		}
	}
	sent := make(chan error, 1)
	go func() { _, err := l.SendNow(bridge.Outbound{Frame: []byte("behind the ping")}); sent <- err }()
	select {
	case err := <-sent:
		if !errors.Is(err, bridge.ErrBusy) {
			t.Fatalf("a prompt send behind the blocked ping: %v, want bridge.ErrBusy", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a prompt send waited behind the blocked ping")
	}

	// The peer reads again: it answers the ping, and takes what follows.
	go func() {
		for {
			if _, _, err := peer.Read(ctx); err != nil {
				return
			}
		}
	}()
	if err := <-pinged; err != nil {
		t.Fatalf("the ping, once the peer read: %v", err)
	}
	if err := l.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := l.SendNow(bridge.Outbound{Frame: []byte("after")}); err != nil {
		t.Fatalf("a prompt send once the peer reads: %v", err)
	}
}

// acceptPrompt accepts a WebSocket connection on loopback as the Handler
// does (with opts), returning the library connection, the connection's promptLink and
// what its reader may ask of it; a failed test and false when it cannot,
// or when the connection got no promptConn.
func acceptPrompt(t *testing.T, w http.ResponseWriter, r *http.Request, opts *websocket.AcceptOptions) (*websocket.Conn, promptLink, source, bool) {
	pw := &promptWriter{ResponseWriter: w}
	c, err := websocket.Accept(pw, r, opts)
	if err != nil {
		t.Error(err)
		return nil, promptLink{}, source{}, false
	}
	l, in := pw.accepted(c)
	// As the Handler does once the agent is attached (handshake.go).
	if err := pw.answer(); err != nil {
		t.Error(err)
	}
	pl, ok := l.(promptLink)
	if !ok {
		t.Error("a loopback connection got no promptConn")
		c.CloseNow()
		return nil, promptLink{}, source{}, false
	}
	return c, pl, in, true
}
