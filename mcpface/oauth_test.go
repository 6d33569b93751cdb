package mcpface

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"maps"
	"math/big"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/mcp-bridge/mcp-bridge/internal/syncbuf"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/modelcontextprotocol/go-sdk/auth/extauth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// authServer stands for an OAuth authorization server: keys made in the
// test, their JWKS served on loopback, and tokens it mints.
type authServer struct {
	t      *testing.T
	rsa    *rsa.PrivateKey
	ec     *ecdsa.PrivateKey
	issuer string // its URL: its metadata, /token (client credentials) and /jwks
	jwks   string // the URL of its JWKS
	// audience is the aud of the tokens /token mints, as an audience
	// mapper sets it.
	audience string
}

func newAuthServer(t *testing.T) *authServer {
	t.Helper()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	a := &authServer{t: t, rsa: rk, ec: testpki.ECKey(t)}
	b64 := base64.RawURLEncoding.EncodeToString
	point, err := a.ec.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	set, _ := json.Marshal(map[string]any{"keys": []map[string]string{
		{"kty": "RSA", "kid": "r1", "alg": "RS256", "use": "sig", "n": b64(rk.N.Bytes()), "e": b64(big.NewInt(int64(rk.E)).Bytes())},
		{"kty": "EC", "kid": "e1", "crv": "P-256", "x": b64(point[1:33]), "y": b64(point[33:])},
	}})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(set)
	})
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": a.issuer, "token_endpoint": a.issuer + "/token",
			"jwks_uri": a.jwks, "grant_types_supported": []string{"client_credentials"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic"}, "response_types_supported": []string{"code"},
			"code_challenge_methods_supported": []string{"S256"}})
	})
	mux.HandleFunc("POST /token", a.tokenEndpoint)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	a.issuer, a.jwks = srv.URL, srv.URL+"/jwks"
	return a
}

// oauth is the face's OAuth of this server, for resource ("": the
// request's), requiring scopes.
func (a *authServer) oauth(resource string, required ...string) *OAuth {
	v := trust.NewAccessVerifier(trust.FetchedKeySet(a.jwks, nil), a.issuer)
	return &OAuth{Resource: resource, ResourceName: "test bridge", AuthorizationServers: []string{a.issuer},
		ScopesSupported: []string{"tools.read", "tools.call"}, RequiredScopes: required,
		Verify: func(ctx context.Context, token, resource string) (*Grant, error) {
			g, r := v.Verify(ctx, token, resource)
			if r != nil {
				return nil, r
			}
			return &Grant{Subject: g.Subject, Client: g.Client, Scopes: g.Scopes, Claims: g.Claims}, nil
		}}
}

// claims are the claims of an access token of a, valid for an hour, for
// aud, granting scope; extra pairs add or (nil) remove claims.
func (a *authServer) claims(sub, aud, scope string, extra ...any) jwt.MapClaims {
	now := time.Now()
	c := jwt.MapClaims{"sub": sub, "iss": a.issuer, "aud": aud, "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(),
		"azp": "ide-client", "scope": scope}
	for i := 0; i+1 < len(extra); i += 2 {
		if extra[i+1] == nil {
			delete(c, extra[i].(string))
		} else {
			c[extra[i].(string)] = extra[i+1]
		}
	}
	return c
}

// token mints an access token of c: RS256 under kid r1, or ES256 under e1.
func (a *authServer) token(method jwt.SigningMethod, c jwt.MapClaims) string {
	a.t.Helper()
	tok := jwt.NewWithClaims(method, c)
	var key any = a.rsa
	tok.Header["kid"] = "r1"
	if method == jwt.SigningMethodES256 {
		key, tok.Header["kid"] = a.ec, "e1"
	}
	s, err := tok.SignedString(key)
	if err != nil {
		a.t.Fatal(err)
	}
	return s
}

// tokenEndpoint grants the client credentials of "robot" (secret
// "s3cret") an access token for a.audience of the scopes asked for.
func (a *authServer) tokenEndpoint(w http.ResponseWriter, r *http.Request) {
	id, secret, ok := r.BasicAuth()
	if !ok || id != "robot" || secret != "s3cret" || r.FormValue("grant_type") != "client_credentials" {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error":"invalid_client"}`))
		return
	}
	scope := r.FormValue("scope")
	token := a.token(jwt.SigningMethodES256, a.claims("service-account-robot", a.audience, scope, "azp", "robot"))
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "Bearer", "expires_in": 300, "scope": scope})
}

