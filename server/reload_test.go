package server

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	"github.com/mcp-bridge/mcp-bridge/transports/httpapi"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// quiet is a logger that writes nowhere.
var quiet = slog.New(slog.DiscardHandler)

// newServer builds the server of cfg for a test; it is not run.
func newServer(t *testing.T, cfg *config.Config) *Server {
	t.Helper()
	s, err := New(cfg, nil, quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Bridge().Shutdown(ctx)
		if s.Face() != nil {
			s.Face().Close()
		}
	})
	return s
}

// withAgents is the default config with agents that connect in.
func withAgents(agents ...config.Agent) *config.Config {
	c := config.Default()
	c.Agents = agents
	return c
}

// TestKeepRestartOnly: a reload keeps the old value of each key that needs
// a restart, and names it; the keys a reload changes take their new value.
func TestKeepRestartOnly(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(*config.Config)
		restart []string
		check   func(merged *config.Config) bool // the merged config as it should be
	}{
		{"nothing", func(*config.Config) {}, nil, nil},
		{"listen", func(c *config.Config) { c.Listen = "127.0.0.1:9999" }, []string{"listen"},
			func(m *config.Config) bool { return m.Listen == config.Default().Listen }},
		{"timeouts", func(c *config.Config) { c.RequestTimeout, c.WriteTimeout = time.Hour, time.Hour },
			[]string{"request_timeout", "write_timeout"}, nil},
		{"cluster and tracing", func(c *config.Config) {
			c.Cluster.NATS, c.Tracing.Exporter = "nats://x:4222", "stdout"
		}, []string{"cluster", "tracing"}, func(m *config.Config) bool { return m.Cluster.NATS == "" && m.Tracing.Exporter != "stdout" }},
		{"the connection caps change", func(c *config.Config) { c.Limits.Connections = 7 }, nil,
			func(m *config.Config) bool { return m.Limits.Connections == 7 }},
		{"the HTTP timeouts of limits do not", func(c *config.Config) { c.Limits.IdleTimeout = time.Hour; c.Limits.Rate = 5 },
			[]string{"limits.read_header_timeout, limits.idle_timeout"},
			func(m *config.Config) bool { return m.Limits.IdleTimeout != time.Hour && m.Limits.Rate == 5 }},
		{"mcp tokens change", func(c *config.Config) { c.MCP.Tokens = []config.MCPToken{{Token: "t"}} }, nil,
			func(m *config.Config) bool { return len(m.MCP.Tokens) == 1 }},
		{"the rest of mcp does not", func(c *config.Config) {
			c.MCP.ToolNames, c.MCP.Tokens = "bare", []config.MCPToken{{Token: "t"}}
		}, []string{"mcp (all but tokens, oauth, policies and limits)"},
			func(m *config.Config) bool {
				return m.MCP.ToolNames == config.Default().MCP.ToolNames && len(m.MCP.Tokens) == 1
			}},
		{"mcp oauth, policies and limits change", func(c *config.Config) {
			c.MCP.OAuth = &config.OAuth{JWKSURL: "https://auth.example/certs"}
			c.MCP.Policies = []config.MCPPolicy{{Scope: "s", Allow: []string{"*"}}}
			c.MCP.Limits.PerClient = 5
		}, nil, func(m *config.Config) bool {
			return m.MCP.OAuth != nil && len(m.MCP.Policies) == 1 && m.MCP.Limits.PerClient == 5
		}},
		{"tls turned on", func(c *config.Config) { c.TLS.Cert, c.TLS.Key = "c.pem", "k.pem" }, []string{"tls (on or off)"},
			func(m *config.Config) bool { return !m.TLS.Enabled() }},
		{"the CA to dial agents with", func(c *config.Config) { c.TLS.CA = "ca.pem" }, nil,
			func(m *config.Config) bool { return m.TLS.CA == "ca.pem" }},
		{"agents and level", func(c *config.Config) {
			c.Agents, c.LogLevel = []config.Agent{{ID: "x", Dialect: "swarm"}}, slog.LevelDebug
		}, nil, func(m *config.Config) bool { return len(m.Agents) == 1 && m.LogLevel == slog.LevelDebug }},
	} {
		cur, next := config.Default(), config.Default()
		tc.change(next)
		merged, restart := keepRestartOnly(cur, next)
		if !slices.Equal(restart, tc.restart) {
			t.Errorf("%s: restart %q, want %q", tc.name, restart, tc.restart)
		}
		if tc.check != nil && !tc.check(merged) {
			t.Errorf("%s: merged %+v", tc.name, merged)
		}
	}
}

