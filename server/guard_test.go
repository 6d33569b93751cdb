package server

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

const (
	secret   = "a-secret-of-at-least-32-bytes-for-hs256"
	issuer   = "https://issuer.test"
	audience = "mcp-bridge"
)

// testGuard returns a guard of the credentials c's auth and limits make,
// and the registry its metrics are in.
func testGuard(t *testing.T, c *config.Config) (*guard, *prometheus.Registry) {
	t.Helper()
	cr, err := loadCredentials(c)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	g, err := newGuard(cr, reg)
	if err != nil {
		t.Fatal(err)
	}
	return g, reg
}

// jwtConfig is a config whose auth verifies HS256 tokens of issuer for
// audience; required asks every agent for one.
func jwtConfig(required bool) *config.Config {
	c := config.Default()
	c.Auth.JWT = &config.JWT{HS256Secret: secret, Issuer: issuer, Audience: audience, SubjectClaim: "sub", Required: required}
	return c
}

// authCount is bridge_auth_total{method, result}.
func authCount(t *testing.T, reg *prometheus.Registry, method, result string) int {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "bridge_auth_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == method && labels["result"] == result {
				return int(m.GetCounter().GetValue())
			}
		}
	}
	return 0
}

// TestMessageToken: the JWT of a message's authentication member.
func TestMessageToken(t *testing.T) {
	for _, tc := range []struct {
		auth    string
		token   string
		carries bool
	}{
		{``, "", false},
		{`{"type":"jwt","token":"a.b.c"}`, "a.b.c", true},
		{`{"type":"JWT","token":"a.b.c"}`, "a.b.c", true},
		{`{"token":"a.b.c"}`, "a.b.c", true},
		{`{"type":"apikey","token":"k"}`, "", true},
		{`{"type":"jwt"}`, "", true},
	} {
		token, carries := messageToken(canonical.JSON(tc.auth))
		if token != tc.token || carries != tc.carries {
			t.Errorf("%s: %q, %v; want %q, %v", tc.auth, token, carries, tc.token, tc.carries)
		}
	}
}

// TestAuthenticator: what a connection's handshake proves. With auth.jwt,
// a bearer token that looks like a JWT is verified and names the agent;
// any other token is passed on as a static one; where auth.jwt.required,
// a connection proving nothing is refused unless its dialect carries
// tokens in its messages or is yet to be detected. Without auth.jwt every
// token is a static one.
func TestAuthenticator(t *testing.T) {
	good := testpki.HS256(t, secret, testpki.Good("jules", issuer, audience))
	expired := testpki.Good("jules", issuer, audience)
	expired["exp"] = time.Now().Add(-time.Hour).Unix()
	for _, tc := range []struct {
		name     string
		required bool
		noJWT    bool
		token    string
		dialect  string
		agent    string // the identity proven
		by       string
		static   string // the token passed on as static
		refused  string // the error says so
		result   string // bridge_auth_total{method="jwt"}'s result counted
	}{
		{"a good JWT", false, false, good, "swarm", "jules", "jwt", "", "", "ok"},
		{"a good JWT, required", true, false, good, "swarm", "jules", "jwt", "", "", "ok"},
		{"a JWT of another key", false, false, testpki.HS256(t, "another-secret-of-at-least-32-bytes!!", testpki.Good("jules", issuer, audience)),
			"swarm", "", "", "", "the bearer token is refused", "signature"},
		{"an expired JWT", false, false, testpki.HS256(t, secret, expired), "swarm", "", "", "", "is refused", "expired"},
		{"a JWT of another issuer", false, false, testpki.HS256(t, secret, testpki.Good("jules", "https://evil.test", audience)),
			"fuse", "", "", "", "fuse: the bearer token is refused", "issuer"},
		{"an unsigned JWT", false, false, testpki.None(t, testpki.Good("jules", issuer, audience)), "swarm", "", "", "", "is refused", "algorithm"},
		{"a static token", false, false, "s3cret", "swarm", "", "", "s3cret", "", ""},
		{"no token, not required", false, false, "", "swarm", "", "", "", "", ""},
		{"no token, required", true, false, "", "swarm", "", "", "", "requires one of every agent", "missing"},
		{"a static token, required", true, false, "s3cret", "swarm", "", "", "", "requires one of every agent", "missing"},
		{"no token, required, fuse carries its own", true, false, "", "fuse", "", "", "", "", ""},
		{"no token, required, dialect not known yet", true, false, "", "", "", "", "", "", ""},
		{"no auth.jwt: a JWT is a static token", false, true, good, "swarm", "", "", good, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := jwtConfig(tc.required)
			if tc.noJWT {
				c.Auth.JWT = nil
			}
			g, reg := testGuard(t, c)
			authn := g.authenticator(func(d string) bool { return d == "fuse" })
			r := httptest.NewRequest("GET", "/ws/"+tc.dialect, nil)
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			id, static, e := authn(r, tc.dialect)
			if id.Agent != tc.agent || id.By != tc.by || static != tc.static {
				t.Errorf("identity %+v, static token %q; want %s by %s, %q", id, static, tc.agent, tc.by, tc.static)
			}
			if (e != nil) != (tc.refused != "") || (e != nil && (!strings.Contains(e.Message, tc.refused) || e.Code != canonical.ErrUnauthorized)) {
				t.Errorf("error %v, want one saying %q", e, tc.refused)
			}
			if tc.result != "" && authCount(t, reg, "jwt", tc.result) != 1 {
				t.Errorf("bridge_auth_total{method=jwt,result=%s} not counted", tc.result)
			}
		})
	}
}