// initialize is an MCP initialize request, as a client sends it first.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// post sends an MCP message to the face with the Authorization header
// auth ("": none).
func (l *live) post(auth, body string) *http.Response {
	l.t.Helper()
	req, err := http.NewRequest(http.MethodPost, l.url+Path, strings.NewReader(body))
	if err != nil {
		l.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		l.t.Fatal(err)
	}
	l.t.Cleanup(func() { res.Body.Close() })
	return res
}

// TestOAuthChallenges: without a token, or with one that is bad, a
// request is answered 401 with a challenge naming the metadata's absolute
// URL (and invalid_token, with its reason, for a bad one); a good token
// without the required scopes 403 insufficient_scope; a good one, or a
// static token beside OAuth, goes through.
func TestOAuthChallenges(t *testing.T) {
	as := newAuthServer(t)
	l := serve(t, Options{OAuth: as.oauth("", "tools.call"), Tokens: []Token{{Token: "static-one"}}})
	resource := l.url + Path
	meta := `resource_metadata="` + l.url + MetadataPath + Path + `"`
	good := as.claims("ann", resource, "openid tools.call")
	hs, err := jwt.NewWithClaims(jwt.SigningMethodHS256, good).SignedString(publicPEM(t, &as.rsa.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		auth   string
		status int
		want   []string // in WWW-Authenticate
		not    string   // not in it
	}{
		{"no token", "", 401, []string{meta, `scope="tools.call"`}, "error="},
		{"not bearer", "Basic YTpi", 401, []string{meta}, "error="},
		{"good RS256", "Bearer " + as.token(jwt.SigningMethodRS256, good), 200, nil, ""},
		{"good ES256", "Bearer " + as.token(jwt.SigningMethodES256, good), 200, nil, ""},
		{"static token", "Bearer static-one", 200, nil, ""},
		{"unknown static token", "Bearer static-two", 401, []string{meta, `error="invalid_token"`, `error_description="the bearer token is not valid here`}, ""},
		{"expired", "Bearer " + as.token(jwt.SigningMethodRS256, as.claims("ann", resource, "tools.call", "exp", time.Now().Add(-time.Hour).Unix())),
			401, []string{meta, `error="invalid_token"`, "expired"}, ""},
		{"wrong issuer", "Bearer " + as.token(jwt.SigningMethodRS256, as.claims("ann", resource, "tools.call", "iss", "https://evil.example")),
			401, []string{`error="invalid_token"`, "issuer"}, ""},
		{"another resource's token", "Bearer " + as.token(jwt.SigningMethodRS256, as.claims("ann", "https://other.example/mcp", "tools.call")),
			401, []string{`error="invalid_token"`, "another resource"}, ""},
		{"alg none", "Bearer " + testpki.None(t, good), 401, []string{`error="invalid_token"`, `'none'`}, ""},
		{"HS256 with the JWKS key", "Bearer " + hs, 401, []string{`error="invalid_token"`, `'HS256'`}, ""},
		{"missing scope", "Bearer " + as.token(jwt.SigningMethodRS256, as.claims("ann", resource, "openid tools.read")),
			403, []string{meta, `error="insufficient_scope"`, `scope="tools.call"`}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := l.post(tc.auth, initialize)
			challenge := res.Header.Get("WWW-Authenticate")
			if res.StatusCode != tc.status {
				body, _ := io.ReadAll(res.Body)
				t.Fatalf("status %d, want %d; challenge %q; body %s", res.StatusCode, tc.status, challenge, body)
			}
			if tc.status == 200 {
				if challenge != "" {
					t.Errorf("a challenge on 200: %q", challenge)
				}
				return
			}
			if !strings.HasPrefix(challenge, "Bearer ") {
				t.Errorf("challenge %q is not Bearer", challenge)
			}
			for _, w := range tc.want {
				if !strings.Contains(challenge, w) {
					t.Errorf("challenge %q lacks %s", challenge, w)
				}
			}
			if tc.not != "" && strings.Contains(challenge, tc.not) {
				t.Errorf("challenge %q has %s", challenge, tc.not)
			}
		})
	}
}

func publicPEM(t *testing.T, k any) []byte {
	t.Helper()
	der, err := x509.MarshalPKIXPublicKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
}

