// Package server assembles a running bridge from a serve configuration:
// the mapping files, the bridge core, its HTTP listener (WebSocket and HTTP
// transports, the MCP face, the web console, /metrics, /healthz, /readyz)
// and the agents it reaches itself (dial-outs, webhooks, stdio children).
package server

import (
	"context"
	"crypto/tls"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcp-bridge/mcp-bridge/a2aface"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/directory"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/cluster"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/console"
	"github.com/mcp-bridge/mcp-bridge/limits"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
	_ "github.com/mcp-bridge/mcp-bridge/transports/builtin" // the ways to reach agents
	"github.com/mcp-bridge/mcp-bridge/transports/httpapi"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

//go:embed serve.yaml
var servePolicy []byte

// ServePolicyFile names the run-time mapping rules in errors and listings.
const ServePolicyFile = "server/serve.yaml"

// Server is a configured bridge, ready to Run.
type Server struct {
	cfg      *config.Config
	bridge   *bridge.Bridge
	face     *mcpface.Face
	a2a      *a2aface.Face // nil when the A2A face is off
	console  *console.Console
	cluster  *cluster.Cluster
	embedded *cluster.Embedded
	log      *slog.Logger
	mux      *http.ServeMux
	ready    atomic.Bool
	extra    []string // the --mapping files, after the config's own at every load
	guard    *guard
	conns    *limits.Conns
	tls      *trust.Listener // nil: plain HTTP
	dialTLS  *tls.Config     // for wss:// and https:// agents; nil: Go's defaults
	oauth    *oauthKeys      // mcp.oauth's keys; nil: no OAuth (replaced by a reload, under reloadMu)

	// Reloading (reload.go): one at a time, under reloadMu, which also
	// guards cfg's replacement, the reaches and what they read.
	reloadMu  sync.Mutex
	agentsCtx context.Context
	reaches   map[string]*reaching
	loader    func() (*config.Config, error)
	level     *slog.LevelVar
	reloads   *prometheus.CounterVec

	spans *sdktrace.TracerProvider // the provider tracing.exporter made; nil for none or one given
}

// New builds the server of cfg. Mapping files come in this order: the
// dialects' defaults, the run-time policy (serve.yaml), the config's
// mapping files, then extra (the --mapping flags).
func New(cfg *config.Config, extra []string, log *slog.Logger, opts ...Option) (*Server, error) {
	var o options
	for _, f := range opts {
		f(&o)
	}
	if log == nil {
		log = slog.Default()
	}
	m, reg, err := loadRules(cfg, extra)
	if err != nil {
		return nil, err
	}
	if cfg.MCP.Enabled && len(cfg.MCP.Tokens) == 0 && cfg.MCP.OAuth == nil && cfg.Auth.JWT == nil && !config.Loopback(cfg.Listen) {
		return nil, fmt.Errorf("mcp.tokens: the MCP face on a listener that is not loopback (%s) needs at least one token (or mcp.oauth, or auth.jwt), or mcp.enabled: false", cfg.Listen)
	}
	if cfg.A2AOn() && len(cfg.MCP.Tokens) == 0 && cfg.Auth.JWT == nil && !config.Loopback(cfg.Listen) {
		return nil, fmt.Errorf("a2a.enabled: the A2A face on a listener that is not loopback (%s) needs mcp.tokens (or auth.jwt), or a2a.enabled: false", cfg.Listen)
	}
	if cfg.UIOn() && len(cfg.ConsoleTokens()) == 0 && !config.Loopback(cfg.Listen) {
		return nil, fmt.Errorf("ui.enabled: the console on a listener that is not loopback (%s) needs a token for every agent: an entry of mcp.tokens without agents, or ui.enabled: false", cfg.Listen)
	}
	metrics := prometheus.NewRegistry()
	metrics.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cr, err := loadCredentials(cfg)
	if err != nil {
		return nil, err
	}
	g, err := newGuard(cr, metrics)
	if err != nil {
		return nil, err
	}
	s := &Server{cfg: cfg, log: log, mux: http.NewServeMux(), guard: g, extra: extra, reaches: map[string]*reaching{}}
	tracer, err := s.tracer(cfg, o)
	if err != nil {
		return nil, err
	}
	if err := s.listenerTLS(cfg, metrics); err != nil {
		return nil, err
	}
	if err := s.reloadMetrics(metrics); err != nil {
		return nil, err
	}
	b, err := bridge.New(bridge.Options{
		Registry: reg, Mappings: m, ID: cfg.BridgeID, MaxFrame: cfg.MaxFrame,
		RequestTimeout: cfg.RequestTimeout, WriteTimeout: cfg.WriteTimeout, DecodeOnly: cfg.Validate == "decode",
		QueuePerAgent: cfg.QueuePerAgent, QueueTotal: cfg.QueueTotal, DedupeWindow: offIfZero(cfg.DedupeWindow), Heartbeat: offIfZero(cfg.Heartbeat),
		ForgetAfter:   cfg.HTTP.ForgetAfter,
		DedupeEntries: cfg.Memory.DedupeEntries, DedupeAnswers: noneIfZero(cfg.Memory.DedupeAnswers), PendingRequests: cfg.Memory.PendingRequests,
		Retry: retryPolicy(cfg.Retry), Breaker: &bridge.BreakerPolicy{
			FailureThreshold: cfg.CircuitBreaker.FailureThreshold, ResetTimeout: cfg.CircuitBreaker.ResetTimeout,
			HalfOpenRequests: cfg.CircuitBreaker.HalfOpenRequests},
		Logger: log, Metrics: metrics, Guard: g, Tracer: tracer,
	})
	if err != nil {
		return nil, err
	}
	s.bridge = b
	for _, a := range cfg.Agents {
		b.Declare(bridge.AgentSpec{ID: a.ID, Dialect: a.Dialect, Token: a.Token, Tools: declaredTools(a.Tools), Subscribe: a.Subscribe})
		if w, ok := a.Reach.Way(); ok && w.Starting {
			b.Starting(a.ID) // Run starts or dials it
		}
	}
	if cfg.MCP.Enabled {
		if s.oauth, err = s.loadOAuthKeys(cfg, nil); err != nil {
			return nil, err
		}
		if o := cfg.MCP.OAuth; o != nil && o.Resource == "" && !config.Loopback(cfg.Listen) {
			log.Warn("mcp.oauth.resource is not set: each request's Host names the resource its token must be for, " +
				"so a token minted for another resource whose host a client can name is taken too; set it to the URL clients use")
		}
		if s.face, err = mcpface.New(b, s.faceOptions(cfg, metrics)); err != nil {
			return nil, err
		}
		s.mux.Handle(mcpface.Path, s.face.Handler())
		s.mux.Handle("GET "+mcpface.MetadataPath, s.face.MetadataHandler())
		s.mux.Handle("GET "+mcpface.MetadataPath+mcpface.Path, s.face.MetadataHandler())
	}
	if cfg.A2AOn() {
		if s.a2a, err = a2aface.New(b, s.a2aOptions(cfg, metrics)); err != nil {
			return nil, err
		}
		s.mux.Handle(a2aface.Path, s.a2a.Handler())
		s.mux.Handle(a2aface.Path+"/", s.a2a.Handler())
	}
	if cfg.UIOn() {
		s.console, err = console.New(console.Options{Bridge: b,
			Metrics: metrics, Tokens: cfg.ConsoleTokens(), Traffic: cfg.UI.Traffic, FrameLimit: cfg.UI.FrameLimit,
			Viewers: cfg.UI.Viewers, Version: Version(), Logger: log})
		if err != nil {
			return nil, err
		}
		s.mux.Handle(console.Path, s.console.Handler())
	}
	authn := g.authenticator(s.carriesTokens)
	(&ws.Handler{Bridge: b, Logger: log, Authenticate: authn}).Register(s.mux)
	(&httpapi.Handler{Bridge: b, Logger: log, Authenticate: authn}).Register(s.mux)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(metrics, promhttp.HandlerOpts{}))
	if cfg.PProf {
		s.servePProf()
	}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		if !s.ready.Load() {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		if s.cluster != nil && !s.cluster.Connected() {
			// Still ready: it serves its own agents.
			fmt.Fprintln(w, "ready; cluster degraded: NATS is unreachable, serving this instance's agents only")
			return
		}
		fmt.Fprintln(w, "ready")
	})
	if cfg.Cluster.Enabled() {
		if err := s.joinCluster(cfg.Cluster, metrics); err != nil {
			if s.console != nil {
				s.console.Close()
			}
			return nil, err
		}
	}
	return s, nil
}

