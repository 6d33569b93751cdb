package ws

import (
	"context"
	"fmt"
	"net"
	"sync"
)

// A heartbeat's ping of a connection with a promptConn under it is
// written by the connection itself, and its pong is seen by the
// connection's frame follower (inFrames), not by the WebSocket library:
// the library's Ping keeps its pending pings in a map made with the
// connection, whose storage stays once a ping has gone into it, about
// 170 bytes an idle agent (docs/performance.md, "What one idle agent
// holds"). The ping is written only where it cannot tear a frame: with
// no frame part-way on the socket and nothing kept back to write first;
// otherwise (a write under way, a backlog, a connection closing) the
// library's Ping is used, as it is for every other connection. The pong
// the library reads matches no ping of its own, which it ignores.

// pingFrame is the ping the connection writes: a server's frame is not
// masked; its payload names the bridge, which the peer's pong carries
// back (any pong answers it).
var pingFrame = []byte{0x80 | opPing, 2, 'm', 'b'}

// opPing and opPong are the control frames' opcodes (RFC 6455 section
// 5.5).
const (
	opPing = 0x9
	opPong = 0xA
)

// pongWaiters holds, for each connection with a ping of its own in
// flight, what its pong (or its closing) is told to: at most one a
// connection, none while it is idle, so that an idle connection holds
// nothing for its heartbeat.
var pongWaiters = struct {
	mu sync.Mutex
	m  map[*inFrames]chan error
}{m: make(map[*inFrames]chan error)}

// errNoPing is what ping returns when the connection cannot write its own
// ping now: the caller pings through the library.
var errNoPing = fmt.Errorf("ws: the connection cannot write its own ping now")

// ping writes a ping and waits for the peer's pong, the connection's end
// or ctx; errNoPing, having written nothing, when it cannot write one
// without tearing a frame or waiting on the peer.
func (c *promptConn) ping(ctx context.Context) error {
	ch := make(chan error, 1)
	pongWaiters.mu.Lock()
	if _, ok := pongWaiters.m[&c.in]; ok {
		pongWaiters.mu.Unlock()
		return errNoPing // a ping of its own is in flight already
	}
	pongWaiters.m[&c.in] = ch
	pongWaiters.mu.Unlock()
	defer func() {
		pongWaiters.mu.Lock()
		delete(pongWaiters.m, &c.in)
		pongWaiters.mu.Unlock()
	}()
	if err := c.writePing(); err != nil {
		return err
	}
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return fmt.Errorf("ws: waiting for the pong: %w", ctx.Err())
	}
}

// writePing writes pingFrame where it is whole on the socket at once;
// errNoPing, having written nothing, when a frame is part-way, a backlog
// waits, the connection is closing or the socket takes nothing now.
func (c *promptConn) writePing() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.npend > 0 || c.left > 0 || c.backlog != nil || c.park.closing.Load() {
		return errNoPing
	}
	n, err := c.tryWrite(pingFrame)
	switch {
	case err != nil:
		return fmt.Errorf("ws: writing a ping: %w", err)
	case n == 0:
		return errNoPing
	case n < len(pingFrame):
		// The rest goes first with the next write, as a prompt write's
		// does; the pong waits for it.
		c.keep(pingFrame[n:])
	}
	return nil
}

// tellPinger tells the ping in flight on the connection whose frames f
// follows, if any, that its peer answered (nil) or why it never will.
func tellPinger(f *inFrames, err error) {
	pongWaiters.mu.Lock()
	ch := pongWaiters.m[f]
	pongWaiters.mu.Unlock()
	if ch != nil {
		select {
		case ch <- err:
		default:
		}
	}
}

// Ping checks the peer answers a WebSocket ping, the connection writing
// the ping itself where it can (promptConn.ping).
func (l promptLink) Ping(ctx context.Context) error {
	err := l.pc.ping(ctx)
	if err != errNoPing {
		return err
	}
	c, err := l.pc.conn()
	if err != nil {
		return err
	}
	defer l.pc.done()
	return c.Ping(ctx)
}

// errPingClosed is what a ping in flight returns when its connection
// closes.
var errPingClosed = fmt.Errorf("ws: waiting for the pong: %w", net.ErrClosed)
