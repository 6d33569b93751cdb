package mcpface

import (
	"context"
	"crypto/subtle"
	"net/http"
	"slices"
	"strings"
)

// Token is a bearer token MCP clients present, and the agents whose tools
// it may see and call (none: all).
type Token struct {
	Token  string
	Agents []string
}

// scopeKey keys the request's scope in its context.
type scopeKey struct{}

// scope is what one request may see: nil agents is everything.
type scope struct {
	agents []string
}

// allows reports whether the scope may see the agent id's tools; any
// agent's when id is "".
func (s *scope) allows(agent string) bool {
	return s == nil || s.agents == nil || (agent != "" && slices.Contains(s.agents, agent))
}

// scopeOf returns the scope of the request ctx belongs to; nil is all.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// authenticate wraps next: with tokens, a request must present one as
// "Authorization: Bearer T", or it is answered 401 with a WWW-Authenticate
// challenge; the token's scope goes with the request.
func authenticate(tokens []Token, next http.Handler) http.Handler {
	if len(tokens) == 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		presented, ok := bearer(r)
		if !ok {
			challenge(w, `Bearer realm="mcp-bridge"`, "this MCP endpoint needs a bearer token")
			return
		}
		for _, t := range tokens {
			if subtle.ConstantTimeCompare([]byte(presented), []byte(t.Token)) == 1 {
				s := &scope{agents: t.Agents}
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
				return
			}
		}
		challenge(w, `Bearer realm="mcp-bridge", error="invalid_token"`, "the bearer token is not valid here")
	})
}

// bearer returns the token of an "Authorization: Bearer T" header.
func bearer(r *http.Request) (string, bool) {
	h := r.Header.Get("Authorization")
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

func challenge(w http.ResponseWriter, header, msg string) {
	w.Header().Set("WWW-Authenticate", header)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	_, _ = w.Write([]byte(`{"error":"unauthorized","message":"` + msg + `"}` + "\n"))
}