// TestSameAgent: entries that differ only in their lines are the same
// agent; a dial-out whose token changed is reached anew, an inbound
// agent's token is only redeclared.
func TestSameAgent(t *testing.T) {
	in := config.Agent{ID: "a", Dialect: "swarm", Token: "t1", Line: 3, DialectLine: 4}
	moved := in
	moved.Line, moved.DialectLine = 9, 10
	if !sameAgent(in, moved) {
		t.Error("an entry that moved in the file is another agent")
	}
	newToken := in
	newToken.Token = "t2"
	if sameAgent(in, newToken) || !sameReach(in, newToken) {
		t.Error("an inbound agent whose token changed: want changed, reached the same way")
	}
	dial := config.Agent{ID: "a", Dialect: "swarm", Reach: "url", Settings: ws.Remote{URL: "ws://x"}, Token: "t1"}
	for _, tc := range []struct {
		name   string
		change func(*config.Agent)
		same   bool
	}{
		{"nothing", func(*config.Agent) {}, true},
		{"token", func(a *config.Agent) { a.Token = "t2" }, false},
		{"url", func(a *config.Agent) { a.Settings = ws.Remote{URL: "ws://y"} }, false},
		{"backoff", func(a *config.Agent) { a.BackoffMax = time.Minute }, false},
		{"tools", func(a *config.Agent) { a.Tools = []config.Tool{{Name: "x"}} }, true},
		{"reach", func(a *config.Agent) { a.Reach = "webhook" }, false},
	} {
		next := dial
		tc.change(&next)
		if sameReach(dial, next) != tc.same {
			t.Errorf("a dial-out whose %s changed: same reach %v, want %v", tc.name, !tc.same, tc.same)
		}
	}
}

// TestReloadAgents: a reload declares the agents added, forgets those
// removed, redeclares those changed (their tokens), and reaches anew one
// whose dialect changed.
func TestReloadAgents(t *testing.T) {
	s := newServer(t, withAgents(
		config.Agent{ID: "kept", Dialect: "swarm", Token: "old"},
		config.Agent{ID: "leaving", Dialect: "fuse"},
		config.Agent{ID: "turning", Dialect: "swarm"},
	))
	b := s.Bridge()
	if err := s.Reload(withAgents(
		config.Agent{ID: "kept", Dialect: "swarm", Token: "new"},
		config.Agent{ID: "turning", Dialect: "collab"},
		config.Agent{ID: "newbie", Dialect: "fuse", Tools: []config.Tool{{Name: "text/score"}}},
	)); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Agent("leaving"); ok {
		t.Error("the agent removed from the config is still listed")
	}
	if a, ok := b.Agent("turning"); !ok || a.Dialect != "collab" {
		t.Errorf("the agent whose dialect changed: %+v", a)
	}
	if a, ok := b.Agent("newbie"); !ok || len(a.Tools) != 1 || a.Tools[0].Name != "text/score" {
		t.Errorf("the agent added: %+v, %v", a, ok)
	}
	// The token in force is the new one.
	if _, err := b.Attach(link{}, bridge.AttachOptions{Dialect: "swarm", AgentID: "kept", Token: "old"}); err == nil {
		t.Error("the old token is still accepted")
	}
	sess, err := b.Attach(link{}, bridge.AttachOptions{Dialect: "swarm", AgentID: "kept", Token: "new"})
	if err != nil {
		t.Errorf("the new token: %v", err)
	} else {
		sess.Detach()
	}
	if ids := agentIDs(s.cfg.Agents); !slices.Equal(ids, []string{"kept", "turning", "newbie"}) {
		t.Errorf("the config in force has %q", ids)
	}
}

