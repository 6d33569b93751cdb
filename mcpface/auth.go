package mcpface

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Token is a bearer token MCP clients present, and the agents whose tools
// it may see and call (none: all).
type Token struct {
	Token  string
	Agents []string
}

// scopeKey keys the request's scope in its context.
type scopeKey struct{}

// scope is what one request may see, and who made it. nil agents is every
// agent; nil tools every tool. sender, when set, is the agent id its token
// proved, which its calls carry.
type scope struct {
	agents []string
	tools  func(*entry) bool
	sender string
	// client keys the client's rates: an access token's subject, a static
	// token, a JWT's agent, or (no token) the client's address.
	client string
	// subject names the client in the audit log, never with a secret:
	// the access token's subject, "mcp.tokens[i]", the JWT's agent.
	subject string
	// oauthClient is the OAuth client an access token was issued to.
	oauthClient string
}

// allows reports whether the scope may see the agent id's tools; any
// agent's when id is "".
func (s *scope) allows(agent string) bool {
	return s == nil || s.agents == nil || (agent != "" && slices.Contains(s.agents, agent))
}

// all reports whether the scope sees every tool.
func (s *scope) all() bool { return s == nil || s.agents == nil && s.tools == nil }

// shows reports whether the scope may see and call the tool of e.
func (s *scope) shows(e *entry) bool {
	return s.all() || s.allows(e.tool.Agent) && (s.tools == nil || s.tools(e))
}

// clientKey keys the rates of the scope's client; a client on stdio has
// no scope.
func (s *scope) clientKey() string {
	if s == nil {
		return "stdio"
	}
	return s.client
}

// subjectName names the scope's client in the audit log.
func (s *scope) subjectName() string {
	switch {
	case s == nil:
		return "stdio"
	case s.subject != "":
		return s.subject
	}
	return s.client
}

// scopeOf returns the scope of the request ctx belongs to; nil is all.
func scopeOf(ctx context.Context) *scope {
	s, _ := ctx.Value(scopeKey{}).(*scope)
	return s
}

// Auth is what an MCP client must present on HTTP, and what it may then
// see: one of Tokens, an OAuth access token (OAuth), or a token Verify
// accepts (a JWT), whose agent id the client's requests then carry as their
// sender. With no tokens, no OAuth and no Verify, nothing is asked; with
// Verify alone, a bearer token is asked for only when Required.
type Auth struct {
	Tokens []Token
	// Verify checks a bearer token that is none of Tokens, and returns the
	// agent id it names; nil: only Tokens.
	Verify func(token string) (agent string, err error)
	// Required asks every request for a bearer token.
	Required bool
	// OAuth, when set, makes the face an OAuth 2.1 resource server.
	OAuth *OAuth
	// Policies grant access tokens their tools; none: every tool.
	Policies []Policy
	// Limits bound how often one client may call tools.
	Limits Limits
}

// OAuth makes the face an OAuth 2.1 resource server: it takes access
// tokens issued for it, and describes itself at MetadataPath (RFC 9728).
type OAuth struct {
	// Resource is the face's identifier (RFC 8707); "": the /mcp URL a
	// request reached, <scheme>://<Host>/mcp.
	Resource string
	// ResourceName names it for people in its metadata.
	ResourceName string
	// AuthorizationServers issue its tokens.
	AuthorizationServers []string
	// ScopesSupported are the scopes its metadata lists.
	ScopesSupported []string
	// RequiredScopes must all be granted by every token.
	RequiredScopes []string
	// Verify checks an access token issued for resource, and says what it
	// grants.
	Verify func(ctx context.Context, token, resource string) (*Grant, error)
}

// Grant is what a verified access token grants its holder.
type Grant struct {
	Subject string         // who holds it
	Client  string         // the OAuth client it was issued to; "" when unnamed
	Scopes  []string       // the scopes it grants
	Claims  map[string]any // all its claims, for policies
}

// authState is an Auth with its policies and limits made ready.
type authState struct {
	Auth
	policies []policy
	limiter  *limiter // nil: no limits
}

// SetAuth replaces what MCP clients must present, and their policies and
// limits; requests already in flight keep what they were let in with.
// Rates already counted stay while the limits are the same.
func (f *Face) SetAuth(a Auth) error {
	ps, err := compilePolicies(a.Policies)
	if err != nil {
		return err
	}
	st := &authState{Auth: a, policies: ps}
	if old := f.auth.Load(); old != nil && reflect.DeepEqual(old.Limits, a.Limits) {
		st.limiter = old.limiter
	} else if st.limiter, err = newLimiter(a.Limits); err != nil {
		return err
	}
	f.auth.Store(st)
	return nil
}

// asks reports whether a request must or may present a token.
func (a *authState) asks() bool { return len(a.Tokens) > 0 || a.Verify != nil || a.OAuth != nil }