// TestMetadata: both well-known URLs serve the RFC 9728 document, its
// resource the configured one or the /mcp URL the request reached; a face
// that is no OAuth resource server has none.
func TestMetadata(t *testing.T) {
	as := newAuthServer(t)
	for _, tc := range []struct {
		name     string
		opts     Options
		status   int
		resource string // "" : the request's
	}{
		{"the request's resource", Options{OAuth: as.oauth("")}, 200, ""},
		{"a configured resource", Options{OAuth: as.oauth("https://bridge.example.com/mcp")}, 200, "https://bridge.example.com/mcp"},
		{"no OAuth", Options{}, 404, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := serve(t, tc.opts)
			want := map[string]any{"resource": tc.resource, "authorization_servers": []any{as.issuer},
				"scopes_supported": []any{"tools.read", "tools.call"}, "bearer_methods_supported": []any{"header"}, "resource_name": "test bridge"}
			if tc.resource == "" {
				want["resource"] = l.url + Path
			}
			for _, p := range []string{MetadataPath, MetadataPath + Path} {
				res, err := http.Get(l.url + p)
				if err != nil {
					t.Fatal(err)
				}
				var got map[string]any
				err = json.NewDecoder(res.Body).Decode(&got)
				res.Body.Close()
				if res.StatusCode != tc.status {
					t.Fatalf("%s: status %d, want %d", p, res.StatusCode, tc.status)
				}
				if tc.status != 200 {
					continue
				}
				if err != nil || !jsonEqual(got, want) || res.Header.Get("Content-Type") != "application/json" {
					t.Errorf("%s: %v %v (%s)\nwant %v", p, got, err, res.Header.Get("Content-Type"), want)
				}
			}
		})
	}
	if got := MetadataURL("https://bridge.example.com/mcp"); got != "https://bridge.example.com"+MetadataPath+"/mcp" {
		t.Errorf("MetadataURL: %s", got)
	}
	if got := MetadataURL("https://bridge.example.com/"); got != "https://bridge.example.com"+MetadataPath {
		t.Errorf("MetadataURL of a root: %s", got)
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// TestOAuthClientAndPolicies: the official go-sdk client connects with an
// access token and calls a tool; each token sees the tools its policies
// grant, and a tool they do not grant is unknown to it; static tokens
// keep their agents and are not subject to policies.
func TestOAuthClientAndPolicies(t *testing.T) {
	as := newAuthServer(t)
	l := serve(t, Options{OAuth: as.oauth(""), Tokens: []Token{{Token: "static-other", Agents: []string{"other"}}},
		Policies: []Policy{
			{Scope: "tools.admin", Allow: []string{"*"}},
			{Scope: "tools.call", Allow: []string{"calc:*", "*__echo"}, Deny: []string{"calc:fail"}},
			{Claim: "groups", Value: "ops", Allow: []string{"ops:*"}},
		}})
	l.attach("swarm", "calc", "add", "echo", "fail")
	l.attach("swarm", "ops", "echo")
	l.attach("swarm", "other", "add", "echo")
	resource := l.url + Path
	for _, tc := range []struct {
		name    string
		token   string
		tools   []string
		hidden  string // a tool it may not call
		version string // the protocol version asked for; "": the client's latest (2026-07-28, stateless)
	}{
		{"tools.call", as.token(jwt.SigningMethodES256, as.claims("ann", resource, "tools.call")),
			[]string{"calc__add", "calc__echo", "ops__echo", "other__echo"}, "calc__fail", ""},
		{"tools.call, in a session of 2025-11-25", as.token(jwt.SigningMethodES256, as.claims("ann", resource, "tools.call")),
			[]string{"calc__add", "calc__echo", "ops__echo", "other__echo"}, "calc__fail", "2025-11-25"},
		{"tools.admin", as.token(jwt.SigningMethodRS256, as.claims("root", resource, "tools.admin")),
			[]string{"calc__add", "calc__echo", "calc__fail", "ops__echo", "other__add", "other__echo"}, "", ""},
		{"a claim", as.token(jwt.SigningMethodRS256, as.claims("olga", resource, "openid", "groups", []string{"dev", "ops"})),
			[]string{"ops__echo"}, "calc__add", ""},
		{"no policy", as.token(jwt.SigningMethodRS256, as.claims("nobody", resource, "openid")), nil, "calc__add", ""},
		{"static token", "static-other", []string{"other__add", "other__echo"}, "calc__add", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := l.connect(tc.token, tc.version)
			got := slices.Sorted(maps.Keys(c.tools()))
			if !slices.Equal(got, tc.tools) {
				t.Errorf("tools %v, want %v", got, tc.tools)
			}
			if len(tc.tools) > 0 {
				name := tc.tools[0]
				res, err := c.call(name, map[string]any{"a": 2, "b": 40})
				if err != nil || res.IsError {
					t.Errorf("%s: %v %v", name, err, res)
				}
			}
			if tc.hidden != "" {
				if res, err := c.call(tc.hidden, map[string]any{}); err == nil && !res.IsError {
					t.Errorf("%s is called: %s", tc.hidden, text(res))
				}
			}
		})
	}
}