// TestAuthenticatorCertificate: a verified client certificate names its
// agent; a JWT naming another agent is refused.
func TestAuthenticatorCertificate(t *testing.T) {
	ca := testpki.NewCA(t, "agents")
	pair := ca.Client(t, "jules")
	cert, err := x509.ParseCertificate(pair.TLS(t).Certificate[0])
	if err != nil {
		t.Fatal(err)
	}
	state := &tls.ConnectionState{PeerCertificates: []*x509.Certificate{cert}, VerifiedChains: [][]*x509.Certificate{{cert}}}
	for _, tc := range []struct {
		name    string
		jwt     bool
		token   string
		agent   string
		refused bool
	}{
		{"the certificate alone", false, "", "jules", false},
		{"the certificate, and a JWT for it", true, testpki.HS256(t, secret, testpki.Good("jules", issuer, audience)), "jules", false},
		{"the certificate, and a JWT for another", true, testpki.HS256(t, secret, testpki.Good("sam", issuer, audience)), "jules", true},
		{"the certificate, required JWT absent", true, "", "jules", false},
	} {
		c := jwtConfig(true)
		if !tc.jwt {
			c.Auth.JWT = nil
		}
		g, reg := testGuard(t, c)
		r := httptest.NewRequest("GET", "/ws/swarm", nil)
		r.TLS = state
		if tc.token != "" {
			r.Header.Set("Authorization", "Bearer "+tc.token)
		}
		id, _, e := g.authenticator(func(string) bool { return false })(r, "swarm")
		if id.Agent != tc.agent || (e != nil) != tc.refused {
			t.Errorf("%s: %+v, %v", tc.name, id, e)
		}
		if tc.refused && (e == nil || !strings.Contains(e.Message, "the client certificate jules")) {
			t.Errorf("%s: %v, want the mismatch named", tc.name, e)
		}
		if authCount(t, reg, "tls", "ok") != 1 {
			t.Errorf("%s: the certificate's check not counted", tc.name)
		}
	}
}

// link is an agent's connection that takes every message.
type link struct{}

func (link) Send(context.Context, bridge.Outbound) error { return nil }
func (link) Transport() string                           { return "test" }