// authenticate wraps next: a request presents "Authorization: Bearer T"
// when the Auth in force asks for one, or is answered 401 with a
// WWW-Authenticate challenge (403 for an access token without the required
// scopes); the token's scope goes with the request, and a client sending
// requests faster than its limits allow is answered 429.
func (f *Face) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a := f.auth.Load()
		s, ok := f.admit(w, r, a)
		if !ok {
			return
		}
		if wait, limited := a.limiter.flood(s.client); limited {
			f.metrics.limited.WithLabelValues(limitHTTP).Inc()
			w.Header().Set("Retry-After", strconv.Itoa(int((wait+time.Second-1)/time.Second)))
			writeError(w, http.StatusTooManyRequests, "rate_limited",
				fmt.Sprintf("too many requests from this client; retry after %s (mcp.limits.per_client)", wait.Round(time.Millisecond)))
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), scopeKey{}, s)))
	})
}

// admit returns the scope of the request's credential, or answers it 401
// or 403 and returns false.
func (f *Face) admit(w http.ResponseWriter, r *http.Request, a *authState) (*scope, bool) {
	anonymous := &scope{client: "address " + host(r.RemoteAddr)}
	if !a.asks() {
		return anonymous, true
	}
	presented, ok := bearer(r)
	if !ok {
		if len(a.Tokens) == 0 && a.OAuth == nil && !a.Required {
			return anonymous, true
		}
		a.challenge(w, r, http.StatusUnauthorized, "", "this MCP endpoint needs a bearer token")
		return nil, false
	}
	for i, t := range a.Tokens {
		if subtle.ConstantTimeCompare([]byte(presented), []byte(t.Token)) == 1 {
			name := fmt.Sprintf("mcp.tokens[%d]", i)
			return &scope{agents: t.Agents, client: "token " + t.Token, subject: name}, true
		}
	}
	var refused error
	if o := a.OAuth; o != nil {
		g, err := o.Verify(r.Context(), presented, a.resource(r))
		if err == nil {
			if missing := missingScopes(g.Scopes, o.RequiredScopes); len(missing) > 0 {
				a.challenge(w, r, http.StatusForbidden, "insufficient_scope",
					"the access token does not grant the scopes this resource requires: "+strings.Join(missing, " "))
				return nil, false
			}
			return &scope{tools: a.toolsOf(g), client: "subject " + g.Subject, subject: g.Subject, oauthClient: g.Client}, true
		}
		refused = err
	}
	if a.Verify != nil {
		agent, err := a.Verify(presented)
		if err == nil {
			return &scope{sender: agent, client: "agent " + agent, subject: agent}, true
		}
		if refused == nil {
			refused = err
		}
	}
	msg := "the bearer token is not valid here"
	if refused != nil {
		msg += ": " + refused.Error()
	}
	a.challenge(w, r, http.StatusUnauthorized, "invalid_token", msg)
	return nil, false
}

// missingScopes returns the scopes of required that granted lacks.
func missingScopes(granted, required []string) []string {
	var out []string
	for _, s := range required {
		if !slices.Contains(granted, s) {
			out = append(out, s)
		}
	}
	return out
}

// resource is the face's identifier for a request: the configured one, or
// the /mcp URL the request reached.
func (a *authState) resource(r *http.Request) string {
	if a.OAuth != nil && a.OAuth.Resource != "" {
		return a.OAuth.Resource
	}
	return origin(r) + Path
}

// origin is <scheme>://<Host> of the URL a request reached.
func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// host is the host of a remote address host:port.
func host(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// challenge answers a request status (401 or 403) with a WWW-Authenticate
// challenge: under OAuth, where the resource's metadata is, and the scopes
// it requires; code and desc say what was wrong with the token presented
// (code "" when none was).
func (a *authState) challenge(w http.ResponseWriter, r *http.Request, status int, code, desc string) {
	params := []string{`realm="mcp-bridge"`}
	if o := a.OAuth; o != nil {
		params = append(params, fmt.Sprintf("resource_metadata=%q", MetadataURL(a.resource(r))))
		if len(o.RequiredScopes) > 0 {
			params = append(params, fmt.Sprintf("scope=%q", strings.Join(o.RequiredScopes, " ")))
		}
	}
	if code != "" {
		params = append(params, fmt.Sprintf("error=%q", code), fmt.Sprintf("error_description=%q", quotable(desc)))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	body := "unauthorized"
	if code != "" {
		body = code
	}
	writeError(w, status, body, desc)
}

// quotable makes s fit a quoted string of a challenge (RFC 6750 3: no
// " or \, printable ASCII only).
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '"':
			return '\''
		case r == '\\':
			return '/'
		case r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
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

// writeError answers status with a JSON body {error, message}.
func writeError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	body, _ := json.Marshal(map[string]string{"error": code, "message": msg})
	_, _ = w.Write(append(body, '\n'))
}