// joinCluster starts the embedded NATS when the config asks for one, and
// joins the cluster.
func (s *Server) joinCluster(c config.Cluster, metrics prometheus.Registerer) error {
	url := c.NATS
	if c.Embedded {
		listen := c.Listen
		if listen == "" {
			listen = config.DefaultClusterListen
		}
		e, err := cluster.StartEmbedded(listen)
		if err != nil {
			return err
		}
		s.embedded = e
		if url == "" {
			url = e.URL()
		}
	}
	cl, err := cluster.New(s.bridge, cluster.Options{URL: url, Name: c.Name, Prefix: c.Prefix, Credentials: c.Credentials,
		Token: c.Token, Heartbeat: c.Heartbeat, Logger: s.log, Metrics: metrics})
	if err != nil {
		if s.embedded != nil {
			s.embedded.Shutdown()
		}
		return err
	}
	s.cluster = cl
	if s.face != nil {
		// A client's requests may come to any instance: each knows the
		// sessions of all.
		if err := s.face.ShareSessions(cl.Sessions()); err != nil {
			cl.Close()
			s.cluster = nil
			if s.embedded != nil {
				s.embedded.Shutdown()
			}
			return err
		}
	}
	return nil
}

// Cluster returns the server's cluster instance, nil when it runs alone.
func (s *Server) Cluster() *cluster.Cluster { return s.cluster }

