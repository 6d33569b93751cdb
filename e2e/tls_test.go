package e2e

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/internal/testpki"
	"github.com/mcp-bridge/mcp-bridge/refagent"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
)

// pki is a test's CA, and its files for a config.
type pki struct {
	ca                     *testpki.CA
	caFile, cert, key, dir string
}

// newPKI makes a CA and a server certificate for 127.0.0.1, as files.
func newPKI(t *testing.T) *pki {
	t.Helper()
	dir := t.TempDir()
	ca := testpki.NewCA(t, "test CA")
	srv := ca.Server(t, "mcp-bridge")
	return &pki{ca: ca, dir: dir, caFile: testpki.Write(t, dir, "ca.pem", ca.PEM),
		cert: testpki.Write(t, dir, "cert.pem", srv.CertPEM), key: testpki.Write(t, dir, "key.pem", srv.KeyPEM)}
}

// client is the TLS of a client trusting the CA, presenting a
// certificate for cn ("" for none).
func (p *pki) client(t *testing.T, cn string) *tls.Config {
	c := &tls.Config{RootCAs: p.ca.Pool(), MinVersion: tls.VersionTLS12}
	if cn != "" {
		c.Certificates = []tls.Certificate{p.ca.Client(t, cn).TLS(t)}
	}
	return c
}

// startTLS runs a server whose listener speaks TLS with the PKI's
// certificate; clientAuth "" asks no client certificate.
func startTLS(t *testing.T, p *pki, cfg *config.Config, clientAuth string) *harness {
	t.Helper()
	if cfg == nil {
		cfg = config.Default()
	}
	cfg.TLS = config.TLS{Cert: p.cert, Key: p.key}
	if clientAuth != "" {
		cfg.TLS.ClientCA, cfg.TLS.ClientAuth = p.caFile, clientAuth
	}
	h := start(t, cfg)
	h.tls = p.client(t, "")
	return h
}

// TestTLS: the listener speaks TLS: agents connect over wss://, HTTP and
// MCP clients over https://, and a plain connection is not served.
func TestTLS(t *testing.T) {
	p := newPKI(t)
	h := startTLS(t, p, nil, "")
	if !h.srv.TLS() {
		t.Fatal("the server says it does not speak TLS")
	}
	h.runAgent("swarm", "swarm-agent")
	c := h.dial("collab", "collab-req")
	c.send(c.encode(request("collab", "swarm-agent", "add", `{"a":2,"b":3}`, "tls-1")))
	if env := c.decode(c.recv()); env.Error != nil || !strings.Contains(string(env.Result), "5") {
		t.Fatalf("a request over wss://: %+v", env)
	}
	if refusal := h.mcpWithToken(t, ""); refusal != "" {
		t.Errorf("MCP over https://: %s", refusal)
	}
	resp, err := http.Get("http://" + h.addr + "/healthz")
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Error("plain HTTP was served on a TLS listener")
		}
	}
}

// TestMTLS: with a client CA, a client certificate's name is the agent id
// its connection speaks for; without a certificate (client_auth: require)
// there is no connection; a certificate for one agent cannot connect as
// another; with client_auth: optional, clients without one connect, and
// the static token still guards agents that have one.
func TestMTLS(t *testing.T) {
	p := newPKI(t)
	cfg := config.Default()
	cfg.Agents = []config.Agent{{ID: "swarm-agent", Dialect: "swarm", Token: "s3cret"}}
	h := startTLS(t, p, cfg, "require")
	// The certificate of swarm-agent stands in for its static token.
	h.tls = p.client(t, "swarm-agent")
	h.runAgent("swarm", "swarm-agent")
	if got := metricValue(t, h, `bridge_auth_total{method="tls",result="ok"}`); got < 1 {
		t.Errorf("client certificates checked: %v", got)
	}
	// eddy's certificate cannot connect as jules.
	h.tls = p.client(t, "eddy")
	if refusal := h.wsWithToken(t, "swarm", "jules", "", false); !strings.Contains(refusal, "speaks for eddy") {
		t.Errorf("eddy's certificate as jules: %q", refusal)
	}
	// Nor can it send as another agent on a connection that named none.
	c := h.dial("swarm", "")
	req := request("swarm", "swarm-agent", "echo", `{}`, "spoof-1")
	req.Sender.ID = "jules"
	c.send(c.encode(req))
	if env := c.decode(c.recv()); env.Error == nil || !strings.Contains(env.Error.Message, "speaks for eddy") {
		t.Errorf("eddy's certificate sending as jules: %+v", env.Error)
	}
	// No certificate: no TLS connection at all.
	h.tls = p.client(t, "")
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	if c, _, err := websocket.Dial(ctx, h.wsURL()+"/ws/swarm?agent=x", &websocket.DialOptions{HTTPClient: h.httpClient()}); err == nil {
		// TLS 1.3 reports the missing certificate after the handshake:
		// the first read fails.
		if _, _, err := c.Read(ctx); err == nil {
			t.Error("a client without a certificate was served")
		}
		c.CloseNow()
	}

	opt := startTLS(t, p, cfg, "optional")
	if refusal := opt.wsWithToken(t, "swarm", "swarm-agent", "wrong", false); !strings.Contains(refusal, "needs its token") {
		t.Errorf("optional client certificates, none given, a wrong static token: %q", refusal)
	}
	if refusal := opt.wsWithToken(t, "swarm", "anyone", "", false); refusal != "" {
		t.Errorf("optional client certificates, none given: %q", refusal)
	}
}

// TestDialWSS: the bridge dials an agent's wss:// URL, trusting the CA of
// tls.ca.
func TestDialWSS(t *testing.T) {
	p := newPKI(t)
	agentPair := p.ca.Server(t, "jules")
	a, err := refagent.New(refagent.Options{ID: "jules", Dialect: "swarm"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := tls.NewListener(raw, &tls.Config{Certificates: []tls.Certificate{agentPair.TLS(t)}, MinVersion: tls.VersionTLS12})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { defer close(served); _ = a.Listen(ctx, ln) }()
	t.Cleanup(func() { cancel(); <-served })
	cfg := config.Default()
	cfg.TLS.CA = p.caFile
	cfg.Agents = []config.Agent{{ID: "jules", Dialect: "swarm", Reach: "url", Settings: ws.Remote{URL: "wss://" + raw.Addr().String() + "/"},
		BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond}}
	h := start(t, cfg)
	info := h.agentUp("jules", 1)
	if info.Status != bridge.StatusReady {
		t.Fatalf("jules over wss://: %+v", info)
	}
	c := h.dial("collab", "collab-req")
	c.send(c.encode(request("collab", "jules", "add", `{"a":1,"b":1}`, "wss-1")))
	if env := c.decode(c.recv()); env.Error != nil || !strings.Contains(string(env.Result), "2") {
		t.Fatalf("a request to an agent dialled over wss://: %+v", env)
	}
}
