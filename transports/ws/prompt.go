package ws

import (
	"bufio"
	"context"
	"encoding/binary"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

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
// and written, in order, before anything else. It holds no buffer while
// idle (buffers.go): it reads through a pooled buffer taken once the
// socket has bytes, and puts a frame's header, which the WebSocket
// library's 16-byte bufio.Writer hands it apart from the payload, in front
// of the payload, for one write.
type promptConn struct {
	net.Conn
	raw syscall.RawConn

	mu sync.Mutex // held for each write to the socket
	// waiting counts the writes under way that may wait on the peer: a
	// prompt write does not start while there is one (writeNow).
	waiting atomic.Int32
	prompt  bool    // the writes under way must not block
	hold    bool    // the writes under way wait for the next one
	backlog *[]byte // written but not yet taken by the socket; nil when none

	// The start of a frame whose payload has not come yet (npend bytes of
	// pend), and how much of the frame is still to come (left).
	pend  [smallBuf]byte
	npend int
	left  int64

	// What tryWrite (under mu) hands the socket and gets back, with the
	// function that does it, made once so that the call does not allocate.
	out    []byte
	outN   int
	outErr error
	writeP func(fd uintptr) bool

	// Bytes read from the socket and not yet handed on: (*rbuf)[rr:rw],
	// rbuf nil when there are none. Only the reading goroutine reads, and
	// readIn (called by it) fills them, reporting an error in rerr.
	rbuf   *[]byte
	rr, rw int
	rerr   error
	readP  func(fd uintptr) bool
	// in follows the frames handed on, for the reading goroutine.
	in inFrames
	// moved is when the reading last moved to a fresh goroutine, on the
	// monotonic clock since clockStart; 0 before it first did. (A
	// time.Time is 16 bytes more, which put the struct in a larger size
	// class.)
	moved time.Duration

	park parking // park.go
	lib  libConn // library.go
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
	pc.readP = pc.readIn
	return pc
}

// Read reads what the socket has, through a pooled buffer that is given
// back once it has all been handed on: waiting for bytes, the connection
// holds none.
func (c *promptConn) Read(p []byte) (int, error) {
	if c.rbuf == nil {
		c.rerr = nil
		if err := c.fill(); err != nil {
			return 0, err
		}
		if c.rerr != nil {
			return 0, c.rerr
		}
	}
	n := copy(p, (*c.rbuf)[c.rr:c.rw])
	c.in.feed(p[:n])
	c.rr += n
	if c.rr == c.rw {
		giveReadBuf(c.rbuf)
		c.rbuf = nil
	}
	return n, nil
}

// readIn reads the socket fd once into a pooled buffer, without waiting:
// false (wait until it is readable) when it has nothing, the buffer given
// back.
func (c *promptConn) readIn(fd uintptr) bool {
	b := takeReadBuf()
	for {
		n, err := syscall.Read(int(fd), *b)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			giveReadBuf(b)
			return false
		case err != nil:
			giveReadBuf(b)
			c.rerr = &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: os.NewSyscallError("read", err)}
			return true
		case n == 0:
			giveReadBuf(b)
			c.rerr = io.EOF
			return true
		}
		c.rbuf, c.rr, c.rw = b, 0, n
		return true
	}
}

// preload puts bytes read before the connection was handed over (what
// net/http read past the request) in front of what the socket has.
func (c *promptConn) preload(p []byte) {
	if len(p) == 0 {
		return
	}
	b := takeReadBuf()
	if len(p) > len(*b) {
		*b = make([]byte, len(p))
	}
	c.rbuf, c.rr, c.rw = b, 0, copy(*b, p)
}

// pending returns how many bytes were read from the socket and not yet
// handed on; only the reading goroutine may ask.
func (c *promptConn) pending() int {
	if c.rbuf == nil {
		return 0
	}
	return c.rw - c.rr
}