// TestListsEmpty: with no agent connected, tools/list answers an empty
// array, not null, as the MCP schema wants; the other lists are arrays
// too.
func TestListsEmpty(t *testing.T) {
	l := serve(t, Options{Stateless: true})
	for method, want := range map[string]string{"tools/list": `"tools":[]`, "resources/list": `"resources":[{`,
		"resources/templates/list": `"resourceTemplates":[{`} {
		res := l.post("", `{"jsonrpc":"2.0","id":2,"method":"`+method+`","params":{}}`)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 || !bytes.Contains(body, []byte(want)) {
			t.Errorf("%s: %d %s; want %s", method, res.StatusCode, body, want)
		}
	}
}

// TestClaimHolds: a policy's claim matches a value equal to it, or an
// array holding it; numbers and booleans by their text.
func TestClaimHolds(t *testing.T) {
	for _, tc := range []struct {
		claim any
		want  bool
	}{
		{"ops", true}, {"opsx", false}, {[]any{"dev", "ops"}, true}, {[]any{"dev"}, false},
		{nil, false}, {map[string]any{"ops": true}, false}, {[]any{[]any{"ops"}}, true},
	} {
		if got := claimHolds(tc.claim, "ops"); got != tc.want {
			t.Errorf("%v holds ops: %v", tc.claim, got)
		}
	}
	if !claimHolds(true, "true") || !claimHolds(float64(7), "7") {
		t.Error("a boolean or number claim by its text")
	}
}

// TestRateLimits: over its per_tool or per_client rate a client's
// tools/call gets an isError result saying so, other clients keep theirs,
// and a client flooding /mcp is answered 429; each is counted.
func TestRateLimits(t *testing.T) {
	tokens := []Token{{Token: "one"}, {Token: "two"}, {Token: "three"}}
	t.Run("per tool", func(t *testing.T) {
		l := serve(t, Options{Tokens: tokens, Limits: Limits{PerTool: []ToolRate{{Pattern: "*__echo", PerSecond: 0.001}}}})
		l.attach("swarm", "calc", "add", "echo")
		c := l.connect("one")
		steps := []struct {
			tool    string
			limited bool
		}{{"calc__echo", false}, {"calc__echo", true}, {"calc__add", false}, {"calc__add", false}}
		for i, s := range steps {
			res, err := c.call(s.tool, map[string]any{"a": 1, "b": 2})
			if err != nil {
				t.Fatal(err)
			}
			if res.IsError != s.limited || s.limited && !strings.Contains(text(res), `rate limited: this client calls the tools of "*__echo" faster than 0.001 a second (mcp.limits.per_tool)`) {
				t.Errorf("call %d of %s: isError %v: %s", i, s.tool, res.IsError, text(res))
			}
		}
		if res, err := l.connect("two").call("calc__echo", map[string]any{}); err != nil || res.IsError {
			t.Errorf("another client: %v %s", err, text(res))
		}
		if n := testutil.ToFloat64(l.f.metrics.limited.WithLabelValues(limitPerTool)); n != 1 {
			t.Errorf("mcp_rate_limited_total{limit=per_tool} = %v", n)
		}
		eventually(t, "mcp_tool_calls_total{outcome=rate_limited} is 1", func() bool {
			return testutil.ToFloat64(l.f.metrics.calls.WithLabelValues("calc__echo", outcomeLimited)) == 1
		})
	})
	t.Run("per client", func(t *testing.T) {
		l := serve(t, Options{Tokens: tokens, Limits: Limits{PerClient: 0.001}})
		l.attach("swarm", "calc", "add")
		c := l.connect("one")
		if res, err := c.call("calc__add", map[string]any{"a": 1, "b": 2}); err != nil || res.IsError {
			t.Fatalf("first call: %v %s", err, text(res))
		}
		res, err := c.call("calc__add", map[string]any{"a": 1, "b": 2})
		if err != nil || !res.IsError || !strings.Contains(text(res), "(mcp.limits.per_client); retry after") {
			t.Errorf("second call: %v %s", err, text(res))
		}
		if res, err := l.connect("two").call("calc__add", map[string]any{"a": 1, "b": 2}); err != nil || res.IsError {
			t.Errorf("another client: %v %s", err, text(res))
		}
		// A flood of requests, whatever they are, meets 429.
		limited := 0
		for range 3 * FloodFloor {
			res := l.post("Bearer three", `{"jsonrpc":"2.0","id":3,"method":"ping"}`)
			if res.StatusCode == http.StatusTooManyRequests {
				limited++
				if res.Header.Get("Retry-After") == "" {
					t.Error("429 without Retry-After")
				}
			}
		}
		if limited == 0 {
			t.Error("no 429 for a flood")
		}
		if n := testutil.ToFloat64(l.f.metrics.limited.WithLabelValues(limitHTTP)); n != float64(limited) {
			t.Errorf("mcp_rate_limited_total{limit=http} = %v, want %d", n, limited)
		}
	})
}

