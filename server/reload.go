package server

import (
	"errors"
	"log/slog"
	"reflect"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/trust"
	"github.com/prometheus/client_golang/prometheus"
)

// What a reload changes without dropping a connection: the agents (added,
// removed, their tokens, tools and topics; one whose dialect or way of
// being reached changed is reached anew), the mappings, the JWT keys, the
// MCP tokens, OAuth, policies and limits, the limits, the TLS certificates and the log level. The
// other keys need a restart: a reload that changes them says so and
// keeps their old values.

// SetLoader gives the server the way to read its config again (the
// config file and the command line's overrides), for SIGHUP and for
// reload.watch. Call it before Run.
func (s *Server) SetLoader(load func() (*config.Config, error)) { s.loader = load }

// SetLevel gives the server the log level a reload sets (log.level); nil,
// or a level the command line fixed, is left alone. Call it before Run.
func (s *Server) SetLevel(v *slog.LevelVar) { s.level = v }

func (s *Server) reloadMetrics(r prometheus.Registerer) error {
	s.reloads = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "bridge_config_reloads_total", Help: "Config reloads, by result: ok, or failed (the old config stays).",
	}, []string{"result"})
	return r.Register(s.reloads)
}

// ReloadNow reads the config again with the loader and applies it,
// logging and counting the result; trigger says why (SIGHUP, a file
// changed). A config with errors is refused whole, every error logged,
// and the old one stays.
func (s *Server) ReloadNow(trigger string) error {
	if s.loader == nil {
		return errors.New("reload: the server has no way to read its config again")
	}
	next, err := s.loader()
	if err == nil {
		err = s.Reload(next)
	}
	if err != nil {
		s.reloads.WithLabelValues("failed").Inc()
		s.log.Error("config reload refused; the old config stays", "trigger", trigger, "errors", errorLines(err))
		return err
	}
	s.reloads.WithLabelValues("ok").Inc()
	return nil
}

// errorLines is an error as its lines: one for each problem.
func errorLines(err error) []string {
	var errs config.Errors
	if errors.As(err, &errs) {
		out := make([]string, len(errs))
		for i, e := range errs {
			out[i] = e.Error()
		}
		return out
	}
	return strings.Split(err.Error(), "\n")
}

