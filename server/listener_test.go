package server

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// running builds the server of cfg and runs it on a free loopback port
// until the test ends; it returns the server and its address.
func running(t *testing.T, cfg *config.Config) (*Server, string) {
	t.Helper()
	cfg.Listen = "127.0.0.1:0"
	s, err := New(cfg, nil, quiet)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, ln) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("Run: %v", err)
			}
		case <-time.After(20 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return s, ln.Addr().String()
}

// client is an HTTP client with connections of its own.
func client(tlsConf *tls.Config) *http.Client {
	return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: tlsConf, MaxConnsPerHost: 1}}
}

// get GETs url with c, returning the status and Retry-After; 0 when the
// request failed.
func get(c *http.Client, url string) (int, string) {
	resp, err := c.Get(url)
	if err != nil {
		return 0, ""
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After")
}

// TestListenerCaps: past limits.connections, or limits.connections_per_address,
// a connection's requests are answered 503 or 429 with Retry-After, and
// counted; once a connection closes another is taken; a reload changes the
// caps on the running listener.
func TestListenerCaps(t *testing.T) {
	for _, tc := range []struct {
		name   string
		limits config.Limits
		status int
		limit  string
	}{
		{"connections", config.Limits{Connections: 1}, http.StatusServiceUnavailable, "connections"},
		{"per address", config.Limits{ConnectionsPerAddress: 1}, http.StatusTooManyRequests, "connections_per_address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.Limits.Connections, cfg.Limits.ConnectionsPerAddress = tc.limits.Connections, tc.limits.ConnectionsPerAddress
			s, addr := running(t, cfg)
			url := "http://" + addr + "/healthz"
			first, second := client(nil), client(nil)
			if got, _ := get(first, url); got != http.StatusOK {
				t.Fatalf("the first connection: %d", got)
			}
			// first keeps its connection open, idle.
			got, retry := get(second, url)
			if got != tc.status || retry == "" {
				t.Errorf("a connection past the cap: %d (Retry-After %q), want %d", got, retry, tc.status)
			}
			if n := testutil.ToFloat64(s.guard.limited.WithLabelValues(tc.limit)); n < 1 {
				t.Errorf("bridge_limited_total{limit=%s} %v", tc.limit, n)
			}
			first.CloseIdleConnections()
			eventually(t, "a connection is taken once the first closed", func() bool {
				second.CloseIdleConnections()
				got, _ := get(second, url)
				return got == http.StatusOK
			})
			// second holds the connection now; a reload lifts the cap.
			next := config.Default()
			next.Listen = cfg.Listen
			if err := s.Reload(next); err != nil {
				t.Fatal(err)
			}
			if got, _ := get(first, url); got != http.StatusOK {
				t.Errorf("after the reload lifted the cap: %d", got)
			}
		})
	}
}

// TestListenerTLS: with a certificate the listener speaks TLS only; with a
// client CA required, a client without a certificate of it is refused.
func TestListenerTLS(t *testing.T) {
	dir := t.TempDir()
	ca := testpki.NewCA(t, "bridge-ca")
	srv := ca.Server(t, "bridge")
	cert := testpki.Write(t, dir, "cert.pem", srv.CertPEM)
	key := testpki.Write(t, dir, "key.pem", srv.KeyPEM)
	clients := testpki.NewCA(t, "clients")
	clientCA := testpki.Write(t, dir, "clients.pem", clients.PEM)
	agentCert := clients.Client(t, "jules").TLS(t)
	stranger := testpki.NewCA(t, "strangers").Client(t, "eve").TLS(t)
	for _, tc := range []struct {
		name     string
		clientCA string
		conf     *tls.Config // nil: plain HTTP
		ok       bool
	}{
		{"TLS", "", &tls.Config{RootCAs: ca.Pool()}, true},
		{"plain HTTP to a TLS listener", "", nil, false},
		{"a CA the client does not trust", "", &tls.Config{RootCAs: clients.Pool()}, false},
		{"client certificate required, given", clientCA, &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{agentCert}}, true},
		{"client certificate required, none", clientCA, &tls.Config{RootCAs: ca.Pool()}, false},
		{"client certificate required, another CA's", clientCA, &tls.Config{RootCAs: ca.Pool(), Certificates: []tls.Certificate{stranger}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.TLS = config.TLS{Cert: cert, Key: key}
			if tc.clientCA != "" {
				cfg.TLS.ClientCA, cfg.TLS.ClientAuth = tc.clientCA, "require"
			}
			s, addr := running(t, cfg)
			if !s.TLS() {
				t.Fatal("a server with a certificate does not speak TLS")
			}
			scheme := "https://"
			if tc.conf == nil {
				scheme = "http://"
			}
			got, _ := get(client(tc.conf), scheme+addr+"/healthz")
			if (got == http.StatusOK) != tc.ok {
				t.Errorf("status %d, want ok %v", got, tc.ok)
			}
		})
	}
}

// TestListenerRefuses: a listen address in use, and certificate files
// that are not there, are errors.
func TestListenerRefuses(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := config.Default()
	cfg.Listen = taken.Addr().String()
	s := newServer(t, cfg)
	if ln, err := s.Listen(); err == nil || !strings.Contains(err.Error(), "listen on "+cfg.Listen) {
		if ln != nil {
			ln.Close()
		}
		t.Errorf("listening where another listens: %v", err)
	}
	bad := config.Default()
	bad.TLS = config.TLS{Cert: t.TempDir() + "/missing.pem", Key: t.TempDir() + "/missing-key.pem"}
	if _, err := New(bad, nil, quiet); err == nil {
		t.Error("a server whose certificate files are missing was built")
	}
}

// TestCarriesTokens: the dialects whose messages carry a credential of
// their own.
func TestCarriesTokens(t *testing.T) {
	s := newServer(t, config.Default())
	for d, want := range map[string]bool{"fuse": true, "swarm": false, "collab": false, "nosuch": false} {
		if got := s.carriesTokens(d); got != want {
			t.Errorf("%s: %v, want %v", d, got, want)
		}
	}
}

// TestWebhookClient: webhooks are POSTed with Go's default client, or one
// trusting tls.ca when it is set.
func TestWebhookClient(t *testing.T) {
	if c := newServer(t, config.Default()).webhookClient(); c != nil {
		t.Errorf("without tls.ca: %v", c)
	}
	cfg := config.Default()
	cfg.TLS.CA = testpki.Write(t, t.TempDir(), "ca.pem", testpki.NewCA(t, "agents").PEM)
	c := newServer(t, cfg).webhookClient()
	if c == nil {
		t.Fatal("with tls.ca: no client")
	}
	if tr, ok := c.Transport.(*http.Transport); !ok || tr.TLSClientConfig == nil || tr.TLSClientConfig.RootCAs == nil {
		t.Errorf("with tls.ca: a client that trusts no CA of its own: %+v", c.Transport)
	}
}

// eventually polls cond until it holds, for at most 20 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("never: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
