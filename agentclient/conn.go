package agentclient

import (
	"context"
	"io"

	"github.com/coder/websocket"
)

// DefaultReadLimit is the largest message a connection reads when its
// options set no limit: 32 KiB.
const DefaultReadLimit = 32 << 10

// Conn is a WebSocket connection that carries frames, one a message. It
// writes frames as text messages and reads messages of either kind.
//
// Read and Reader must be called from one goroutine at a time; the other
// methods are safe for concurrent use. Its errors are the WebSocket
// library's, so that WentAway and the library's CloseStatus can tell how
// the peer closed the connection.
type Conn struct {
	ws *websocket.Conn
}

// newConn wraps ws, limiting the messages it reads to limit bytes
// (0: DefaultReadLimit, negative: no limit).
func newConn(ws *websocket.Conn, limit int64) *Conn {
	switch {
	case limit == 0:
		limit = DefaultReadLimit
	case limit < 0:
		limit = -1
	}
	ws.SetReadLimit(limit)
	return &Conn{ws: ws}
}

// Read returns the next frame, a new slice, waiting for it until ctx
// ends. A frame over the read limit closes the connection (status 1009,
// message too big).
func (c *Conn) Read(ctx context.Context) ([]byte, error) {
	_, frame, err := c.ws.Read(ctx)
	return frame, err
}

// Reader returns a reader of the next frame, waiting for it until ctx
// ends. The frame must be read to its end before the next Read or Reader.
func (c *Conn) Reader(ctx context.Context) (io.Reader, error) {
	_, r, err := c.ws.Reader(ctx)
	return r, err
}

// Write sends frame as one text message. When ctx ends before the write
// is done, the connection is closed.
func (c *Conn) Write(ctx context.Context, frame []byte) error {
	return c.ws.Write(ctx, websocket.MessageText, frame)
}

// Close closes the connection normally (status 1000) with reason (at
// most 125 bytes), and waits for the peer to answer the closing handshake
// (five seconds at most). It ends a Read under way.
func (c *Conn) Close(reason string) error {
	return c.ws.Close(websocket.StatusNormalClosure, reason)
}

// CloseBusy closes the connection as a peer already serving another one
// does (status 1013, try again later), with reason, as Close does.
func (c *Conn) CloseBusy(reason string) error {
	return c.ws.Close(websocket.StatusTryAgainLater, reason)
}

// CloseNow closes the connection at once, without the closing handshake.
// It ends a Read or Write under way.
func (c *Conn) CloseNow() error {
	return c.ws.CloseNow()
}