// session attaches a connection of dialect to a bridge for the test.
func session(t *testing.T, o bridge.AttachOptions) *bridge.Session {
	t.Helper()
	b, err := bridge.New(bridge.Options{Registry: builtin.Default(), Mappings: dialects.DefaultMappings(), Heartbeat: -1, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Shutdown(context.Background()) })
	s, err := b.Attach(link{}, o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAdmit: the token a message carries is verified and consumed; its
// sender must be the token's subject (and is it when the message names
// none); where a JWT is required, a message without one is refused unless
// its connection proved who it is or was made by the bridge.
func TestAdmit(t *testing.T) {
	tok := func(sub string) canonical.JSON {
		return canonical.JSON(`{"type":"jwt","token":"` + testpki.HS256(t, secret, testpki.Good(sub, issuer, audience)) + `"}`)
	}
	for _, tc := range []struct {
		name     string
		required bool
		conn     bridge.AttachOptions
		sender   string
		auth     canonical.JSON
		proven   string
		sent     string // the sender after
		refused  string
	}{
		{"a good token", false, bridge.AttachOptions{Dialect: "fuse"}, "jules", tok("jules"), "jules", "jules", ""},
		{"a good token names the sender", false, bridge.AttachOptions{Dialect: "fuse"}, "", tok("jules"), "jules", "jules", ""},
		{"a token for another sender", false, bridge.AttachOptions{Dialect: "fuse"}, "sam", tok("jules"), "", "sam", "it names jules, and the message is sent as sam"},
		{"a bad token", false, bridge.AttachOptions{Dialect: "fuse"}, "jules", `{"type":"jwt","token":"x.y.z"}`, "", "jules", "fuse: the message's token is refused"},
		{"no token, not required", false, bridge.AttachOptions{Dialect: "fuse"}, "jules", "", "", "jules", ""},
		{"no token, required", true, bridge.AttachOptions{Dialect: "fuse"}, "jules", "", "", "jules", "present one as a bearer token"},
		{"an empty member, required", true, bridge.AttachOptions{Dialect: "fuse"}, "jules", `{"type":"jwt"}`, "", "jules", "its authentication member holds none"},
		{"no token, required, the connection proved it", true,
			bridge.AttachOptions{Dialect: "fuse", Identity: bridge.Identity{Agent: "jules", By: "tls"}}, "jules", "", "", "jules", ""},
		{"no token, required, reached by the bridge", true,
			bridge.AttachOptions{Dialect: "swarm", AgentID: "jules", Reached: true}, "jules", "", "", "jules", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := testGuard(t, jwtConfig(tc.required))
			env := &canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: tc.sender}, Authentication: tc.auth}
			proven, e := g.Admit(session(t, tc.conn), env)
			if proven != tc.proven || env.Sender.ID != tc.sent {
				t.Errorf("proven %q, sender %q; want %q, %q", proven, env.Sender.ID, tc.proven, tc.sent)
			}
			if (e != nil) != (tc.refused != "") || (e != nil && !strings.Contains(e.Message, tc.refused)) {
				t.Errorf("error %v, want one saying %q", e, tc.refused)
			}
			if tc.proven != "" && env.Authentication != "" {
				t.Errorf("the verified token goes on: %s", env.Authentication)
			}
		})
	}
}

