package ws

import (
	"bytes"
	"net"
	"net/http"
	"sync"
)

// The handshake's answer is held back until the agent is attached. The
// library answers a WebSocket handshake (101 Switching Protocols) as it
// accepts it, before the Handler can attach the agent to the bridge: an
// agent that named itself in the URL (?agent=ID) and saw its Dial return
// could be addressed by a peer a moment later and found unknown.
// promptWriter keeps Accept's 101 from net/http, which would write it as
// the connection is hijacked, and the connection puts it before the first
// bytes anything writes (the agent's first message, a close frame): in
// its backlog, over plain TCP (a promptConn writes its backlog before
// anything else), or in a heldConn. The Handler writes it once the agent
// is attached (answer), unless a write took it first.

// WriteHeader holds back Accept's 101; any other status is written.
func (w *promptWriter) WriteHeader(code int) {
	if code == http.StatusSwitchingProtocols {
		w.upgrade = true
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

// handshake returns the 101 answer Accept made, as net/http would write
// it but for its Date.
func (w *promptWriter) handshake() []byte {
	var b bytes.Buffer
	b.WriteString("HTTP/1.1 101 Switching Protocols\r\n")
	_ = w.Header().Write(&b)
	b.WriteString("\r\n")
	return b.Bytes()
}

// answer writes the handshake's answer held back, unless something
// written on the connection has taken it already.
func (w *promptWriter) answer() error {
	switch {
	case w.pc != nil:
		return w.pc.flush()
	case w.held != nil:
		return w.held.answer()
	}
	return nil
}

// heldConn is a hijacked connection without a promptConn (TLS) while the
// handshake's answer is held back: its first write puts the answer
// first.
type heldConn struct {
	net.Conn
	mu   sync.Mutex
	head []byte // nil once written
}

func (c *heldConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head == nil {
		return c.Conn.Write(p)
	}
	b := append(c.head, p...)
	c.head = nil
	n, err := c.Conn.Write(b)
	return max(0, n-(len(b)-len(p))), err
}

// answer writes the handshake's answer if no write has.
func (c *heldConn) answer() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head == nil {
		return nil
	}
	_, err := c.Conn.Write(c.head)
	c.head = nil
	return err
}
