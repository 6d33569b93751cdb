package ws

import (
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// hardLimitFactor bounds what a connection may send in one message: a
// message over MaxFrame is read to its end, answered with a too-large error
// and the connection carries on, but one over this many times MaxFrame
// closes the connection (StatusMessageTooBig) rather than be drained.
const hardLimitFactor = 16

// serve reads messages from c into s until the connection ends. in, when
// it can, says how much has been read from the connection but not yet
// taken: a message with nothing after it is received as the last one
// (Session.ReceiveLast), so that what it causes is written at once. Each
// message is read into a buffer taken for it once its frame has begun, so
// that the connection holds none while it waits.
func serve(ctx context.Context, c *websocket.Conn, s *bridge.Session, max int, in source) error {
	c.SetReadLimit(int64(max) * hardLimitFactor)
	var lr io.LimitedReader // one for every message: io.LimitReader would allocate
	for {
		_, r, err := c.Reader(ctx)
		if err != nil {
			if errors.Is(err, errPark) {
				return errPark // nothing of a message was taken
			}
			return err
		}
		buf := takeMsgBuf()
		lr.R, lr.N = r, int64(max)+1
		n, err := buf.ReadFrom(&lr)
		lr.R = nil
		if err != nil {
			giveMsgBuf(buf)
			return err
		}
		if n > int64(max) {
			giveMsgBuf(buf)
			rest, err := io.Copy(io.Discard, r)
			if err != nil {
				return err
			}
			s.Oversize(int(n + rest))
			continue
		}
		// Receive keeps the frame: it gets its own copy of the buffer.
		frame := bytes.Clone(buf.Bytes())
		giveMsgBuf(buf)
		if more, ok := in.buffered(); ok && more == 0 {
			s.ReceiveLast(frame)
			if in.move() {
				return errMoved
			}
		} else {
			s.Receive(frame)
		}
	}
}

// errMoved is what serve returns when the connection is to be read on by
// a fresh goroutine (source.move).
var errMoved = errors.New("ws: the connection is read on by a fresh goroutine")

// carry reads c into s until the connection ends (serve), then closes
// the connection, gives its buffers back and detaches s: as lost unless
// the connection was closed normally or ctx ended. It returns whether s
// was told it was lost, and why the connection ended; with the
// connection still open, errMoved when in asked for the reading to go on
// in a fresh goroutine, errPark when the connection is to park (only a
// source that knows its connection does either).
func carry(ctx context.Context, c *websocket.Conn, s *bridge.Session, max int, in source) (lost bool, err error) {
	err = serve(ctx, c, s, max, in)
	if err == errMoved || err == errPark {
		return false, err // the caller reads on in a fresh goroutine, or parks
	}
	// The connection goes first, so that a write to a peer that stopped
	// reading ends at once and the session's queue can be failed.
	c.CloseNow()
	in.release()
	// The peer's close frame may have been read by the library's Close
	// while the connection was parked: the reader then finds it closed.
	if closedNormally(err) || in.closedNormally() || ctx.Err() != nil {
		s.Detach()
		return false, err
	}
	s.Lost(err)
	return true, err
}

// closedNormally reports whether err ends a connection the way it should
// end: a close frame saying so, or the bridge's own going away. A
// connection that just drops (EOF without a close frame) was lost.
func closedNormally(err error) bool {
	switch websocket.CloseStatus(err) {
	case websocket.StatusNormalClosure, websocket.StatusGoingAway:
		return true
	}
	return errors.Is(err, context.Canceled)
}