// TestReloadRefused: a config with problems is refused whole, every
// problem said, and the old one stays: its agents, rules, level and
// credentials.
func TestReloadRefused(t *testing.T) {
	s := newServer(t, withAgents(config.Agent{ID: "kept", Dialect: "swarm"}))
	level := new(slog.LevelVar)
	s.SetLevel(level)
	dir := t.TempDir()
	next := withAgents(config.Agent{ID: "kept", Dialect: "swarm"}, config.Agent{ID: "newbie", Dialect: "fuse"})
	next.LogLevel = slog.LevelDebug
	next.Mappings = []string{filepath.Join(dir, "missing.yaml")}
	next.Auth.JWT = &config.JWT{PublicKeys: []string{filepath.Join(dir, "missing.pem")}, SubjectClaim: "sub"}
	err := s.Reload(next)
	if err == nil {
		t.Fatal("a config with a missing mapping file and a missing key was applied")
	}
	for _, want := range []string{"missing.yaml", "missing.pem"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %s: %v", want, err)
		}
	}
	if _, ok := s.Bridge().Agent("newbie"); ok {
		t.Error("the refused config's agent was declared")
	}
	if level.Level() != slog.LevelInfo || s.cfg.Auth.JWT != nil || len(s.cfg.Mappings) != 0 {
		t.Errorf("the refused config took effect: level %v, jwt %v, mappings %v", level.Level(), s.cfg.Auth.JWT, s.cfg.Mappings)
	}
	if s.guard.cur.Load().jwt != nil {
		t.Error("the refused config's JWT verifier is in force")
	}
	// The same config without its problems applies.
	next.Mappings, next.Auth.JWT = nil, nil
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Bridge().Agent("newbie"); !ok || level.Level() != slog.LevelDebug {
		t.Errorf("after a good reload: newbie listed %v, level %v", ok, level.Level())
	}
}