// TestAudit: every tools/call writes one log line saying who called which
// tool of which agent, how it ended and how long it took; no token.
func TestAudit(t *testing.T) {
	as := newAuthServer(t)
	var logs syncbuf.Buffer
	l := serve(t, Options{OAuth: as.oauth(""), Tokens: []Token{{Token: "static-secret"}},
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	l.attach("swarm", "calc", "add", "fail")
	token := as.token(jwt.SigningMethodRS256, as.claims("ann", l.url+Path, "tools.call"))
	if _, err := l.connect(token).call("calc__add", map[string]any{"a": 1, "b": 2}); err != nil {
		t.Fatal(err)
	}
	static := l.connect("static-secret")
	if _, err := static.call("calc__fail", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if res, err := static.call("calc__nothing", map[string]any{}); err == nil && !res.IsError {
		t.Fatal("an unknown tool is called")
	}
	// A call's audit line is written once its answer is on its way.
	var lines []map[string]any
	eventually(t, "three audit lines", func() bool {
		lines = nil
		for line := range strings.SplitSeq(logs.String(), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(line), &m) == nil && m["msg"] == "mcp: tools/call" {
				lines = append(lines, m)
			}
		}
		return len(lines) >= 3
	})
	if len(lines) != 3 {
		t.Fatalf("%d audit lines, want 3:\n%s", len(lines), logs.String())
	}
	for i, want := range []map[string]any{
		{"subject": "ann", "client": "mcpface-test", "tool": "calc__add", "agent": "calc", "outcome": "success", "oauth_client": "ide-client"},
		{"subject": "mcp.tokens[0]", "client": "mcpface-test", "tool": "calc__fail", "agent": "calc", "outcome": "failure"},
		{"subject": "mcp.tokens[0]", "client": "mcpface-test", "tool": "calc__nothing", "agent": "", "outcome": "unknown_tool"},
	} {
		for k, v := range want {
			if lines[i][k] != v {
				t.Errorf("line %d: %s is %v, want %v", i, k, lines[i][k], v)
			}
		}
		if _, ok := lines[i]["latency_ms"].(float64); !ok || lines[i]["time"] == nil {
			t.Errorf("line %d has no latency_ms or time: %v", i, lines[i])
		}
	}
	if strings.Contains(logs.String(), token) || strings.Contains(logs.String(), "static-secret") {
		t.Error("a token in the log")
	}
}

// TestClientCredentials: the official go-sdk client, given only client
// credentials, finds the authorization server through the face's 401 and
// its metadata, gets a token of the scopes the challenge names from it,
// and calls a tool. The authorization server puts the resource in aud as
// an audience mapper would: the client sends no RFC 8707 resource.
func TestClientCredentials(t *testing.T) {
	as := newAuthServer(t)
	l := serve(t, Options{OAuth: as.oauth("", "tools.call"), Policies: []Policy{{Scope: "tools.call", Allow: []string{"calc:add"}}}})
	as.audience = l.url + Path
	l.attach("swarm", "calc", "add", "echo")
	h, err := extauth.NewClientCredentialsHandler(&extauth.ClientCredentialsHandlerConfig{
		Credentials: &oauthex.ClientCredentials{ClientID: "robot", ClientSecretAuth: &oauthex.ClientSecretAuth{ClientSecret: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	s, err := sdk.NewClient(&sdk.Implementation{Name: "robot", Version: "1"}, nil).
		Connect(ctx, &sdk.StreamableClientTransport{Endpoint: l.url + Path, OAuthHandler: h}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != "calc__add" {
		t.Fatalf("tools/list: %v %+v", err, tools)
	}
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "calc__add", Arguments: map[string]any{"a": 2, "b": 40}})
	if err != nil || res.IsError || !strings.Contains(text(res), "42") {
		t.Fatalf("tools/call: %v %+v", err, res)
	}
}
