package agentclient

import (
	"fmt"
	"net/http"

	"github.com/coder/websocket"
)

// AcceptOptions configure Accept.
type AcceptOptions struct {
	// ReadLimit is the largest frame the connection reads, in bytes: 0 is
	// DefaultReadLimit, a negative limit none.
	ReadLimit int64
	// AnyOrigin accepts a handshake whatever its Origin header; without
	// it, a browser's handshake from another host is refused.
	AnyOrigin bool
}

// Accept takes the WebSocket connection a peer opens with r, for an agent
// that listens for the bridge (or a stand-in for it) to dial it. When the
// handshake fails, Accept has answered r with an HTTP error.
func Accept(w http.ResponseWriter, r *http.Request, o AcceptOptions) (*Conn, error) {
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{InsecureSkipVerify: o.AnyOrigin})
	if err != nil {
		return nil, fmt.Errorf("agentclient: %w", err)
	}
	return newConn(ws, o.ReadLimit), nil
}
