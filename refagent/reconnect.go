package refagent

import (
	"context"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// Backoff bounds the waits between attempts to reconnect: the first wait
// is Min (default 100 ms), each failed attempt doubles it up to Max
// (default 10 s), and each wait is drawn between half its length and its
// length, so that agents dropped together do not all come back at once.
type Backoff = agentclient.Backoff

// KeepConnected connects to the bridge as Connect does, and stays
// connected: each time the bridge goes away (it closes the connection with
// status 1001 going away, 1012 or 1013), the agent connects again after a
// backoff, retrying until it gets through, and introduces itself and
// subscribes anew. It returns nil when ctx ends, and an error when the
// first connection cannot be made or a connection ends any other way (it
// drops, or the bridge refuses the agent).
func (a *Agent) KeepConnected(ctx context.Context, bridgeURL, token string, b Backoff) error {
	u := a.dialURL(bridgeURL)
	r := &agentclient.Redialer{
		Dial:    func(ctx context.Context) (*agentclient.Conn, error) { return a.dial(ctx, bridgeURL, token) },
		Serve:   func(ctx context.Context, c *agentclient.Conn) error { return a.serveWS(ctx, c, u) },
		Backoff: b,
		Logger:  a.log.With("bridge", u),
	}
	return r.Run(ctx)
}
