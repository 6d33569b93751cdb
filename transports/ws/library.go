package ws

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/coder/websocket"
)

// A parked connection (park.go) holds no coder/websocket state either. Its
// library connection, the Conn with its locks, message reader and writer,
// and the bufio reader and writer it goes through (about 1.6 KB), is let
// go as its reader parks, and made again over the same socket when the
// connection is next read or written: the library accepts it anew through
// a handshake made in the process (upgradeAgain), whose answer goes
// nowhere, the peer's own handshake having been answered once already.
//
// That loses nothing the connection needs, because what a WebSocket
// carries from one message to the next lives below the library, in the
// promptConn: a frame part-way on the socket (promptConn.pend), the frame
// follower (inFrames), the heartbeat's pings (ping.go), the parking. The
// library keeps nothing between messages that the bridge uses: the
// Handler negotiates no compression (whose window would be lost) and no
// subprotocol; a connection whose handshake negotiated either keeps its
// library connection (libConn.pinned). A library connection is let go by
// its reader as it parks, or by the parker's next sweep once the
// connection is parked, when nothing else uses it (a write, a close or a
// ping under way each hold it: promptConn.conn) and its bufio reader and
// writer hold nothing; once the connection is closing, it is not made
// again.
//
// A message the bridge hands a connection at once (promptLink.SendNow:
// the hop's every message, a request to an idle agent) is written in a
// frame of the connection's own (writeText: a final unmasked text frame,
// byte for byte what the library writes for it, which FuzzTextFrame holds
// it to), without the library's locks and buffers, nor a library
// connection made again first when it was let go: that one is made after
// the write, while the agent reads the message, for the answer's reading.
// Where the connection cannot write its own frame (a frame part-way, the
// connection closing), the library writes the message.

// libConn is a promptConn's library connection: nil while let go.
type libConn struct {
	mu   sync.Mutex
	c    *websocket.Conn
	sock *socket       // what c was handed as its connection, to close
	br   *bufio.Reader // what c reads through
	bw   *bufio.Writer // what c writes through
	// users counts the writers' uses of c under way (promptConn.conn), and
	// reading is set while the connection's reader holds it
	// (promptConn.readConn).
	users   int32
	reading bool
	// pinned is set when the handshake negotiated an extension or a
	// subprotocol, which a library connection made again would not have:
	// the library connection is never let go.
	pinned bool
	// held is whether c is set, for the parker's sweep to read without
	// the lock.
	held atomic.Bool
}

// libConns counts the library connections over promptConns that are
// open and not let go.
var libConns atomic.Int64

// LibraryConns returns how many coder/websocket connections the
// connections the Handler accepted over plain TCP hold now: none for a
// parked one.
func LibraryConns() int64 { return libConns.Load() }

// socket is what one library connection over a promptConn is handed as
// its net.Conn: the promptConn, whose closing by that library connection
// does nothing once it has been let go (its CloseNow, as it is let go,
// would close the socket).
type socket struct {
	*promptConn
	gone atomic.Bool
}

// Close closes the connection, unless this library connection was let
// go.
func (s *socket) Close() error {
	if s.gone.Swap(true) {
		return nil
	}
	libConns.Add(-1)
	return s.promptConn.Close()
}

// hijacked returns what a library connection over c is handed at its
// handshake: a socket of its own, and bufio's smallest reader and writer
// over c (the connection buffers for them: buffers.go). The caller is
// the only one to use c's library connection (the Handler's accept) or
// holds lib.mu (libLocked).
func (c *promptConn) hijacked() (net.Conn, *bufio.ReadWriter) {
	c.lib.sock = &socket{promptConn: c}
	c.lib.br = bufio.NewReaderSize(c, smallBuf)
	c.lib.bw = bufio.NewWriterSize(c, smallBuf)
	return c.lib.sock, bufio.NewReadWriter(c.lib.br, c.lib.bw)
}

// adopt makes conn, accepted over what hijacked returned, c's library
// connection. Accept wraps the reader's source in an io.MultiReader
// behind the bytes the reader held at the hijack (none: it is new, and c
// holds what net/http had read past the request, preload), which the
// library connection would keep, 50 bytes: the reader reads c itself
// again.
func (c *promptConn) adopt(conn *websocket.Conn) {
	if c.lib.br.Buffered() == 0 {
		c.lib.br.Reset(c)
	}
	c.lib.c = conn
	c.lib.held.Store(true)
	libConns.Add(1)
}

// conn returns c's library connection for one use by a writer, made
// again if it was let go; done ends the use. A connection that is
// closing and was let go gives net.ErrClosed.
func (c *promptConn) conn() (*websocket.Conn, error) {
	c.lib.mu.Lock()
	conn, err := c.libLocked()
	if err == nil {
		c.lib.users++
	}
	c.lib.mu.Unlock()
	return conn, err
}

// done ends a use of c's library connection that conn began. A
// connection written to while parked keeps its library connection until
// the parker's next sweep lets it go (parker.sweep): a stream of
// messages to an agent that sends nothing does not make it for each one.
func (c *promptConn) done() {
	c.lib.mu.Lock()
	c.lib.users--
	c.lib.mu.Unlock()
}

// readConn returns c's library connection for its reader, made again if
// it was let go while the connection was parked; idle ends the reader's
// hold as it parks.
func (c *promptConn) readConn() (*websocket.Conn, error) {
	c.lib.mu.Lock()
	conn, err := c.libLocked()
	if err == nil {
		c.lib.reading = true
	}
	c.lib.mu.Unlock()
	return conn, err
}

