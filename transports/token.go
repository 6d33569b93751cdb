// Package transports holds what the bridge's transports share; each
// transport is a subpackage (ws, httpapi, stdio, upstream), and package
// reach is the registry of the ways they reach agents.
package transports

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// Token returns the credential an HTTP request (or WebSocket handshake)
// presents: a bearer token, or the token query parameter.
func Token(r *http.Request) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return r.URL.Query().Get("token")
}

// Authenticator checks what an HTTP request (or WebSocket handshake) of
// dialect ("" when it is to be detected) proves about who sends it, before
// its session is attached: the identity it proved (the zero Identity for
// none) and the static token it presented, or the error it is refused
// with (unauthorized).
type Authenticator func(r *http.Request, dialect string) (bridge.Identity, string, *canonical.Error)

// Credentials returns what r proves with a: Token(r) alone when a is nil.
func Credentials(a Authenticator, r *http.Request, dialect string) (bridge.Identity, string, *canonical.Error) {
	if a == nil {
		return bridge.Identity{}, Token(r), nil
	}
	return a(r, dialect)
}

// Core returns the bridge a way to reach agents is given (reach.Host).
func Core(h reach.Host) (*bridge.Bridge, error) {
	b, ok := h.Bridge.(*bridge.Bridge)
	if !ok || b == nil {
		return nil, fmt.Errorf("transports: the host's bridge is %T, not a *bridge.Bridge", h.Bridge)
	}
	return b, nil
}