// TestAdmitRate: an agent over limits.rate is refused, retryably, with the
// time to wait, and the refusal counted; another agent has its own.
func TestAdmitRate(t *testing.T) {
	c := config.Default()
	c.Limits.Rate, c.Limits.Burst = 0.001, 2
	g, _ := testGuard(t, c)
	s := session(t, bridge.AttachOptions{Dialect: "swarm"})
	send := func(sender string) *canonical.Error {
		_, e := g.Admit(s, &canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: sender}})
		return e
	}
	for i := range 2 {
		if e := send("jules"); e != nil {
			t.Fatalf("message %d within the burst: %v", i+1, e)
		}
	}
	e := send("jules")
	if e == nil || e.Code != canonical.ErrUnavailable || e.Retryable == nil || !*e.Retryable || e.RetryAfter.D <= 0 ||
		!strings.Contains(e.Message, "limits.rate") {
		t.Fatalf("over the rate: %+v", e)
	}
	if got := testutil.ToFloat64(g.limited.WithLabelValues("rate")); got != 1 {
		t.Errorf("bridge_limited_total{limit=rate} %v, want 1", got)
	}
	if e := send("sam"); e != nil {
		t.Errorf("another agent: %v", e)
	}
}

// TestStamp: with auth.jwt.sign, messages to fuse agents carry a token the
// bridge minted for their sender, which the bridge's own verifier accepts;
// messages to other dialects, or without a sender, carry none.
func TestStamp(t *testing.T) {
	c := config.Default()
	c.Auth.JWT = &config.JWT{HS256Secret: secret, SubjectClaim: "sub", Sign: &config.Sign{Issuer: "mcp-bridge", TTL: time.Minute}}
	g, _ := testGuard(t, c)
	got := g.Stamp("fuse", "jules", "sam")
	token, carries := messageToken(got)
	if !carries || !trust.LooksLikeJWT(token) {
		t.Fatalf("the stamp %s holds no JWT", got)
	}
	if sub, err := g.verifyMCP(token); err != nil || sub != "jules" {
		t.Errorf("the minted token verifies as %q, %v; want jules", sub, err)
	}
	for _, tc := range [][2]string{{"swarm", "jules"}, {"fuse", ""}} {
		if s := g.Stamp(tc[0], tc[1], "sam"); s != "" {
			t.Errorf("to %s from %q: %s", tc[0], tc[1], s)
		}
	}
	plain, _ := testGuard(t, jwtConfig(false))
	if s := plain.Stamp("fuse", "jules", "sam"); s != "" {
		t.Errorf("without auth.jwt.sign: %s", s)
	}
}

// TestVerifyMCP: an MCP client's bearer token is checked as a JWT, when
// auth.jwt is configured.
func TestVerifyMCP(t *testing.T) {
	g, _ := testGuard(t, jwtConfig(false))
	if sub, err := g.verifyMCP(testpki.HS256(t, secret, testpki.Good("claude", issuer, audience))); err != nil || sub != "claude" {
		t.Errorf("a good token: %q, %v", sub, err)
	}
	if _, err := g.verifyMCP(testpki.HS256(t, secret, testpki.Good("claude", issuer, "another-audience"))); err == nil {
		t.Error("a token for another audience was accepted")
	}
	none, _ := testGuard(t, config.Default())
	if _, err := none.verifyMCP("x.y.z"); err == nil || !strings.Contains(err.Error(), "no JWT is accepted") {
		t.Errorf("without auth.jwt: %v", err)
	}
}

// TestLoadCredentials: the key files of auth.jwt are read when the config
// is; a missing one is an error.
func TestLoadCredentials(t *testing.T) {
	dir := t.TempDir()
	key := testpki.ECKey(t)
	pub := testpki.Write(t, dir, "pub.pem", testpki.PublicPEM(t, &key.PublicKey))
	for _, tc := range []struct {
		name string
		jwt  *config.JWT
		ok   bool
	}{
		{"none", nil, true},
		{"a public key", &config.JWT{PublicKeys: []string{pub}, SubjectClaim: "sub"}, true},
		{"a missing public key", &config.JWT{PublicKeys: []string{dir + "/missing.pem"}, SubjectClaim: "sub"}, false},
		{"a missing signing key", &config.JWT{HS256Secret: secret, SubjectClaim: "sub", Sign: &config.Sign{Key: dir + "/missing.pem"}}, false},
	} {
		c := config.Default()
		c.Auth.JWT = tc.jwt
		if _, err := loadCredentials(c); (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