// EmbeddedNATS returns the URL of the NATS server running in the process
// (cluster.embedded), for other instances to join; "" when there is none.
func (s *Server) EmbeddedNATS() string {
	if s.embedded == nil {
		return ""
	}
	return s.embedded.URL()
}

// Bridge returns the server's bridge core.
func (s *Server) Bridge() *bridge.Bridge { return s.bridge }

// Face returns the server's MCP face, nil when mcp.enabled is off.
func (s *Server) Face() *mcpface.Face { return s.face }

// Console returns the server's web console, nil when it is off.
func (s *Server) Console() *console.Console { return s.console }

// A2A returns the server's A2A face, nil when it is off.
func (s *Server) A2A() *a2aface.Face { return s.a2a }

// Handler returns the server's HTTP routes.
func (s *Server) Handler() http.Handler { return s.mux }

// Listen opens the configured listener: its connections counted against
// the limits, and TLS when the config has a certificate.
func (s *Server) Listen() (net.Listener, error) {
	ln, err := net.Listen("tcp", s.cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", s.cfg.Listen, err)
	}
	ln = s.conns.Listen(ln)
	if s.tls != nil {
		ln = tls.NewListener(ln, s.tls.Config())
	}
	return ln, nil
}

// TLS reports whether the listener speaks TLS.
func (s *Server) TLS() bool { return s.tls != nil }

