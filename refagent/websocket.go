package refagent

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mcp-bridge/mcp-bridge/agentclient"
)

// maxFrame is the largest frame the agent reads from a WebSocket.
const maxFrame = 8 << 20

// Connect dials the bridge's WebSocket endpoint for the agent's dialect,
// bridgeURL + "/ws/" + dialect + "?agent=" + id (bridgeURL like
// "ws://127.0.0.1:7300", or wss:// with Options.TLS), with token as a
// bearer token when it is set (a static token or a JWT). It
// sends the introduction and subscriptions, then serves the connection
// until ctx ends (it then closes the connection and returns nil) or the
// connection closes (an error).
func (a *Agent) Connect(ctx context.Context, bridgeURL, token string) error {
	conn, err := a.dial(ctx, bridgeURL, token)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	return a.serveWS(ctx, conn, a.dialURL(bridgeURL))
}

// dial opens the WebSocket connection Connect serves.
func (a *Agent) dial(ctx context.Context, bridgeURL, token string) (*agentclient.Conn, error) {
	u := a.dialURL(bridgeURL)
	conn, err := agentclient.Dial(ctx, u, agentclient.Options{Token: token, TLS: a.tls, ReadLimit: maxFrame})
	if err != nil {
		return nil, fmt.Errorf("agent %s: connecting to %s: %w", a.id, u, err)
	}
	return conn, nil
}

// serveWS serves the agent on an open WebSocket connection to peer: it
// sends the introduction and subscriptions, then answers what it reads
// until ctx ends (it then closes the connection and returns nil, after a
// normal closure) or the connection closes (an error naming peer).
func (a *Agent) serveWS(ctx context.Context, conn *agentclient.Conn, peer string) error {
	defer conn.CloseNow()
	s, err := a.open(ctx, wsWriter{conn})
	if err != nil {
		return err
	}
	// Reads run until the connection closes: when ctx ends, the connection
	// is closed properly, which ends the read.
	closing := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(closing)
		conn.Close("the agent is stopping")
	})
	defer stop()
	if err := s.greet(); err != nil {
		return a.hangUp(ctx, s, closing, err)
	}
	for {
		frame, err := conn.Read(context.Background())
		if err != nil {
			return a.hangUp(ctx, s, closing, fmt.Errorf("agent %s: connection to %s: %w", a.id, peer, err))
		}
		s.deliver(frame)
	}
}

// hangUp ends a WebSocket session that stopped on err: nil when ctx ended,
// once the closing handshake is over.
func (a *Agent) hangUp(ctx context.Context, s *session, closing <-chan struct{}, err error) error {
	s.close(ctx, false)
	if ctx.Err() != nil {
		<-closing
		return nil
	}
	return err
}

// dialURL is the address of the bridge's endpoint for this agent.
func (a *Agent) dialURL(bridgeURL string) string {
	return strings.TrimRight(bridgeURL, "/") + "/ws/" + url.PathEscape(a.codec.Name()) + "?agent=" + url.QueryEscape(a.id)
}

// writeTimeout bounds one WebSocket write: a bridge that reads nothing
// for that long loses the connection.
const writeTimeout = 30 * time.Second

// wsWriter writes frames as WebSocket text messages.
type wsWriter struct{ conn *agentclient.Conn }

// write writes one frame. Its context is its own: the library closes the
// connection when a write's context ends, even just after the write, so a
// context that ends with the session would cut the closing handshake.
func (w wsWriter) write(frame []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	return w.conn.Write(ctx, frame)
}
