// Package transports holds what the bridge's transports share; each
// transport is a subpackage (ws, httpapi, stdio).
package transports

import (
	"net/http"
	"strings"
)

// Token returns the credential an HTTP request (or WebSocket handshake)
// presents: a bearer token, or the token query parameter.
func Token(r *http.Request) string {
	if t, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return r.URL.Query().Get("token")
}
