package agentclient

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"

	"github.com/coder/websocket"
)

// Options configure Dial.
type Options struct {
	// Token, when set, is sent as "Authorization: Bearer <Token>": a
	// static token or a JWT. It replaces an Authorization in Header.
	Token string
	// Header holds more headers for the opening handshake.
	Header http.Header
	// TLS, when set, is the TLS a wss:// URL is dialed with: the CAs
	// trusted and the client certificate presented (nil: Go's defaults).
	TLS *tls.Config
	// ReadLimit is the largest frame the connection reads, in bytes: 0 is
	// DefaultReadLimit, a negative limit none.
	ReadLimit int64
}

// Dial opens a WebSocket connection to url (ws:// or wss://), such as the
// bridge's endpoint for a dialect, "ws://HOST:PORT/ws/DIALECT?agent=ID".
// ctx bounds the dialing only: the connection outlives it. The error does
// not repeat url, which the caller knows, but says the HTTP status the
// handshake got, if any.
func Dial(ctx context.Context, url string, o Options) (*Conn, error) {
	opts := &websocket.DialOptions{}
	if len(o.Header) > 0 || o.Token != "" {
		opts.HTTPHeader = o.Header.Clone()
		if opts.HTTPHeader == nil {
			opts.HTTPHeader = http.Header{}
		}
		if o.Token != "" {
			opts.HTTPHeader.Set("Authorization", "Bearer "+o.Token)
		}
	}
	if o.TLS != nil {
		opts.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: o.TLS}}
	}
	ws, resp, err := websocket.Dial(ctx, url, opts)
	if err != nil {
		if resp != nil {
			return nil, fmt.Errorf("agentclient: HTTP %s: %w", resp.Status, err)
		}
		return nil, fmt.Errorf("agentclient: %w", err)
	}
	return newConn(ws, o.ReadLimit), nil
}