// libLocked returns c's library connection, made again if it was let go;
// lib.mu is held. A connection whose library connection cannot be made
// again is closed, as nothing could read it any more.
func (c *promptConn) libLocked() (*websocket.Conn, error) {
	if c.lib.c != nil {
		return c.lib.c, nil
	}
	if c.park.closing.Load() {
		return nil, net.ErrClosed
	}
	conn, err := websocket.Accept(&againWriter{pc: c}, upgradeAgain, nil)
	if err != nil {
		go c.Close() // not under lib.mu: Close takes the parker's lock
		return nil, fmt.Errorf("ws: making the connection's WebSocket again: %w", err)
	}
	c.adopt(conn)
	return conn, nil
}

// idle ends the reader's hold on c's library connection as the reader
// parks, letting the library connection go when it can (letGoLocked).
// Only the reading goroutine calls it.
func (c *promptConn) idle() {
	c.lib.mu.Lock()
	c.lib.reading = false
	conn := c.letGoLocked()
	c.lib.mu.Unlock()
	if conn != nil {
		// Its state goes with it: with its socket gone, nothing of this
		// reaches the connection, and the library's finalizer is cleared.
		conn.CloseNow()
	}
}

// letGo lets c's library connection go when it can (letGoLocked): the
// parker's sweep calls it for a parked connection that holds one, made
// for a write while it was parked or in use as its reader parked.
func (c *promptConn) letGo() {
	c.lib.mu.Lock()
	conn := c.letGoLocked()
	c.lib.mu.Unlock()
	if conn != nil {
		conn.CloseNow()
	}
}

// letGoLocked lets c's library connection go, returning it to be closed
// (CloseNow) once lib.mu is released, when nothing uses it (no reader,
// no write under way), its reader and writer hold no bytes and the
// connection is not closing; nil when it does not. lib.mu is held.
func (c *promptConn) letGoLocked() *websocket.Conn {
	conn, sock := c.lib.c, c.lib.sock
	if conn == nil || c.lib.pinned || c.lib.reading || c.lib.users > 0 || c.lib.br.Buffered() > 0 || c.lib.bw.Buffered() > 0 || c.park.closing.Load() {
		return nil
	}
	if sock.gone.Swap(true) {
		return nil // closed already
	}
	c.lib.c, c.lib.sock, c.lib.br, c.lib.bw = nil, nil, nil, nil
	c.lib.held.Store(false)
	libConns.Add(-1)
	return conn
}

// abort closes c at once, ending a write under way (delivery.Aborter).
func (c *promptConn) abort() {
	c.lib.mu.Lock()
	conn := c.lib.c
	c.lib.mu.Unlock()
	if conn != nil {
		conn.CloseNow()
		return
	}
	_ = c.Close()
}

// upgradeAgain is the handshake a library connection is made again with:
// a WebSocket upgrade as an agent's is, with no subprotocol, extension or
// origin, and RFC 6455's sample key. Accept only reads it, so that one
// serves every connection.
var upgradeAgain = func() *http.Request {
	h := make(http.Header)
	h.Set("Connection", "Upgrade")
	h.Set("Upgrade", "websocket")
	h.Set("Sec-WebSocket-Version", "13")
	h.Set("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==")
	return &http.Request{Method: http.MethodGet, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1, Header: h}
}()

// againWriter is the response writer of upgradeAgain: what Accept writes
// to it goes nowhere, and its Hijack hands over the promptConn.
type againWriter struct {
	pc *promptConn
	h  http.Header
}

func (w *againWriter) Header() http.Header {
	if w.h == nil {
		w.h = make(http.Header)
	}
	return w.h
}

func (w *againWriter) Write(p []byte) (int, error) { return len(p), nil }

func (w *againWriter) WriteHeader(int) {}

func (w *againWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	s, rw := w.pc.hijacked()
	return s, rw, nil
}

// errNotNow is what writeText returns, having written nothing, when the
// connection cannot write a frame of its own now: the library writes it.
var errNotNow = errors.New("ws: the connection cannot write a frame of its own now")

// opText is a text frame's opcode (RFC 6455 section 5.2).
const opText = 0x1

// textHeader puts the header of a final, unmasked text frame with a
// payload of n bytes in h, as the library writes a server's, and returns
// its length.
func textHeader(h *[10]byte, n int) int {
	h[0] = 0x80 | opText
	switch {
	case n <= 125:
		h[1] = byte(n)
		return 2
	case n <= 0xffff:
		h[1] = 126
		binary.BigEndian.PutUint16(h[2:], uint16(n))
		return 4
	default:
		h[1] = 127
		binary.BigEndian.PutUint64(h[2:], uint64(n))
		return 10
	}
}

// writeText writes p as one text message in a frame of the connection's
// own, as the connection's mode says (writeNow's prompt write); errNotNow,
// having written nothing, while a frame is part-way on the socket or the
// connection is closing.
func (c *promptConn) writeText(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.npend > 0 || c.left > 0 || c.park.closing.Load() {
		return errNotNow
	}
	var h [10]byte
	return c.writeJoined(h[:textHeader(&h, len(p))], p)
}

// sendNow writes p at once (writeNow) in a frame of the connection's own,
// then makes the library connection again if it was let go, for what
// follows; handled false, having written nothing, when the connection
// cannot write its own frame now (the library writes it).
func (c *promptConn) sendNow(p []byte) (backlog, handled bool, err error) {
	backlog, err = c.writeNow(func() error { return c.writeText(p) })
	if err == errNotNow {
		return false, false, nil
	}
	if err == nil && !c.lib.held.Load() {
		// The answer will be read through it: made now, while the peer
		// reads the message, rather than when its answer has come.
		if _, lerr := c.conn(); lerr == nil {
			c.done()
		}
	}
	return backlog, true, err
}
