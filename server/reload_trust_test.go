package server

import (
	"crypto/tls"
	"net/http"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
)

// TestReloadCertificates: a reload puts new certificates of the listener
// in force for the connections that come next, without a restart; a
// reload whose certificate files are missing keeps the old ones.
func TestReloadCertificates(t *testing.T) {
	dir := t.TempDir()
	ca := testpki.NewCA(t, "bridge-ca")
	first, second := ca.Server(t, "bridge-1"), ca.Server(t, "bridge-2")
	cfg := config.Default()
	cfg.TLS = config.TLS{Cert: testpki.Write(t, dir, "cert1.pem", first.CertPEM), Key: testpki.Write(t, dir, "key1.pem", first.KeyPEM)}
	s, addr := running(t, cfg)
	served := func() string {
		t.Helper()
		c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: ca.Pool()}, DisableKeepAlives: true}}
		resp, err := c.Get("https://" + addr + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		return resp.TLS.PeerCertificates[0].Subject.CommonName
	}
	if got := served(); got != "bridge-1" {
		t.Fatalf("the listener presents %q", got)
	}
	next := config.Default()
	next.Listen = cfg.Listen
	next.TLS = config.TLS{Cert: dir + "/missing.pem", Key: dir + "/missing-key.pem"}
	if err := s.Reload(next); err == nil {
		t.Error("a reload with missing certificate files was applied")
	}
	if got := served(); got != "bridge-1" {
		t.Errorf("after a refused reload the listener presents %q", got)
	}
	next.TLS = config.TLS{Cert: testpki.Write(t, dir, "cert2.pem", second.CertPEM), Key: testpki.Write(t, dir, "key2.pem", second.KeyPEM)}
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	if got := served(); got != "bridge-2" {
		t.Errorf("after the reload the listener presents %q, want bridge-2", got)
	}
}

// TestReloadJWTKeys: a reload puts new JWT keys in force: tokens of the
// new key are accepted, those of the old one no longer.
func TestReloadJWTKeys(t *testing.T) {
	const newSecret = "another-secret-of-at-least-32-bytes!!"
	s := newServer(t, jwtConfig(false))
	authn := s.guard.authenticator(func(string) bool { return false })
	proves := func(secret string) string {
		r := requestWithBearer(testpki.HS256(t, secret, testpki.Good("jules", issuer, audience)))
		id, _, _ := authn(r, "swarm")
		return id.Agent
	}
	if proves(secret) != "jules" || proves(newSecret) != "" {
		t.Fatal("before the reload: the old key is not the one in force")
	}
	next := config.Default()
	next.Auth.JWT = &config.JWT{HS256Secret: newSecret, Issuer: issuer, Audience: audience, SubjectClaim: "sub"}
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	if proves(newSecret) != "jules" || proves(secret) != "" {
		t.Error("after the reload: the new key is not the one in force")
	}
	// MCP clients too.
	if _, err := s.guard.verifyMCP(testpki.HS256(t, newSecret, testpki.Good("claude", issuer, audience))); err != nil {
		t.Errorf("an MCP client's token of the new key: %v", err)
	}
}

func requestWithBearer(token string) *http.Request {
	r, _ := http.NewRequest("GET", "http://bridge/ws/swarm", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return r
}