// Run serves on ln and reaches the agents the bridge connects to itself,
// until ctx ends; then it shuts down gracefully within the config's
// shutdown_timeout (bridge.Shutdown), and stops the stdio children.
func (s *Server) Run(ctx context.Context, ln net.Listener) error {
	s.reloadMu.Lock()
	cfg := s.cfg // its keys read here need a restart to change
	s.reloadMu.Unlock()
	hs := &http.Server{Handler: limits.Handler(s.mux), ConnContext: limits.ConnContext,
		ReadHeaderTimeout: cfg.Limits.ReadHeaderTimeout, IdleTimeout: cfg.Limits.IdleTimeout,
		ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
	if hs.ReadHeaderTimeout <= 0 {
		hs.ReadHeaderTimeout = httpapi.ReadHeaderTimeout
	}
	if s.console != nil {
		// Its streams never end by themselves: a graceful shutdown
		// would wait for them.
		hs.RegisterOnShutdown(s.console.Close)
	}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()
	agentsCtx, stopAgents := context.WithCancel(context.Background())
	s.reloadMu.Lock()
	s.agentsCtx = agentsCtx
	err := s.reachAgents()
	s.reloadMu.Unlock()
	if err != nil {
		stopAgents()
		hs.Close()
		if s.console != nil {
			s.console.Close()
		}
		return err
	}
	watchCtx, stopWatching := context.WithCancel(ctx)
	defer stopWatching()
	if s.loader != nil && cfg.Reload.Watch && cfg.File != "" {
		go s.watch(watchCtx)
	}
	s.ready.Store(true)
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	s.ready.Store(false)
	// Stop accepting, let the bridge answer or fail what is in flight and
	// close its connections, then stop the agents it runs.
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	httpDone := make(chan struct{})
	go func() { _ = hs.Shutdown(shutdownCtx); close(httpDone) }()
	_ = s.bridge.Shutdown(shutdownCtx)
	if s.face != nil {
		s.face.Close()
	}
	if s.a2a != nil {
		s.a2a.Close()
	}
	if s.cluster != nil {
		s.cluster.Close()
	}
	if s.embedded != nil {
		s.embedded.Shutdown()
	}
	if s.spans != nil {
		flushCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.spans.Shutdown(flushCtx)
		cancel()
	}
	<-httpDone
	stopAgents()
	s.reloadMu.Lock()
	for _, r := range s.reaches {
		<-r.done
	}
	s.reloadMu.Unlock()
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// reachAgents starts what the bridge does for the config's agents that do
// not connect in: dial-outs, webhooks and stdio children. s.reloadMu is
// held.
func (s *Server) reachAgents() error {
	for _, a := range s.cfg.Agents {
		if err := s.startReach(a); err != nil {
			return err
		}
	}
	return nil
}

// reaching is what runs for one agent the bridge reaches itself.
type reaching struct {
	cancel context.CancelFunc
	done   chan struct{} // closed once it stopped
}

// startReach starts reaching a, when the bridge reaches it itself, the
// way its transport registered (package reach). s.reloadMu is held.
func (s *Server) startReach(a config.Agent) error {
	if a.Reach == config.ReachInbound {
		return nil
	}
	w, ok := a.Reach.Way()
	if !ok {
		return fmt.Errorf("agent %s: no transport reaches agents by %s", a.ID, string(a.Reach))
	}
	ctx, cancel := context.WithCancel(s.agentsCtx)
	h := reach.Host{Bridge: s.bridge, Logger: s.log, TLS: s.dialTLS, HTTP: s.webhookClient()}
	run, err := w.Start(ctx, h, a.Reached())
	if err != nil {
		cancel()
		return fmt.Errorf("agent %s: %w", a.ID, err)
	}
	r := &reaching{cancel: cancel, done: make(chan struct{})}
	go func() { defer close(r.done); run() }()
	s.reaches[a.ID] = r
	return nil
}

// stopReach stops what runs for the agent id, and waits for it. s.reloadMu
// is held.
func (s *Server) stopReach(id string) {
	if r := s.reaches[id]; r != nil {
		r.cancel()
		<-r.done
		delete(s.reaches, id)
	}
}

// declaredTools are the tools the config declares for an agent, as the
// directory keeps them.
func declaredTools(tools []config.Tool) []canonical.Tool {
	out := make([]canonical.Tool, 0, len(tools))
	for _, t := range tools {
		ct := directory.ToolsFromNames([]string{t.Name})[0]
		ct.Title, ct.Description, ct.Version = t.Title, t.Description, t.Version
		ct.InputSchema, ct.OutputSchema = canonical.JSON(t.InputSchema), canonical.JSON(t.OutputSchema)
		out = append(out, ct)
	}
	return out
}

// noneIfZero maps a config size whose 0 means none to the bridge's
// option, whose zero is its default and negative none.
func noneIfZero(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// offIfZero turns a config duration into the bridge's option: 0 in the
// config turns the feature off (dedupe_window, heartbeat).
func offIfZero(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// retryPolicy is the bridge's form of the config's retry.
func retryPolicy(r config.Retry) *bridge.RetryPolicy {
	p := &bridge.RetryPolicy{MaxRetries: r.MaxRetries, InitialDelay: r.InitialDelay, MaxDelay: r.MaxDelay, BackoffFactor: r.BackoffFactor}
	for _, c := range r.RetryableErrors {
		p.RetryableErrors = append(p.RetryableErrors, canonical.ErrorCode(c))
	}
	return p
}

// faceOptions is the MCP face's form of the config's mcp section.
func (s *Server) faceOptions(cfg *config.Config, metrics prometheus.Registerer) mcpface.Options {
	c := cfg.MCP
	a := s.mcpAuth(cfg)
	return mcpface.Options{ToolNames: c.ToolNames, Allow: c.Allow, Deny: c.Deny, Stateless: c.Stateless,
		Sessions: cfg.Memory.MCPSessions, SessionIdle: c.SessionIdle,
		CallTimeout: c.CallTimeout, Sender: c.Sender, Version: Version(), Logger: s.log, Metrics: metrics,
		Tokens: a.Tokens, Verify: a.Verify, Required: a.Required, OAuth: a.OAuth, Policies: a.Policies, Limits: a.Limits}
}

// mcpAuth is what MCP clients must present under cfg: its mcp.tokens, an
// access token of mcp.oauth (verified with s.oauth), or a JWT when
// auth.jwt is configured; and their policies and limits.
func (s *Server) mcpAuth(cfg *config.Config) mcpface.Auth {
	a := mcpface.Auth{OAuth: s.faceOAuth(cfg, s.oauth), Policies: facePolicies(cfg), Limits: faceLimits(cfg)}
	for _, t := range cfg.MCP.Tokens {
		a.Tokens = append(a.Tokens, mcpface.Token{Token: t.Token, Agents: t.Agents})
	}
	if j := cfg.Auth.JWT; j != nil {
		a.Verify, a.Required = s.guard.verifyMCP, j.Required
	}
	return a
}
