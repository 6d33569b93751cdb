package config

import (
	"cmp"
	"log/slog"
	"math"
)

// bind reads a decoded config, its defaults filled in, into a Config. The
// values are checked already; bind only says where each one goes.
func bind(root *value, file string) *Config {
	c := &Config{
		Listen:          root.str("listen"),
		BridgeID:        root.str("bridge_id"),
		MaxFrame:        root.int("max_frame"),
		RequestTimeout:  root.dur("request_timeout"),
		WriteTimeout:    root.dur("write_timeout"),
		ShutdownTimeout: root.dur("shutdown_timeout"),
		DedupeWindow:    root.dur("dedupe_window"),
		Heartbeat:       root.dur("heartbeat"),
		Validate:        root.str("validate"),
		Mappings:        root.strs("mappings"),
		LogLevel:        logLevels[root.get("log").str("level")],
		HTTP:            HTTP{ForgetAfter: root.get("http").dur("forget_after")},
		File:            file,
	}
	r := root.get("retry")
	c.Retry = Retry{MaxRetries: r.int("max_retries"), InitialDelay: r.dur("initial_delay"), MaxDelay: r.dur("max_delay"),
		BackoffFactor: r.get("backoff_factor").x, RetryableErrors: r.strs("retryable_errors")}
	cb := root.get("circuit_breaker")
	c.CircuitBreaker = CircuitBreaker{FailureThreshold: cb.int("failure_threshold"), ResetTimeout: cb.dur("reset_timeout"),
		HalfOpenRequests: cb.int("half_open_requests")}
	q := root.get("queue")
	c.QueuePerAgent, c.QueueTotal = q.int("per_agent"), q.int("total")

	m := root.get("mcp")
	c.MCP = MCP{Enabled: m.bool("enabled"), Stateless: m.bool("stateless"), ToolNames: m.str("tool_names"),
		Allow: m.get("expose").strs("allow"), Deny: m.get("expose").strs("deny"),
		CallTimeout: m.dur("call_timeout"), Sender: m.str("sender"), Line: m.line}
	for _, t := range m.list("tokens") {
		c.MCP.Tokens = append(c.MCP.Tokens, MCPToken{Token: t.str("token"), Agents: t.strs("agents")})
	}

	u := root.get("ui")
	c.UI = UI{Traffic: u.int("traffic"), FrameLimit: u.int("frame_limit"), Viewers: u.int("viewers"), Line: u.line}
	if e := u.get("enabled"); e != nil {
		on := e.b
		c.UI.Enabled = &on
	}

	mem := root.get("memory")
	c.Memory = Memory{DedupeEntries: mem.int("dedupe_entries"), DedupeAnswers: mem.int("dedupe_answers"),
		PendingRequests: mem.int("pending_requests"), GOGC: mem.int("gogc"), Limit: int64(mem.int("limit"))}
	c.PProf = root.bool("pprof")

	cl := root.get("cluster")
	c.Cluster = Cluster{NATS: cl.str("nats"), Name: cl.str("name"), Embedded: cl.bool("embedded"), Listen: cl.str("listen"),
		Prefix: cl.str("prefix"), Credentials: cl.str("credentials"), Token: cl.str("token"), Heartbeat: cl.dur("heartbeat")}

	c.Auth, c.TLS, c.Limits = bindAuth(root.get("auth"), c.BridgeID), bindTLS(root.get("tls")), bindLimits(root.get("limits"))
	rl, tr := root.get("reload"), root.get("tracing")
	c.Reload = Reload{Watch: rl.bool("watch"), Debounce: rl.dur("debounce")}
	c.Tracing = Tracing{Exporter: tr.str("exporter"), SampleRatio: tr.get("sample_ratio").x}

	for _, a := range root.list("agents") {
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
func bindAgent(v *value) Agent {
	a := Agent{ID: v.str("id"), Dialect: v.str("dialect"), Token: v.str("token"), Subscribe: v.strs("subscribe"),
		Line: v.line, DialectLine: v.get("dialect").lineOr0()}
	for _, t := range v.list("tools") {
		a.Tools = append(a.Tools, bindTool(t))
	}
	b := v.get("restart_backoff")
	a.BackoffMin, a.BackoffMax = b.dur("min"), b.dur("max")
	switch {
	case v.has("url"):
		a.Reach, a.URL = ReachWebSocket, v.str("url")
	case v.has("webhook"):
		a.Reach, a.URL = ReachWebhook, v.str("webhook")
	case v.has("command"):
		a.Reach, a.Command, a.Env, a.Dir = ReachStdio, v.strs("command"), v.strMap("env"), v.str("dir")
	case v.has("mcp"):
		s := v.get("mcp")
		a.Reach, a.Dialect = ReachMCP, MCPDialect
		a.MCP = MCPServer{Command: s.strs("command"), Env: s.strMap("env"), Dir: s.str("dir"), URL: s.str("url"), Headers: s.strMap("headers")}
	}
	return a
}

// bindTool reads a tool: a name alone, or a descriptor.
func bindTool(v *value) Tool {
	if v.f.kind == kindString {
		return Tool{Name: v.s}
	}
	t := Tool{Name: v.str("name"), Title: v.str("title"), Description: v.str("description"), Version: v.str("version")}
	if s := v.get("input_schema"); s != nil {
		t.InputSchema = s.raw
	}
	if s := v.get("output_schema"); s != nil {
		t.OutputSchema = s.raw
	}
	return t
}

// lineOr0 is the value's line, 0 for none.
func (v *value) lineOr0() int {
	if v == nil {
		return 0
	}
	return v.line
}

// bindAuth reads auth:; bridgeID is the default issuer of minted tokens.
func bindAuth(v *value, bridgeID string) Auth {
	j := v.get("jwt")
	if j == nil {
		return Auth{}
	}
	c := &JWT{HS256Secret: j.str("hs256_secret"), PublicKeys: j.strs("public_keys"), JWKSFile: j.str("jwks_file"),
		Issuer: j.str("issuer"), Audience: j.str("audience"), SubjectClaim: j.str("subject_claim"), Required: j.bool("required")}
	if s := j.get("sign"); s != nil {
		c.Sign = &Sign{Key: s.str("key"), Issuer: cmp.Or(s.str("issuer"), bridgeID), TTL: s.dur("ttl")}
	}
	return Auth{JWT: c}
}

// bindTLS reads tls:.
func bindTLS(v *value) TLS {
	return TLS{Cert: v.str("cert"), Key: v.str("key"), ClientCA: v.str("client_ca"), ClientAuth: v.str("client_auth"), CA: v.str("ca")}
}

// bindLimits reads limits:.
func bindLimits(v *value) Limits {
	l := Limits{Rate: v.get("rate").x, Burst: v.int("burst"), Connections: v.int("connections"),
		ConnectionsPerAddress: v.int("connections_per_address"), ReadHeaderTimeout: v.dur("read_header_timeout"),
		IdleTimeout: v.dur("idle_timeout")}
	if l.Burst == 0 {
		l.Burst = max(1, int(math.Ceil(l.Rate)))
	}
	return l
}
