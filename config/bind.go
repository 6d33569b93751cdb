package config

import (
	"cmp"
	"log/slog"
	"math"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// bind reads a decoded config, its defaults filled in, into a Config. The
// values are checked already; bind only says where each one goes.
func bind(root *spec.Value, file string) *Config {
	c := &Config{
		Listen:          root.Str("listen"),
		BridgeID:        root.Str("bridge_id"),
		MaxFrame:        root.Int("max_frame"),
		RequestTimeout:  root.Dur("request_timeout"),
		WriteTimeout:    root.Dur("write_timeout"),
		ShutdownTimeout: root.Dur("shutdown_timeout"),
		DedupeWindow:    root.Dur("dedupe_window"),
		Heartbeat:       root.Dur("heartbeat"),
		Validate:        root.Str("validate"),
		Mappings:        root.Strs("mappings"),
		LogLevel:        logLevels[root.Get("log").Str("level")],
		HTTP:            HTTP{ForgetAfter: root.Get("http").Dur("forget_after")},
		File:            file,
	}
	r := root.Get("retry")
	c.Retry = Retry{MaxRetries: r.Int("max_retries"), InitialDelay: r.Dur("initial_delay"), MaxDelay: r.Dur("max_delay"),
		BackoffFactor: r.Get("backoff_factor").Float(), RetryableErrors: r.Strs("retryable_errors")}
	cb := root.Get("circuit_breaker")
	c.CircuitBreaker = CircuitBreaker{FailureThreshold: cb.Int("failure_threshold"), ResetTimeout: cb.Dur("reset_timeout"),
		HalfOpenRequests: cb.Int("half_open_requests")}
	q := root.Get("queue")
	c.QueuePerAgent, c.QueueTotal = q.Int("per_agent"), q.Int("total")

	m := root.Get("mcp")
	c.MCP = MCP{Enabled: m.Bool("enabled"), Stateless: m.Bool("stateless"), SessionIdle: m.Dur("session_idle"), ToolNames: m.Str("tool_names"),
		Allow: m.Get("expose").Strs("allow"), Deny: m.Get("expose").Strs("deny"),
		CallTimeout: m.Dur("call_timeout"), Sender: m.Str("sender"), Line: m.Pos().Line}
	for _, t := range m.List("tokens") {
		c.MCP.Tokens = append(c.MCP.Tokens, MCPToken{Token: t.Str("token"), Agents: t.Strs("agents")})
	}
	c.MCP.OAuth, c.MCP.Policies, c.MCP.Limits = bindOAuth(m.Get("oauth")), bindPolicies(m.List("policies")), bindMCPLimits(m.Get("limits"))

	a := root.Get("a2a")
	c.A2A = A2A{Allow: a.Get("expose").Strs("allow"), Deny: a.Get("expose").Strs("deny"),
		Sender: a.Str("sender"), TaskTTL: a.Dur("task_ttl")}
	if e := a.Get("enabled"); e != nil {
		on := e.Boolean()
		c.A2A.Enabled = &on
	}

	u := root.Get("ui")
	c.UI = UI{Traffic: u.Int("traffic"), FrameLimit: u.Int("frame_limit"), Viewers: u.Int("viewers"), Line: u.Pos().Line}
	if e := u.Get("enabled"); e != nil {
		on := e.Boolean()
		c.UI.Enabled = &on
	}

	mem := root.Get("memory")
	c.Memory = Memory{DedupeEntries: mem.Int("dedupe_entries"), DedupeAnswers: mem.Int("dedupe_answers"),
		PendingRequests: mem.Int("pending_requests"), A2ATasks: mem.Int("a2a_tasks"), MCPSessions: mem.Int("mcp_sessions"), GOGC: mem.Int("gogc"), Limit: int64(mem.Int("limit"))}
	c.PProf = root.Bool("pprof")

	cl := root.Get("cluster")
	c.Cluster = Cluster{NATS: cl.Str("nats"), Name: cl.Str("name"), Embedded: cl.Bool("embedded"), Listen: cl.Str("listen"),
		Prefix: cl.Str("prefix"), Credentials: cl.Str("credentials"), Token: cl.Str("token"), Heartbeat: cl.Dur("heartbeat")}

	c.Auth, c.TLS, c.Limits = bindAuth(root.Get("auth"), c.BridgeID), bindTLS(root.Get("tls")), bindLimits(root.Get("limits"))
	rl, tr := root.Get("reload"), root.Get("tracing")
	c.Reload = Reload{Watch: rl.Bool("watch"), Debounce: rl.Dur("debounce")}
	c.Tracing = Tracing{Exporter: tr.Str("exporter"), SampleRatio: tr.Get("sample_ratio").Float()}

	for _, a := range root.List("agents") {
		c.Agents = append(c.Agents, bindAgent(a))
	}
	return c
}

// logLevels are the values of log.level.
var logLevels = map[string]slog.Level{
	"debug": slog.LevelDebug,
	"info":  slog.LevelInfo,
	"warn":  slog.LevelWarn,
	"error": slog.LevelError,
}

// bindAgent reads one agent entry.
func bindAgent(v *spec.Value) Agent {
	a := Agent{ID: v.Str("id"), Dialect: v.Str("dialect"), Token: v.Str("token"), Subscribe: v.Strs("subscribe"),
		Line: v.Pos().Line, DialectLine: v.Get("dialect").Pos().Line}
	for _, t := range v.List("tools") {
		a.Tools = append(a.Tools, bindTool(t))
	}
	b := v.Get("restart_backoff")
	a.BackoffMin, a.BackoffMax = b.Dur("min"), b.Dur("max")
	for _, w := range reach.Ways() {
		if v.Has(w.Name) {
			a.Reach, a.Settings = Reach(w.Name), w.Bind(v)
			if w.Dialect != "" {
				a.Dialect = w.Dialect
			}
			break
		}
	}
	return a
}

// bindTool reads a tool: a name alone, or a descriptor.
func bindTool(v *spec.Value) Tool {
	if v.Node().Kind() == spec.KindString {
		return Tool{Name: v.String()}
	}
	t := Tool{Name: v.Str("name"), Title: v.Str("title"), Description: v.Str("description"), Version: v.Str("version")}
	if s := v.Get("input_schema"); s != nil {
		t.InputSchema = s.JSON()
	}
	if s := v.Get("output_schema"); s != nil {
		t.OutputSchema = s.JSON()
	}
	return t
}

// bindOAuth reads mcp.oauth:, nil when absent.
func bindOAuth(v *spec.Value) *OAuth {
	if v == nil {
		return nil
	}
	o := &OAuth{Resource: v.Str("resource"), ResourceName: v.Str("resource_name"), AuthorizationServers: v.Strs("authorization_servers"),
		JWKSFile: v.Str("jwks_file"), JWKSURL: v.Str("jwks_url"), Issuer: v.Str("issuer"),
		ScopesSupported: v.Strs("scopes_supported"), RequiredScopes: v.Strs("required_scopes")}
	if o.Issuer == "" && len(o.AuthorizationServers) == 1 {
		o.Issuer = o.AuthorizationServers[0]
	}
	return o
}

// bindPolicies reads mcp.policies:.
func bindPolicies(list []*spec.Value) []MCPPolicy {
	var out []MCPPolicy
	for _, v := range list {
		p := MCPPolicy{Scope: v.Str("scope"), Allow: v.Strs("allow"), Deny: v.Strs("deny")}
		if claim := v.List("claim"); len(claim) > 0 {
			p.Claim, p.Value = claim[0].Key(), claim[0].String()
		}
		out = append(out, p)
	}
	return out
}

// bindMCPLimits reads mcp.limits:.
func bindMCPLimits(v *spec.Value) MCPLimits {
	var l MCPLimits
	l.PerClient, _ = ParseRate(v.Str("per_client"))
	for _, r := range v.List("per_tool") {
		perSecond, _ := ParseRate(r.String())
		l.PerTool = append(l.PerTool, MCPRate{Pattern: r.Key(), PerSecond: perSecond})
	}
	return l
}

// bindAuth reads auth:; bridgeID is the default issuer of minted tokens.
func bindAuth(v *spec.Value, bridgeID string) Auth {
	j := v.Get("jwt")
	if j == nil {
		return Auth{}
	}
	c := &JWT{HS256Secret: j.Str("hs256_secret"), PublicKeys: j.Strs("public_keys"), JWKSFile: j.Str("jwks_file"),
		Issuer: j.Str("issuer"), Audience: j.Str("audience"), SubjectClaim: j.Str("subject_claim"), Required: j.Bool("required")}
	if s := j.Get("sign"); s != nil {
		c.Sign = &Sign{Key: s.Str("key"), Issuer: cmp.Or(s.Str("issuer"), bridgeID), TTL: s.Dur("ttl")}
	}
	return Auth{JWT: c}
}

// bindTLS reads tls:.
func bindTLS(v *spec.Value) TLS {
	return TLS{Cert: v.Str("cert"), Key: v.Str("key"), ClientCA: v.Str("client_ca"), ClientAuth: v.Str("client_auth"), CA: v.Str("ca")}
}

// bindLimits reads limits:.
func bindLimits(v *spec.Value) Limits {
	l := Limits{Rate: v.Get("rate").Float(), Burst: v.Int("burst"), Connections: v.Int("connections"),
		ConnectionsPerAddress: v.Int("connections_per_address"), ReadHeaderTimeout: v.Dur("read_header_timeout"),
		IdleTimeout: v.Dur("idle_timeout")}
	if l.Burst == 0 {
		l.Burst = max(1, int(math.Ceil(l.Rate)))
	}
	return l
}