// TestReloadNow: a reload reads the config with the loader and counts its
// result; without a loader there is none.
func TestReloadNow(t *testing.T) {
	s := newServer(t, config.Default())
	if err := s.ReloadNow("test"); err == nil {
		t.Error("a reload without a loader")
	}
	var next *config.Config
	var loadErr error
	s.SetLoader(func() (*config.Config, error) { return next, loadErr })
	loadErr = errors.New("serve.yaml:3: agents[0].dialect: unknown dialect")
	if err := s.ReloadNow("test"); err == nil {
		t.Error("a config that does not load was applied")
	}
	loadErr, next = nil, withAgents(config.Agent{ID: "newbie", Dialect: "swarm"})
	if err := s.ReloadNow("test"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Bridge().Agent("newbie"); !ok {
		t.Error("the config loaded was not applied")
	}
	for result, want := range map[string]float64{"ok": 1, "failed": 1} {
		if got := testutil.ToFloat64(s.reloads.WithLabelValues(result)); got != want {
			t.Errorf("bridge_config_reloads_total{result=%s} %v, want %v", result, got, want)
		}
	}
}

// TestReloadMCPTokens: a reload changes the tokens the MCP face asks for,
// at once, on the same face.
func TestReloadMCPTokens(t *testing.T) {
	s := newServer(t, config.Default())
	status := func(token string) int {
		r := httptest.NewRequest("POST", mcpface.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if token != "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		w := httptest.NewRecorder()
		s.Handler().ServeHTTP(w, r)
		return w.Code
	}
	if got := status(""); got == http.StatusUnauthorized {
		t.Fatalf("without tokens configured: %d", got)
	}
	next := config.Default()
	next.MCP.Tokens = []config.MCPToken{{Token: "t0ken"}}
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	if got := status(""); got != http.StatusUnauthorized {
		t.Errorf("no token after tokens were configured: %d, want 401", got)
	}
	if got := status("wrong"); got != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d, want 401", got)
	}
	if got := status("t0ken"); got == http.StatusUnauthorized {
		t.Errorf("the configured token: %d", got)
	}
}

// TestErrorLines: a reload's error is logged a problem a line.
func TestErrorLines(t *testing.T) {
	errs := config.Errors{{File: "serve.yaml", Line: 2, Key: "listen", Msg: "bad"}, {File: "serve.yaml", Line: 5, Key: "agents[0].id", Msg: "missing"}}
	if got := errorLines(errs); len(got) != 2 || !strings.Contains(got[0], "listen") || !strings.Contains(got[1], "agents[0].id") {
		t.Errorf("config errors: %q", got)
	}
	if got := errorLines(errors.Join(errors.New("one"), errors.New("two"))); !slices.Equal(got, []string{"one", "two"}) {
		t.Errorf("joined errors: %q", got)
	}
}

func agentIDs(agents []config.Agent) []string {
	var out []string
	for _, a := range agents {
		out = append(out, a.ID)
	}
	return out
}

// hook is an agent's webhook: it records the messages POSTed to it.
type hook struct {
	mu     sync.Mutex
	bodies []string
	srv    *httptest.Server
}

func newHook(t *testing.T) *hook {
	h := &hook{}
	h.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		h.mu.Lock()
		h.bodies = append(h.bodies, string(b))
		h.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hook) got(marker string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.ContainsFunc(h.bodies, func(b string) bool { return strings.Contains(b, marker) })
}

// TestReloadReachesAnew: on a running server, an agent the bridge reaches
// (a webhook) whose URL changes is reached at the new one from then on;
// one removed is no longer reached or listed.
func TestReloadReachesAnew(t *testing.T) {
	first, second := newHook(t), newHook(t)
	cfg := withAgents(config.Agent{ID: "hooked", Dialect: "swarm", Reach: "webhook", Settings: httpapi.Hook{URL: first.srv.URL}})
	s, _ := running(t, cfg)
	b := s.Bridge()
	send := func(marker string) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		err := b.Send(ctx, canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: "tester"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "hooked"}, Arguments: canonical.JSON(`{"marker":"` + marker + `"}`)})
		if err != nil {
			t.Fatalf("send %s: %v", marker, err)
		}
	}
	eventually(t, "hooked connected", func() bool { a, ok := b.Agent("hooked"); return ok && a.Connected })
	send("to-the-first")
	eventually(t, "the first URL gets the message", func() bool { return first.got("to-the-first") })

	next := withAgents(config.Agent{ID: "hooked", Dialect: "swarm", Reach: "webhook", Settings: httpapi.Hook{URL: second.srv.URL}})
	next.Listen = cfg.Listen
	if err := s.Reload(next); err != nil {
		t.Fatal(err)
	}
	eventually(t, "hooked connected again", func() bool { a, ok := b.Agent("hooked"); return ok && a.Connected })
	send("to-the-second")
	eventually(t, "the second URL gets the message", func() bool { return second.got("to-the-second") })
	if first.got("to-the-second") {
		t.Error("the old URL got a message after the reload")
	}

	gone := withAgents()
	gone.Listen = cfg.Listen
	if err := s.Reload(gone); err != nil {
		t.Fatal(err)
	}
	if _, ok := b.Agent("hooked"); ok {
		t.Error("the agent removed is still listed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := b.Send(ctx, canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: "tester"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "hooked"}, Arguments: `{"marker":"after-removal"}`}); err == nil {
		t.Error("a message to the agent removed was taken")
	}
}
