package ws

import (
	"context"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// link delivers the bridge's messages over one WebSocket connection.
type link struct{ c *websocket.Conn }

// Send writes one text message; coder/websocket serialises concurrent
// writers.
func (l link) Send(ctx context.Context, out bridge.Outbound) error {
	return l.c.Write(ctx, websocket.MessageText, out.Frame)
}

func (link) Transport() string { return "websocket" }

// Abort ends a send in progress by closing the connection at once.
func (l link) Abort() { l.c.CloseNow() }

// Close ends the connection with a going-away close frame giving reason.
func (l link) Close(reason string) error {
	return l.c.Close(websocket.StatusGoingAway, truncate(reason))
}

// Ping checks the peer answers a WebSocket ping.
func (l link) Ping(ctx context.Context) error { return l.c.Ping(ctx) }
