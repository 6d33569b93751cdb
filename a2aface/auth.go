package a2aface

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// Auth is what an A2A client must present: one of Tokens, or a token
// Verify accepts (a JWT), whose agent id the client's requests then carry
// as their sender. With neither, nothing is asked; with Verify alone, a
// bearer token is asked for only when Required.
type Auth struct {
	Tokens []Token
	// Verify checks a bearer token that is none of Tokens, and returns the
	// agent id it names; nil: only Tokens.
	Verify func(token string) (agent string, err error)
	// Required asks every request for a bearer token.
	Required bool
}

// Token is a bearer token A2A clients present, and the agents it may
// reach (none: all).
type Token struct {
	Token  string
	Agents []string
}

// asks reports whether a request must or may present a token.
func (a *Auth) asks() bool { return len(a.Tokens) > 0 || a.Verify != nil }

// scope is what one request may reach, and who made it.
type scope struct {
	agents []string // nil: every agent
	sender string   // the agent id a JWT proved; "": the configured sender
	// caller names the client, whose tasks ListTasks lists: a token's
	// place in mcp.tokens, a JWT's agent, or (no token) its address.
	caller string
}

// allows reports whether the scope may reach agent.
func (s *scope) allows(agent string) bool {
	return s == nil || s.agents == nil || slices.Contains(s.agents, agent)
}

type scopeKey struct{}

// scopeOf returns the scope of the request ctx belongs to; nil: all.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// callerOf names the client of the request ctx belongs to.
func callerOf(ctx context.Context) (string, error) {
	if s := scopeOf(ctx); s != nil {
		return s.caller, nil
	}
	return "", nil
}

// authenticate wraps next: a request presents "Authorization: Bearer T"
// when the Auth in force asks for one, or is answered 401.
func (f *Face) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s, ok := f.admit(r, f.auth.Load())
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp-bridge"`)
			writeError(w, http.StatusUnauthorized, "this A2A endpoint needs a valid bearer token")
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
	})
}

// admit returns the scope of the request's credential; false when it
// presents none it must, or one not valid here.
func (f *Face) admit(r *http.Request, a *Auth) (*scope, bool) {
	anonymous := &scope{caller: "address " + host(r.RemoteAddr)}
	if !a.asks() {
		return anonymous, true
	}
	presented, ok := bearer(r)
	if !ok {
		return anonymous, len(a.Tokens) == 0 && !a.Required
	}
	for i, t := range a.Tokens {
		if subtle.ConstantTimeCompare([]byte(presented), []byte(t.Token)) == 1 {
			return &scope{agents: t.Agents, caller: fmt.Sprintf("mcp.tokens[%d]", i)}, true
		}
	}
	if a.Verify != nil {
		if agent, err := a.Verify(presented); err == nil {
			return &scope{sender: agent, caller: "agent " + agent}, true
		}
	}
	return nil, false
}

// bearer returns the token of an "Authorization: Bearer T" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// host is the host of a remote address host:port.
func host(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// writeError answers status with a JSON body {error}.
func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]string{"error": msg})
	_, _ = w.Write(append(body, '\n'))
}

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	body, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	_, _ = w.Write(append(body, '\n'))
}
