package mcpface

import (
	"context"
	"crypto/subtle"
	"encoding/json"
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

// scope is what one request may see: nil agents is everything. sender,
// when set, is the agent id its token proved, which its calls carry.
type scope struct {
	agents []string
	sender string
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

// Auth is what an MCP client must present on HTTP, and what it may then
// see: one of Tokens, or a token Verify accepts (a JWT), whose agent id
// the client's requests then carry as their sender. With no tokens and no
// Verify, nothing is asked; with Verify but no tokens, a bearer token is
// asked for only when Required.
type Auth struct {
	Tokens []Token
	// Verify checks a bearer token that is none of Tokens, and returns the
	// agent id it names; nil: only Tokens.
	Verify func(token string) (agent string, err error)
	// Required asks every request for a bearer token.
	Required bool
}

// SetAuth replaces what MCP clients must present; requests already in
// flight keep what they were let in with.
func (f *Face) SetAuth(a Auth) { f.auth.Store(&a) }

// authenticate wraps next: a request presents "Authorization: Bearer T"
// when the Auth in force asks for one, or is answered 401 with a
// WWW-Authenticate challenge; the token's scope goes with the request.
func (f *Face) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := f.auth.Load()
		if len(a.Tokens) == 0 && a.Verify == nil {
			next.ServeHTTP(w, r)
			return
		}
		presented, ok := bearer(r)
		if !ok {
			if len(a.Tokens) == 0 && !a.Required {
				next.ServeHTTP(w, r)
				return
			}
			challenge(w, `Bearer realm="mcp-bridge"`, "this MCP endpoint needs a bearer token")
			return
		}
		for _, t := range a.Tokens {
			if subtle.ConstantTimeCompare([]byte(presented), []byte(t.Token)) == 1 {
				s := &scope{agents: t.Agents}
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
				return
			}
		}
		if a.Verify != nil {
			agent, err := a.Verify(presented)
			if err == nil {
				s := &scope{sender: agent}
				next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
				return
			}
			challenge(w, `Bearer realm="mcp-bridge", error="invalid_token"`, "the bearer token is not valid here: "+err.Error())
			return
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
	body, _ := json.Marshal(map[string]string{"error": "unauthorized", "message": msg})
	_, _ = w.Write(append(body, '\n'))
}
