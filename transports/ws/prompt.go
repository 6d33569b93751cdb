package ws

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// A message the bridge has for an agent is written by the goroutine that
// made it, at once, when the agent's queue is empty: handing it to the
// queue's writer instead costs a goroutine wake-up, which on an idle
// machine is most of a hop's latency (docs/performance.md, "Where the time goes").
// That goroutine is usually another agent's reader, which must never wait
// on this agent's socket: so such a write never blocks. promptConn, under
// the WebSocket library, writes what the socket takes now and keeps the
// rest, which the queue's writer then writes, waiting as any send does.
// Only plain TCP connections accepted by the Handler get one; TLS and
// dialled connections go through their queue's writer always.

// promptConn is a TCP connection whose writes, while prompt is set, never
// wait on the peer: what the socket cannot take at once is kept in backlog
// and written, in order, before anything else.
type promptConn struct {
	net.Conn
	raw syscall.RawConn

	mu      sync.Mutex // held for each write to the socket
	prompt  bool       // the writes under way must not block
	hold    bool       // the writes under way wait for the next one
	backlog []byte     // written but not yet taken by the socket
	// waiting counts the writes under way that may wait on the peer: a
	// prompt write does not start while there is one (writeNow).
	waiting atomic.Int32

	// What tryWrite (under mu) hands the socket and gets back, with the
	// function that does it, made once so that the call does not allocate.
	out    []byte
	outN   int
	outErr error
	writeP func(fd uintptr) bool
}

// holdLimit bounds what a connection holds back for the next write
// (Hold): past it, the held bytes are written at once.
const holdLimit = 64 << 10

// newPromptConn returns c as a promptConn, or nil when c is not a
// connection whose socket it can write without blocking: one that gives
// its socket (syscall.Conn: a TCP connection, or the listener's wrapper of
// one; never TLS, whose bytes are not the socket's).
func newPromptConn(c net.Conn) *promptConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	pc := &promptConn{Conn: c, raw: raw}
	pc.writeP = pc.writeOut
	return pc
}

func (c *promptConn) Write(p []byte) (int, error) {
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.prompt {
		rest := p
		if len(c.backlog) == 0 {
			n, err := c.tryWrite(p)
			if err != nil {
				return n, err
			}
			rest = p[n:]
		}
		c.backlog = append(c.backlog, rest...)
		return len(p), nil
	}
	if len(c.backlog) > 0 && len(c.backlog)+len(p) <= holdLimit {
		// One write for what was held and p.
		c.backlog = append(c.backlog, p...)
		if c.hold {
			return len(p), nil
		}
		return len(p), c.drain()
	}
	if err := c.drain(); err != nil {
		return 0, err
	}
	if c.hold && len(p) < holdLimit {
		c.backlog = append(c.backlog, p...)
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// tryWrite writes what of p the socket takes without waiting.
func (c *promptConn) tryWrite(p []byte) (int, error) {
	c.out = p
	err := c.raw.Write(c.writeP)
	n, werr := c.outN, c.outErr
	c.out, c.outErr = nil, nil
	switch {
	case err != nil:
		return 0, err
	case werr == syscall.EAGAIN:
		return 0, nil
	case werr != nil:
		return 0, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: werr}
	}
	return n, nil
}

// writeOut writes c.out to the socket fd once, without waiting, into
// c.outN and c.outErr.
func (c *promptConn) writeOut(fd uintptr) bool {
	for {
		c.outN, c.outErr = syscall.Write(int(fd), c.out)
		if c.outErr != syscall.EINTR {
			return true
		}
	}
}

// drain writes the backlog, waiting on the peer; c.mu is held.
func (c *promptConn) drain() error {
	if len(c.backlog) == 0 {
		return nil
	}
	_, err := c.Conn.Write(c.backlog)
	c.backlog = c.backlog[:0]
	if cap(c.backlog) > 64<<10 {
		c.backlog = nil // a large message's backlog is not kept
	}
	return err
}

// writeNow runs write (a WebSocket write) with c's writes prompt, and
// reports whether it left a backlog. While another write may be waiting on
// the peer (a heartbeat's ping, a pong, a close frame: writes the queue
// did not make, which hold the WebSocket's write lock and c.mu), it
// returns bridge.ErrBusy at once rather than wait behind it. A write
// that starts after this check finds c prompt, and does not wait.
func (c *promptConn) writeNow(write func() error) (backlog bool, err error) {
	if c.waiting.Load() > 0 {
		return false, bridge.ErrBusy
	}
	c.mu.Lock()
	c.prompt = true
	c.mu.Unlock()
	err = write()
	c.mu.Lock()
	c.prompt = false
	backlog = len(c.backlog) > 0
	c.mu.Unlock()
	return backlog, err
}

// writeHeld runs write (a WebSocket write) with c's writes held back for
// the next write, up to holdLimit.
func (c *promptConn) writeHeld(write func() error) error {
	c.mu.Lock()
	c.hold = true
	c.mu.Unlock()
	err := write()
	c.mu.Lock()
	c.hold = false
	c.mu.Unlock()
	return err
}

// flush writes the backlog, waiting on the peer.
func (c *promptConn) flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.drain()
}

// promptLink is the link of a connection with a promptConn under it: the
// bridge may hand it a message without waiting (bridge.Prompt).
type promptLink struct {
	link
	pc *promptConn
}

// SendNow writes one text message without waiting on the peer.
func (l promptLink) SendNow(out bridge.Outbound) (backlog bool, err error) {
	return l.pc.writeNow(func() error {
		return l.c.Write(context.Background(), websocket.MessageText, out.Frame)
	})
}

// Hold writes one text message with the next one (delivery.Holder).
func (l promptLink) Hold(ctx context.Context, out bridge.Outbound) error {
	return l.pc.writeHeld(func() error {
		return l.c.Write(ctx, websocket.MessageText, out.Frame)
	})
}

// Flush writes what SendNow left, waiting on the peer.
func (l promptLink) Flush(context.Context) error { return l.pc.flush() }

// promptWriter is an http.ResponseWriter whose Hijack puts a promptConn
// under the WebSocket library, and keeps the connection's read buffer, so
// that the reader can tell whether more has arrived (buffered).
type promptWriter struct {
	http.ResponseWriter
	pc *promptConn
	br *bufio.Reader
}

func (w *promptWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// The controller finds the Hijacker under middleware's wrappers
	// (Unwrap).
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.br = brw.Reader
	w.pc = newPromptConn(c)
	if w.pc == nil {
		return c, brw, nil
	}
	// What the server has not yet written goes before the WebSocket's
	// first frame, which the new writer writes.
	if err := brw.Writer.Flush(); err != nil {
		return nil, nil, err
	}
	return w.pc, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.pc, brw.Writer.Size())), nil
}

// buffered returns the function that reports how many bytes the hijacked
// connection has read and not yet handed on (its read buffer, which only
// the reader's goroutine may ask about); nil when its writes cannot be
// prompt (TLS). It keeps the buffer only, not the HTTP response, which the
// connection's reader must not hold.
//
// It does not ask the socket too. A frame with nothing after it in the
// buffer came with the last read, which took what the socket had then (up
// to the buffer's size); what arrives while the frame is handled waits for
// the next read, and the prompt write in between does not block. Asking the socket (an ioctl per
// frame, to hand the write to the queue's writer when more was waiting)
// cost the hop about 3% of its p50 and measured no better on a stream
// (docs/performance.md, "Paired rounds").
func (w *promptWriter) buffered() func() int {
	if w.br == nil || w.pc == nil {
		return nil
	}
	return w.br.Buffered
}
