package ws

import (
	"bytes"
	"io"
	"net"
	"testing"
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