// release gives back the buffers the connection holds, once it is done
// with: by the reading goroutine after its last read.
func (c *promptConn) release() {
	if c.rbuf != nil {
		giveReadBuf(c.rbuf)
		c.rbuf = nil
	}
	c.mu.Lock()
	if c.backlog != nil {
		giveBacklog(c.backlog)
		c.backlog = nil
	}
	c.mu.Unlock()
}

// frameLen returns the length of the WebSocket frame p starts with,
// header and payload, and whether p holds its header.
func frameLen(p []byte) (int64, bool) {
	if len(p) < 2 {
		return 0, false
	}
	n, h := int64(p[1]&0x7f), int64(2)
	switch n {
	case 126:
		if len(p) < 4 {
			return 0, false
		}
		n, h = int64(binary.BigEndian.Uint16(p[2:])), 4
	case 127:
		if len(p) < 10 {
			return 0, false
		}
		n, h = int64(binary.BigEndian.Uint64(p[2:])), 10
	}
	if p[1]&0x80 != 0 {
		h += 4 // masked
	}
	if n < 0 || n > 1<<62 {
		return 0, false
	}
	return h + n, true
}

func (c *promptConn) Write(p []byte) (int, error) {
	c.waiting.Add(1)
	defer c.waiting.Add(-1)
	c.mu.Lock()
	defer c.mu.Unlock()
	var head []byte
	switch {
	case c.npend > 0:
		// The payload of the frame begun: written with its start.
		head = c.pend[:c.npend]
		c.npend = 0
		c.left = max(0, c.left-int64(len(p)))
	case c.left > 0:
		c.left = max(0, c.left-int64(len(p)))
	default:
		if len(p) > 0 && p[0]&0x0f == opClose {
			c.park.closing.Store(true) // see parking.closing
		}
		if n, ok := frameLen(p); ok && int64(len(p)) < n && len(p) <= len(c.pend) {
			// The start of a frame: kept for the rest.
			c.npend = copy(c.pend[:], p)
			c.left = n - int64(len(p))
			return len(p), nil
		}
	}
	if err := c.writeJoined(head, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// frames are buffers in which a frame's start and its payload are joined
// for one write, for the duration of the write.
var frames = sync.Pool{New: func() any { b := make([]byte, 0, readBufSize); return &b }}

// writeJoined writes head and then p, in one write where they fit a
// buffer of readBufSize; c.mu is held.
func (c *promptConn) writeJoined(head, p []byte) error {
	if len(head) == 0 {
		return c.write(p)
	}
	if len(head)+len(p) <= readBufSize {
		b := frames.Get().(*[]byte)
		*b = append(append((*b)[:0], head...), p...)
		err := c.write(*b)
		frames.Put(b)
		return err
	}
	if err := c.write(head); err != nil {
		return err
	}
	return c.write(p)
}

// keep adds p to the backlog; c.mu is held.
func (c *promptConn) keep(p []byte) {
	if c.backlog == nil {
		c.backlog = takeBacklog()
	}
	*c.backlog = append(*c.backlog, p...)
}

// write writes p as the connection's mode says; c.mu is held.
func (c *promptConn) write(p []byte) error {
	if c.prompt {
		rest := p
		if c.backlog == nil {
			n, err := c.tryWrite(p)
			if err != nil {
				return err
			}
			rest = p[n:]
		}
		if len(rest) > 0 {
			c.keep(rest)
		}
		return nil
	}
	if c.backlog != nil && len(*c.backlog)+len(p) <= holdLimit {
		// One write for what was held and p.
		c.keep(p)
		if c.hold {
			return nil
		}
		return c.drain()
	}
	if err := c.drain(); err != nil {
		return err
	}
	if c.hold && len(p) < holdLimit {
		c.keep(p)
		return nil
	}
	_, err := c.Conn.Write(p)
	return err
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

// drain writes the backlog, waiting on the peer, and gives its buffer
// back; c.mu is held.
func (c *promptConn) drain() error {
	if c.backlog == nil {
		return nil
	}
	_, err := c.Conn.Write(*c.backlog)
	giveBacklog(c.backlog)
	c.backlog = nil
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
	backlog = c.backlog != nil
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
// bridge may hand it a message without waiting (bridge.Prompt). Each
// write uses the connection's library connection, made again if it was
// let go while the connection was parked (library.go).
type promptLink struct{ pc *promptConn }

// Send writes one text message; coder/websocket serialises concurrent
// writers.
func (l promptLink) Send(ctx context.Context, out bridge.Outbound) error {
	c, err := l.pc.conn()
	if err != nil {
		return err
	}
	defer l.pc.done()
	return c.Write(ctx, websocket.MessageText, out.Frame)
}

func (promptLink) Transport() string { return "websocket" }

// Abort ends a send in progress by closing the connection at once.
func (l promptLink) Abort() { l.pc.abort() }

// Close ends the connection with a going-away close frame giving reason.
func (l promptLink) Close(reason string) error {
	c, err := l.pc.conn()
	if err != nil {
		return err
	}
	defer l.pc.done()
	return c.Close(websocket.StatusGoingAway, truncate(reason))
}

// SendNow writes one text message without waiting on the peer: in a frame
// of the connection's own where it can (library.go), else through the
// library.
func (l promptLink) SendNow(out bridge.Outbound) (backlog bool, err error) {
	if backlog, handled, err := l.pc.sendNow(out.Frame); handled {
		return backlog, err
	}
	c, err := l.pc.conn()
	if err != nil {
		return false, err
	}
	defer l.pc.done()
	return l.pc.writeNow(func() error {
		return c.Write(context.Background(), websocket.MessageText, out.Frame)
	})
}

// Hold writes one text message with the next one (delivery.Holder).
func (l promptLink) Hold(ctx context.Context, out bridge.Outbound) error {
	c, err := l.pc.conn()
	if err != nil {
		return err
	}
	defer l.pc.done()
	return l.pc.writeHeld(func() error {
		return c.Write(ctx, websocket.MessageText, out.Frame)
	})
}

// Flush writes what SendNow left, waiting on the peer.
func (l promptLink) Flush(context.Context) error { return l.pc.flush() }

// promptWriter is an http.ResponseWriter whose Hijack puts a promptConn
// under the WebSocket library, where the connection is plain TCP.
type promptWriter struct {
	http.ResponseWriter
	pc *promptConn
	// upgrade says Accept's 101 is held back (handshake.go); held is the
	// connection it waits in when there is no pc (TLS).
	upgrade bool
	held    *heldConn
}

func (w *promptWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	// The controller finds the Hijacker under middleware's wrappers
	// (Unwrap).
	c, brw, err := http.NewResponseController(w.ResponseWriter).Hijack()
	if err != nil {
		return nil, nil, err
	}
	w.pc = newPromptConn(c)
	if w.pc == nil {
		if !w.upgrade {
			return c, brw, nil
		}
		// The library writes through the held connection, which puts
		// the handshake's answer first.
		w.held = &heldConn{Conn: c, head: w.handshake()}
		return w.held, bufio.NewReadWriter(brw.Reader, bufio.NewWriterSize(w.held, brw.Writer.Size())), nil
	}
	// What the server has not yet written goes before the WebSocket's
	// first frame, which the new writer writes.
	if err := brw.Writer.Flush(); err != nil {
		return nil, nil, err
	}
	if w.upgrade {
		// The handshake's answer waits in the backlog, which goes
		// before anything written.
		w.pc.mu.Lock()
		w.pc.keep(w.handshake())
		w.pc.mu.Unlock()
	}
	// net/http's 4 KB buffers are let go: what its reader holds past the
	// request goes first, and the library gets bufio's smallest, the
	// connection buffering for it only while it has bytes.
	if n := brw.Reader.Buffered(); n > 0 {
		b, err := brw.Reader.Peek(n)
		if err != nil {
			return nil, nil, err
		}
		w.pc.preload(b)
	}
	s, rw := w.pc.hijacked()
	return s, rw, nil
}

// accepted returns the link of c, which Accept returned over w, and what
// the connection's reader may ask of the hijacked connection (source):
// a promptLink over plain TCP, whose library connection c is then; over
// TLS, a link of c and a source that knows c only. Neither keeps the HTTP
// response, which the connection's reader must not hold.
//
// The source does not ask the socket how much it holds. A frame with
// nothing after it in the buffers came with the last read, which took
// what the socket had then (up to the buffer's size); what arrives while
// the frame is handled waits for the next read, and the prompt write in
// between does not block. Asking the socket (an ioctl per frame, to hand
// the write to the queue's writer when more was waiting) cost the hop
// about 3% of its p50 and measured no better on a stream
// (docs/performance.md, "Paired rounds").
func (w *promptWriter) accepted(c *websocket.Conn) (bridge.Link, source) {
	if w.pc == nil {
		return link{c}, source{c: c}
	}
	w.pc.adopt(c)
	w.pc.lib.reading = true // the connection's reader takes it over
	w.pc.lib.pinned = c.Subprotocol() != "" || w.Header().Get("Sec-WebSocket-Extensions") != ""
	return promptLink{w.pc}, source{pc: w.pc}
}

// source is what a connection's reader knows of the connection under its
// WebSocket; the zero source knows nothing.
type source struct {
	c  *websocket.Conn // the library connection, when there is no pc
	pc *promptConn
}

// conn returns the library connection for the reader's use: made again
// when the connection was parked (library.go); idle ends the use as the
// reader parks.
func (s source) conn() (*websocket.Conn, error) {
	if s.pc == nil {
		return s.c, nil
	}
	return s.pc.readConn()
}

// idle ends the reader's use of the library connection as the reader
// parks, letting the library connection go when it can.
func (s source) idle() {
	if s.pc != nil {
		s.pc.idle()
	}
}

// buffered returns how many bytes have been read from the connection and
// not yet handed on, and whether it can tell.
func (s source) buffered() (int, bool) {
	if s.pc == nil {
		return 0, false
	}
	return s.pc.lib.br.Buffered() + s.pc.pending(), true
}

// moveEvery is how often at most the reading of a connection moves to a
// fresh goroutine (source.move).
const moveEvery = time.Second

// move reports whether the reading of the connection should go on in a
// fresh goroutine, now that a frame was handled and nothing more has come:
// at most once every moveEvery. Handling a frame grows the reader's stack
// (a capability declaration, routed and answered, to 8-16 KB), and the
// runtime shrinks a parked goroutine's stack by half a collection, of
// which an idle bridge makes few; a fresh goroutine starts at the size
// goroutines use on average. Where the connection can park (park.go),
// the reader parks instead, the parker starting the fresh goroutine once
// the socket has bytes. Only the reading goroutine may ask.
func (s source) move() bool {
	if s.pc == nil {
		return false
	}
	now := time.Since(clockStart)
	if s.pc.moved != 0 && now-s.pc.moved < moveEvery {
		return false
	}
	s.pc.moved = max(now, 1)
	return true
}

// clockStart is what promptConn.moved counts from.
var clockStart = time.Now()

// closedNormally reports whether the peer's close frame, read by the
// library, said the peer closed normally or went away; only the reading
// goroutine may ask, once the connection is closed.
func (s source) closedNormally() bool {
	return s.pc != nil && s.pc.in.closedNormally()
}

// park parks the connection, its reading to resume in a fresh goroutine
// once it has bytes, and reports whether it did; false when it cannot,
// the caller reading on.
func (s source) park() bool {
	return s.pc != nil && s.pc.parkNow()
}

// parkable lets the connection park while idle (park.go), resume reading
// it on once it wakes.
func (s source) parkable(resume func()) {
	if s.pc != nil {
		s.pc.parkable(resume)
	}
}

// release gives back the buffers the connection holds, at its end.
func (s source) release() {
	if s.pc != nil {
		s.pc.release()
	}
}
