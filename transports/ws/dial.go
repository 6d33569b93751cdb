package ws

import (
	"context"
	"crypto/tls"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Dialer keeps the bridge connected to an agent that listens for
// WebSocket connections, redialling with exponential backoff.
type Dialer struct {
	Bridge *bridge.Bridge
	// URL is the agent's ws:// or wss:// address.
	URL string
	// AgentID and Dialect say who is expected at URL; Token, when set, is
	// sent as "Authorization: Bearer" (and satisfies the agent's
	// configured token).
	AgentID, Dialect, Token string
	// BackoffMin and BackoffMax bound the wait between attempts (defaults
	// 100 ms and 10 s). The wait doubles after each failure and starts
	// over once a connection has lasted longer than BackoffMax.
	BackoffMin, BackoffMax time.Duration
	// TLS, when set, is the TLS a wss:// URL is dialled with (nil: Go's
	// defaults, the system's CAs).
	TLS    *tls.Config
	Logger *slog.Logger
}

// Run dials and serves until ctx ends.
func (d *Dialer) Run(ctx context.Context) {
	minWait, maxWait := d.BackoffMin, d.BackoffMax
	if minWait <= 0 {
		minWait = 100 * time.Millisecond
	}
	if maxWait < minWait {
		maxWait = max(10*time.Second, minWait)
	}
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	wait := minWait
	for ctx.Err() == nil {
		start := time.Now()
		err := d.once(ctx)
		if ctx.Err() != nil {
			return
		}
		if time.Since(start) > maxWait {
			wait = minWait
		}
		log.Warn("agent connection lost; redialling", "agent", d.AgentID, "url", redactURL(d.URL), "error", err, "in", wait)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		wait = min(wait*2, maxWait)
	}
}

// once dials the agent and serves the connection until it ends.
func (d *Dialer) once(ctx context.Context) error {
	h := http.Header{}
	if d.Token != "" {
		h.Set("Authorization", "Bearer "+d.Token)
	}
	opts := &websocket.DialOptions{HTTPHeader: h}
	if d.TLS != nil {
		opts.HTTPClient = &http.Client{Transport: &http.Transport{TLSClientConfig: d.TLS, Proxy: http.ProxyFromEnvironment}}
	}
	c, _, err := websocket.Dial(ctx, d.URL, opts)
	if err != nil {
		return err
	}
	s, err := d.Bridge.Attach(link{c}, bridge.AttachOptions{Dialect: d.Dialect, AgentID: d.AgentID, Token: d.Token, Remote: redactURL(d.URL), Reached: true})
	if err != nil {
		c.Close(websocket.StatusPolicyViolation, truncate(err.Error()))
		return err
	}
	_, err = carry(ctx, c, s, d.Bridge.MaxFrame(), source{})
	return err
}

// redactURL is a URL fit for logs: a token in its query is hidden.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.RawQuery == "" {
		return s
	}
	q := u.Query()
	for k := range q {
		if strings.EqualFold(k, "token") || strings.EqualFold(k, "access_token") {
			q.Set(k, "[REDACTED]")
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}
