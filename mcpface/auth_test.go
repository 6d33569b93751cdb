package mcpface

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
)

// TestBearer: the token of an Authorization header, bearer scheme only.
func TestBearer(t *testing.T) {
	for _, tc := range []struct {
		header string
		token  string
		ok     bool
	}{
		{"Bearer abc", "abc", true},
		{"bearer abc", "abc", true},
		{"BEARER  abc ", "abc", true},
		{"Bearer ", "", false},
		{"Bearer", "", false},
		{"Basic YTpi", "", false},
		{"", "", false},
	} {
		r := httptest.NewRequest("POST", Path, nil)
		if tc.header != "" {
			r.Header.Set("Authorization", tc.header)
		}
		if token, ok := bearer(r); token != tc.token || ok != tc.ok {
			t.Errorf("%q: %q, %v; want %q, %v", tc.header, token, ok, tc.token, tc.ok)
		}
	}
}

// TestScopeAllows: a scope of no agents (or none at all) allows every
// agent; one of some agents only those, and never "any agent".
func TestScopeAllows(t *testing.T) {
	for _, tc := range []struct {
		s     *scope
		agent string
		want  bool
	}{
		{nil, "", true},
		{nil, "jules", true},
		{&scope{}, "jules", true},
		{&scope{sender: "claude"}, "jules", true},
		{&scope{agents: []string{"jules"}}, "jules", true},
		{&scope{agents: []string{"jules"}}, "sam", false},
		{&scope{agents: []string{"jules"}}, "", false},
		{&scope{agents: []string{}}, "jules", false},
	} {
		if got := tc.s.allows(tc.agent); got != tc.want {
			t.Errorf("%+v allows %q: %v, want %v", tc.s, tc.agent, got, tc.want)
		}
	}
}

// TestAuthenticate: what a request must present under each Auth, and the
// scope it is let in with: a static token's agents, or the agent a
// verified token names as the calls' sender.
func TestAuthenticate(t *testing.T) {
	verify := func(token string) (string, error) {
		if agent, ok := strings.CutPrefix(token, "jwt-for-"); ok {
			return agent, nil
		}
		return "", errors.New("signature invalid")
	}
	tokens := []Token{{Token: "all-of-it"}, {Token: "just-jules", Agents: []string{"jules"}}}
	for _, tc := range []struct {
		name      string
		auth      Auth
		header    string
		status    int
		challenge string // in WWW-Authenticate
		message   string // in the body
		agents    []string
		sender    string
	}{
		{"nothing asked", Auth{}, "", http.StatusOK, "", "", nil, ""},
		{"nothing asked, a token anyway", Auth{}, "Bearer whatever", http.StatusOK, "", "", nil, ""},
		{"tokens, none presented", Auth{Tokens: tokens}, "", http.StatusUnauthorized, `Bearer realm="mcp-bridge"`, "needs a bearer token", nil, ""},
		{"tokens, a wrong one", Auth{Tokens: tokens}, "Bearer nope", http.StatusUnauthorized, `error="invalid_token"`, "not valid here", nil, ""},
		{"tokens, not bearer", Auth{Tokens: tokens}, "Basic YTpi", http.StatusUnauthorized, `Bearer realm="mcp-bridge"`, "", nil, ""},
		{"a token of every agent", Auth{Tokens: tokens}, "Bearer all-of-it", http.StatusOK, "", "", nil, ""},
		{"a token of one agent", Auth{Tokens: tokens}, "Bearer just-jules", http.StatusOK, "", "", []string{"jules"}, ""},
		{"verify only, none presented", Auth{Verify: verify}, "", http.StatusOK, "", "", nil, ""},
		{"verify only, required, none presented", Auth{Verify: verify, Required: true}, "", http.StatusUnauthorized, `Bearer realm="mcp-bridge"`, "", nil, ""},
		{"a verified token", Auth{Verify: verify}, "Bearer jwt-for-claude", http.StatusOK, "", "", nil, "claude"},
		{"a token verify refuses", Auth{Tokens: tokens, Verify: verify}, "Bearer forged", http.StatusUnauthorized, `error="invalid_token"`, "signature invalid", nil, ""},
		{"a static token before verify", Auth{Tokens: tokens, Verify: verify}, "Bearer just-jules", http.StatusOK, "", "", []string{"jules"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &Face{}
			f.SetAuth(tc.auth)
			var got *scope
			reached := false
			h := f.authenticate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				reached, got = true, scopeOf(r.Context())
			}))
			r := httptest.NewRequest("POST", Path, nil)
			if tc.header != "" {
				r.Header.Set("Authorization", tc.header)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status || reached != (tc.status == http.StatusOK) {
				t.Fatalf("status %d (handler reached %v), want %d", w.Code, reached, tc.status)
			}
			if !strings.Contains(w.Header().Get("WWW-Authenticate"), tc.challenge) || !strings.Contains(w.Body.String(), tc.message) {
				t.Errorf("challenge %q, body %s; want %q and %q", w.Header().Get("WWW-Authenticate"), w.Body, tc.challenge, tc.message)
			}
			if !reached {
				return
			}
			var agents []string
			sender := ""
			if got != nil {
				agents, sender = got.agents, got.sender
			}
			if !slices.Equal(agents, tc.agents) || sender != tc.sender {
				t.Errorf("scope agents %q sender %q, want %q %q", agents, sender, tc.agents, tc.sender)
			}
		})
	}
}