// Reload applies next, a config read again. Everything next needs is read
// and checked first (mapping files, dialects, key files, certificates);
// a problem with any of it returns every problem, and nothing changes.
// Then what can change without a restart changes, and the keys that need
// one keep their old values, with a log line naming them.
func (s *Server) Reload(next *config.Config) error {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	cur := s.cfg
	var errs []error
	m, reg, err := loadRules(next, s.extra)
	if err != nil {
		errs = append(errs, err)
	}
	cr, err := loadCredentials(next)
	if err != nil {
		errs = append(errs, err)
	}
	var certs *trust.Certs
	if s.tls != nil && next.TLS.Enabled() {
		if certs, err = trust.LoadCerts(next.TLS); err != nil {
			errs = append(errs, err)
		}
	}
	dialTLS, err := trust.DialConfig(next.TLS.CA)
	if err != nil {
		errs = append(errs, err)
	}
	var oauth *oauthKeys
	if s.face != nil {
		if oauth, err = s.loadOAuthKeys(next, s.oauth); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	merged, restart := keepRestartOnly(cur, next)
	if len(restart) > 0 {
		s.log.Warn("config reload: these keys need a restart; their old values stay", "keys", restart)
	}
	if s.face != nil {
		prev := s.oauth
		s.oauth = oauth
		if err := s.face.SetAuth(s.mcpAuth(merged)); err != nil {
			s.oauth = prev
			return err
		}
	}
	if s.a2a != nil {
		s.a2a.SetAuth(s.a2aAuth(merged))
	}
	s.bridge.SetRules(reg, m)
	s.guard.cur.Store(cr)
	s.conns.SetCaps(merged.Limits.Connections, merged.Limits.ConnectionsPerAddress)
	if certs != nil {
		s.tls.Use(certs)
	}
	s.dialTLS = dialTLS
	if s.level != nil {
		s.level.Set(merged.LogLevel)
	}
	changes := s.reloadAgents(cur.Agents, merged.Agents)
	s.cfg = merged
	s.log.Info("config reloaded", "file", merged.File, "agents", changes)
	return nil
}

// restartOnly are the keys a reload cannot change, and how to tell they
// did and keep their old value.
var restartOnly = []struct {
	key  string
	keep func(next, cur *config.Config)
}{
	{"listen", func(n, c *config.Config) { n.Listen = c.Listen }},
	{"bridge_id", func(n, c *config.Config) { n.BridgeID = c.BridgeID }},
	{"max_frame", func(n, c *config.Config) { n.MaxFrame = c.MaxFrame }},
	{"request_timeout", func(n, c *config.Config) { n.RequestTimeout = c.RequestTimeout }},
	{"write_timeout", func(n, c *config.Config) { n.WriteTimeout = c.WriteTimeout }},
	{"shutdown_timeout", func(n, c *config.Config) { n.ShutdownTimeout = c.ShutdownTimeout }},
	{"dedupe_window", func(n, c *config.Config) { n.DedupeWindow = c.DedupeWindow }},
	{"heartbeat", func(n, c *config.Config) { n.Heartbeat = c.Heartbeat }},
	{"retry", func(n, c *config.Config) { n.Retry = c.Retry }},
	{"circuit_breaker", func(n, c *config.Config) { n.CircuitBreaker = c.CircuitBreaker }},
	{"validate", func(n, c *config.Config) { n.Validate = c.Validate }},
	{"queue", func(n, c *config.Config) { n.QueuePerAgent, n.QueueTotal = c.QueuePerAgent, c.QueueTotal }},
	{"http", func(n, c *config.Config) { n.HTTP = c.HTTP }},
	{"cluster", func(n, c *config.Config) { n.Cluster = c.Cluster }},
	{"tracing", func(n, c *config.Config) { n.Tracing = c.Tracing }},
	{"reload", func(n, c *config.Config) { n.Reload = c.Reload }},
	{"limits.read_header_timeout, limits.idle_timeout", func(n, c *config.Config) {
		n.Limits.ReadHeaderTimeout, n.Limits.IdleTimeout = c.Limits.ReadHeaderTimeout, c.Limits.IdleTimeout
	}},
	{"mcp (all but tokens, oauth, policies and limits)", func(n, c *config.Config) {
		keep := n.MCP
		n.MCP = c.MCP
		n.MCP.Tokens, n.MCP.OAuth, n.MCP.Policies, n.MCP.Limits = keep.Tokens, keep.OAuth, keep.Policies, keep.Limits
	}},
	{"a2a", func(n, c *config.Config) { n.A2A = c.A2A }},
	{"memory.a2a_tasks", func(n, c *config.Config) { n.Memory.A2ATasks = c.Memory.A2ATasks }},
	{"memory.mcp_sessions", func(n, c *config.Config) { n.Memory.MCPSessions = c.Memory.MCPSessions }},
	{"tls (on or off)", func(n, c *config.Config) {
		if n.TLS.Enabled() != c.TLS.Enabled() || (n.TLS.ClientCA == "") != (c.TLS.ClientCA == "") {
			n.TLS = c.TLS
		}
	}},
}

// keepRestartOnly returns next with the old values of the keys a reload
// cannot change, and those of them that next changed.
func keepRestartOnly(cur, next *config.Config) (*config.Config, []string) {
	merged := *next
	var changed []string
	for _, k := range restartOnly {
		before := merged
		k.keep(&merged, cur)
		if !reflect.DeepEqual(before, merged) {
			changed = append(changed, k.key)
		}
	}
	return &merged, changed
}

// reloadAgents brings the agents from old to next: added ones are
// declared (and reached), removed ones disconnected with a close saying
// why and forgotten, changed ones redeclared, or reached anew when their
// dialect or the way to reach them changed. It returns what it did, for
// the log. s.reloadMu is held.
func (s *Server) reloadAgents(old, next []config.Agent) []string {
	b := s.bridge
	before := map[string]config.Agent{}
	for _, a := range old {
		before[a.ID] = a
	}
	var changes []string
	for _, a := range next {
		prev, had := before[a.ID]
		delete(before, a.ID)
		switch {
		case !had:
			b.Declare(specOf(a))
			s.reachNew(a)
			changes = append(changes, "added "+a.ID)
		case sameAgent(prev, a):
		case prev.Dialect != a.Dialect || !sameReach(prev, a):
			s.stopReach(a.ID)
			if prev.Dialect != a.Dialect {
				b.Remove(a.ID, "its dialect changed in the bridge's config")
			}
			b.Redeclare(specOf(a))
			s.reachNew(a)
			changes = append(changes, "reached anew "+a.ID)
		default:
			b.Redeclare(specOf(a))
			changes = append(changes, "updated "+a.ID)
		}
	}
	gone := make([]string, 0, len(before))
	for id := range before {
		gone = append(gone, id)
	}
	slices.Sort(gone)
	for _, id := range gone {
		s.stopReach(id)
		b.Remove(id, "removed from the bridge's config")
		changes = append(changes, "removed "+id)
	}
	return changes
}

// reachNew starts reaching a, announcing it as starting.
func (s *Server) reachNew(a config.Agent) {
	if w, ok := a.Reach.Way(); !ok || !w.Starting {
		if err := s.startReach(a); err != nil {
			s.log.Error("config reload: agent not reached", "agent", a.ID, "error", err)
		}
		return
	}
	s.bridge.Starting(a.ID)
	if err := s.startReach(a); err != nil {
		s.log.Error("config reload: agent not reached", "agent", a.ID, "error", err)
	}
}

// specOf is the bridge's declaration of a config's agent.
func specOf(a config.Agent) bridge.AgentSpec {
	return bridge.AgentSpec{ID: a.ID, Dialect: a.Dialect, Token: a.Token, Tools: declaredTools(a.Tools), Subscribe: a.Subscribe}
}

// sameAgent reports whether two entries of an agent say the same, lines
// aside.
func sameAgent(a, b config.Agent) bool {
	a.Line, a.DialectLine, b.Line, b.DialectLine = 0, 0, 0, 0
	return reflect.DeepEqual(a, b)
}

// sameReach reports whether two entries of an agent reach it the same way:
// by the same way, with the same backoff, and the same by the way's own
// Same.
func sameReach(a, b config.Agent) bool {
	if a.Reach != b.Reach || a.BackoffMin != b.BackoffMin || a.BackoffMax != b.BackoffMax {
		return false
	}
	w, ok := a.Reach.Way()
	return !ok || w.Same(a.Reached(), b.Reached())
}
