package config

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	a2aagent "github.com/mcp-bridge/mcp-bridge/transports/a2a"
	"github.com/mcp-bridge/mcp-bridge/transports/httpapi"
	"github.com/mcp-bridge/mcp-bridge/transports/stdio"
	"github.com/mcp-bridge/mcp-bridge/transports/upstream"
	"github.com/mcp-bridge/mcp-bridge/transports/ws"
)

const everyKey = `listen: 0.0.0.0:8080
bridge_id: gateway
max_frame: 64KiB
request_timeout: 1m30s
write_timeout: 250ms
validate: decode
mappings: [site.yaml, ../shared/team.yaml, /opt/maps/global.yaml]
log:
  level: debug
http:
  forget_after: 5m
mcp:
  stateless: true
  tool_names: bare
  expose: {allow: ["*"], deny: ["HOOK"]}
  tokens:
    - token: t-all
    - token: t-eddy
      agents: [Eddy]
  call_timeout: 45s
  sender: ide
ui:
  enabled: true
  traffic: 200
  frame_limit: 8KiB
  viewers: 4
cluster:
  nats: nats://nats.internal:4222
  name: gw-1
  prefix: team-a
  credentials: gw.creds
  heartbeat: 5s
agents:
  - id: Eddy
    dialect: elizaacl
    token: s3cret
    subscribe: [findings, alerts]
  - id: JULES
    dialect: swarm
    tools: [debug_code, lint]
    url: wss://agents.example.net:9000/jules
    restart_backoff: {min: 50ms, max: 2s}
  - id: HOOK
    dialect: collab
    webhook: https://hooks.example.net/inbox
  - id: Fixer
    dialect: fuse
    command: [./fixer, --stdio, "", --stdio]
    env: {LOG_LEVEL: debug, PORT: 8081, EMPTY: ""}
    dir: ./agents
    restart_backoff: {max: 1m}
  - id: Blue
    dialect: bluelabel
    command: [blue-agent]
`

func TestParseEveryKey(t *testing.T) {
	c, err := Parse("/etc/bridge/serve.yaml", []byte(everyKey), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	back := func(a Agent) Agent {
		if a.BackoffMin == 0 {
			a.BackoffMin = 100 * time.Millisecond
		}
		if a.BackoffMax == 0 {
			a.BackoffMax = 10 * time.Second
		}
		return a
	}
	yes := true
	want := &Config{
		Listen:          "0.0.0.0:8080",
		BridgeID:        "gateway",
		MaxFrame:        64 << 10,
		RequestTimeout:  90 * time.Second,
		WriteTimeout:    250 * time.Millisecond,
		Validate:        "decode",
		QueuePerAgent:   1000,
		ShutdownTimeout: 10 * time.Second,
		DedupeWindow:    time.Minute,
		Heartbeat:       10 * time.Second,
		Retry: Retry{MaxRetries: 3, InitialDelay: time.Second, MaxDelay: 10 * time.Second, BackoffFactor: 2,
			RetryableErrors: []string{"timeout", "unavailable"}},
		CircuitBreaker: CircuitBreaker{FailureThreshold: 5, ResetTimeout: time.Minute, HalfOpenRequests: 3},
		QueueTotal:     100000,
		Mappings:       []string{"/etc/bridge/site.yaml", "/etc/shared/team.yaml", "/opt/maps/global.yaml"},
		LogLevel:       slog.LevelDebug,
		HTTP:           HTTP{ForgetAfter: 5 * time.Minute},
		MCP: MCP{Enabled: true, Stateless: true, SessionIdle: time.Hour, ToolNames: "bare", Allow: []string{"*"}, Deny: []string{"HOOK"},
			Tokens: []MCPToken{{Token: "t-all"}, {Token: "t-eddy", Agents: []string{"Eddy"}}}, CallTimeout: 45 * time.Second, Sender: "ide", Line: 13},
		A2A:     A2A{Allow: []string{"*"}, Deny: []string{}, Sender: "a2a-client", TaskTTL: time.Hour},
		UI:      UI{Enabled: &yes, Traffic: 200, FrameLimit: 8 << 10, Viewers: 4, Line: 23},
		Cluster: Cluster{NATS: "nats://nats.internal:4222", Name: "gw-1", Listen: DefaultClusterListen, Prefix: "team-a", Credentials: "/etc/bridge/gw.creds", Heartbeat: 5 * time.Second},
		Memory:  Memory{DedupeEntries: 100000, DedupeAnswers: 8 << 20, PendingRequests: 100000, A2ATasks: 10000, MCPSessions: 10000, GOGC: 150},
		Limits:  Limits{Burst: 1, Connections: 100000, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute},
		Reload:  Reload{Watch: true, Debounce: 250 * time.Millisecond},
		Tracing: Tracing{Exporter: "none", SampleRatio: 1},
		File:    "/etc/bridge/serve.yaml",
		Agents: []Agent{
			// No restart_backoff for agents the bridge does not dial or run.
			{ID: "Eddy", Dialect: "elizaacl", Token: "s3cret", Tools: nil, Subscribe: []string{"findings", "alerts"}, Line: 34},
			{ID: "JULES", Dialect: "swarm", Tools: Named("debug_code", "lint"), Reach: "url",
				Settings: ws.Remote{URL: "wss://agents.example.net:9000/jules"}, BackoffMin: 50 * time.Millisecond, BackoffMax: 2 * time.Second, Line: 38},
			{ID: "HOOK", Dialect: "collab", Reach: "webhook", Settings: httpapi.Hook{URL: "https://hooks.example.net/inbox"}, Line: 43},
			back(Agent{ID: "Fixer", Dialect: "fuse", Reach: "command", Settings: stdio.Program{Command: []string{"./fixer", "--stdio", "", "--stdio"},
				Env: map[string]string{"LOG_LEVEL": "debug", "PORT": "8081", "EMPTY": ""}, Dir: "/etc/bridge/agents"},
				BackoffMax: time.Minute, Line: 46}),
			back(Agent{ID: "Blue", Dialect: "bluelabel", Reach: "command", Settings: stdio.Program{Command: []string{"blue-agent"}, Dir: "/etc/bridge"}, Line: 52}),
		},
	}
	for i := range c.Agents {
		if c.Agents[i].DialectLine != c.Agents[i].Line+1 {
			t.Errorf("agents[%d].DialectLine = %d, want %d", i, c.Agents[i].DialectLine, c.Agents[i].Line+1)
		}
		c.Agents[i].DialectLine = 0
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("got\n%+v\nwant\n%+v", c, want)
		for i := range min(len(c.Agents), len(want.Agents)) {
			if !reflect.DeepEqual(c.Agents[i], want.Agents[i]) {
				t.Errorf("agents[%d]:\n got %+v\nwant %+v", i, c.Agents[i], want.Agents[i])
			}
		}
	}
}

func TestDefaultsApplied(t *testing.T) {
	c, err := Parse("serve.yaml", []byte("log: {}\nagents:\n  - {id: A, dialect: swarm, url: ws://127.0.0.1:9000/}\n"), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	got := []any{c.Listen, c.BridgeID, c.MaxFrame, c.RequestTimeout, c.WriteTimeout, c.LogLevel, c.Mappings == nil,
		c.Agents[0].BackoffMin, c.Agents[0].BackoffMax, c.Agents[0].Token, c.Agents[0].Tools == nil}
	want := []any{"127.0.0.1:7300", "mcp-bridge", 1 << 20, 30 * time.Second, 5 * time.Second, slog.LevelInfo, true,
		100 * time.Millisecond, 10 * time.Second, "", true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
}

func TestValues(t *testing.T) {
	cases := []struct {
		text string
		get  func(*Config) any
		want any
	}{
		{"max_frame: 1048576", func(c *Config) any { return c.MaxFrame }, 1 << 20},
		{"max_frame: 1MiB", func(c *Config) any { return c.MaxFrame }, 1 << 20},
		{"max_frame: 2 MiB", func(c *Config) any { return c.MaxFrame }, 2 << 20},
		{"max_frame: 3KiB", func(c *Config) any { return c.MaxFrame }, 3 << 10},
		{"max_frame: 1MB", func(c *Config) any { return c.MaxFrame }, 1000000},
		{"max_frame: 16KB", func(c *Config) any { return c.MaxFrame }, 16000},
		{"request_timeout: 2m", func(c *Config) any { return c.RequestTimeout }, 2 * time.Minute},
		{"write_timeout: 1.5s", func(c *Config) any { return c.WriteTimeout }, 1500 * time.Millisecond},
		{"listen: '[::1]:0'", func(c *Config) any { return c.Listen }, "[::1]:0"},
		{"listen: :7300\nmcp: {enabled: false}", func(c *Config) any { return c.Listen }, ":7300"},
		{"log: {level: warn}", func(c *Config) any { return c.LogLevel }, slog.LevelWarn},
		{"log: {level: error}", func(c *Config) any { return c.LogLevel }, slog.LevelError},
		{"log: {level: info}", func(c *Config) any { return c.LogLevel }, slog.LevelInfo},
		{"mappings: []", func(c *Config) any { return len(c.Mappings) }, 0},
		{"agents: []", func(c *Config) any { return len(c.Agents) }, 0},
		{"agents: [{id: 7, dialect: swarm}]", func(c *Config) any { return c.Agents[0].ID }, "7"},
		{"agents: [{id: A, dialect: swarm, token: 123}]", func(c *Config) any { return c.Agents[0].Token }, "123"},
		{"agents: [{id: A, dialect: swarm}]", func(c *Config) any { return c.Agents[0].Reach }, ReachInbound},
		{"agents: [{id: A, dialect: swarm, command: [a], dir: /srv/a}]", func(c *Config) any { return c.Agents[0].Settings.(stdio.Program).Dir }, "/srv/a"},
		{"agents: [{id: A, dialect: swarm, url: ws://h/, restart_backoff: {min: 1s, max: 1s}}]", func(c *Config) any { return c.Agents[0].BackoffMax }, time.Second},
		{"agents:\n  - {id: A, dialect: swarm, tools: &t [a, b]}\n  - {id: B, dialect: swarm, tools: *t}", func(c *Config) any { return ToolNames(c.Agents[1].Tools) }, []string{"a", "b"}},
		{"agents:\n  - id: A\n    dialect: swarm\n    tools:\n      - name: s\n        description: Scores.\n        input_schema: {type: object, properties: {text: {type: string}}}",
			func(c *Config) any { t := c.Agents[0].Tools[0]; return t.Description + " " + string(t.InputSchema) },
			`Scores. {"properties":{"text":{"type":"string"}},"type":"object"}`},
		{"agents:\n  - id: A\n    dialect: fuse\n    tools: [{name: text/score, version: 1.10}, {name: text/tag, version: '2.0-beta'}]",
			func(c *Config) any { return c.Agents[0].Tools[0].Version + " " + c.Agents[0].Tools[1].Version }, "1.10 2.0-beta"},
		{"agents:\n  - id: M\n    mcp: {url: 'http://h/mcp', headers: {Authorization: 'Bearer ${MCP_BRIDGE_TEST_TOKEN}'}}",
			func(c *Config) any {
				a := c.Agents[0]
				return a.Dialect + " " + a.Reach.String() + " " + a.Settings.(upstream.Server).Headers["Authorization"]
			}, "mcp mcp Bearer t0k$n"},
		{"agents:\n  - id: P\n    a2a: {card: 'http://h/.well-known/agent-card.json', headers: {Authorization: 'Bearer ${MCP_BRIDGE_TEST_TOKEN}'}}",
			func(c *Config) any {
				a := c.Agents[0]
				s := a.Settings.(a2aagent.Card)
				return a.Dialect + " " + a.Reach.String() + " " + s.URL + " " + s.Headers["Authorization"]
			}, "a2a a2a http://h/.well-known/agent-card.json Bearer t0k$n"},
		{"mcp: {tool_names: bare, tokens: [{token: a, agents: [x]}], expose: {deny: ['x:*']}, call_timeout: 5s}",
			func(c *Config) any {
				m := c.MCP
				return fmt.Sprintf("%s %v %v %v", m.ToolNames, m.Tokens, m.Deny, m.CallTimeout)
			}, "bare [{a [x]}] [x:*] 5s"},
		{"cluster: {nats: 'nats://h:4222', name: a, heartbeat: 1s}", func(c *Config) any { return fmt.Sprint(c.Cluster.NATS, c.Cluster.Name, c.Cluster.Heartbeat) }, "nats://h:4222a1s"},
		{"bridge_id: 'a$$b'", func(c *Config) any { return c.BridgeID }, "a$b"},
		{"http: {forget_after: 0}", func(c *Config) any { return c.HTTP.ForgetAfter }, time.Duration(0)},
		{"http: {forget_after: 0s}", func(c *Config) any { return c.HTTP.ForgetAfter }, time.Duration(0)},
		{"heartbeat: 0", func(c *Config) any { return c.Heartbeat }, time.Duration(0)},
		{"dedupe_window: 2m", func(c *Config) any { return c.DedupeWindow }, 2 * time.Minute},
		{"max_frame: ${MCP_BRIDGE_TEST_SIZE}", func(c *Config) any { return c.MaxFrame }, 2 << 10},
		{"agents: [{id: A, dialect: swarm}]", func(c *Config) any { return c.Agents[0].BackoffMax }, time.Duration(0)},
		{"agents: [{id: M, mcp: {command: [m]}}]", func(c *Config) any { return c.Agents[0].Settings.(upstream.Server).Dir + " " + c.Agents[0].Dialect }, ". mcp"},
		{"agents: [{id: M, mcp: {url: 'http://h/'}}]", func(c *Config) any {
			return c.Agents[0].Settings.(upstream.Server).Dir + c.Agents[0].Settings.(upstream.Server).URL
		}, "http://h/"},
		{"mcp: {}", func(c *Config) any { return fmt.Sprint(c.MCP.Allow, c.MCP.Deny, c.MCP.Enabled, c.MCP.CallTimeout) }, "[*] [] true 0s"},
	}
	t.Setenv("MCP_BRIDGE_TEST_TOKEN", "t0k$n")
	t.Setenv("MCP_BRIDGE_TEST_SIZE", "2KiB")
	for _, c := range cases {
		t.Run(c.text, func(t *testing.T) {
			cfg, err := Parse("serve.yaml", []byte(c.text), dialects.Names())
			if err != nil {
				t.Fatal(err)
			}
			if got := c.get(cfg); !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

func TestRelativePaths(t *testing.T) {
	text := "mappings: [site.yaml, ./m/team.yaml, ../up.yaml]\nagents:\n  - {id: A, dialect: swarm, command: [./a]}\n  - {id: B, dialect: swarm, command: [./b], dir: bin}\n"
	cases := []struct {
		name     string
		mappings []string
		dirs     []string
	}{
		{"serve.yaml", []string{"site.yaml", "m/team.yaml", "../up.yaml"}, []string{".", "bin"}},
		{"conf/serve.yaml", []string{"conf/site.yaml", "conf/m/team.yaml", "up.yaml"}, []string{"conf", "conf/bin"}},
		{"/etc/mcp/serve.yaml", []string{"/etc/mcp/site.yaml", "/etc/mcp/m/team.yaml", "/etc/up.yaml"}, []string{"/etc/mcp", "/etc/mcp/bin"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse(c.name, []byte(text), dialects.Names())
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Mappings, c.mappings) {
				t.Errorf("mappings %q, want %q", cfg.Mappings, c.mappings)
			}
			if dirs := []string{cfg.Agents[0].Settings.(stdio.Program).Dir, cfg.Agents[1].Settings.(stdio.Program).Dir}; !reflect.DeepEqual(dirs, c.dirs) {
				t.Errorf("dirs %q, want %q", dirs, c.dirs)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "serve.yaml")
	if err := os.WriteFile(path, []byte("mappings: [site.yaml]\nagents: [{id: A, dialect: fuse, command: [./a]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(path, dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	if c.File != path || c.Mappings[0] != filepath.Join(dir, "site.yaml") || c.Agents[0].Settings.(stdio.Program).Dir != dir {
		t.Errorf("file %q, mappings %q, dir %q", c.File, c.Mappings, c.Agents[0].Settings.(stdio.Program).Dir)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("listen: nowhere\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, dialects.Names())
	if want := bad + `:1: listen: "nowhere" is not host:port: missing port in address`; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}

	_, err = Load(filepath.Join(dir, "missing.yaml"), dialects.Names())
	if !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), "read config: ") {
		t.Errorf("missing file: %v", err)
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	if c.Listen != "127.0.0.1:7300" || c.BridgeID != "mcp-bridge" || len(c.Agents) != 0 || len(c.Mappings) != 0 || c.File != "" {
		t.Errorf("default config: %+v", c)
	}
	if c.MaxFrame != 1<<20 || c.RequestTimeout != 30*time.Second || c.WriteTimeout != 5*time.Second || c.LogLevel != slog.LevelInfo {
		t.Errorf("default limits: %+v", c)
	}
}

// TestDefaultExample checks that the commented agents example in
// default.yaml is a sound config once uncommented.
func TestDefaultExample(t *testing.T) {
	_, example, ok := strings.Cut(string(defaultFile), "# agents:\n")
	if !ok {
		t.Fatal("default.yaml has no commented agents example")
	}
	var b strings.Builder
	b.WriteString("agents:\n")
	for _, line := range strings.Split(example, "\n") {
		b.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "#"), " ") + "\n")
	}
	c, err := Parse("example.yaml", []byte(b.String()), dialects.Names())
	if err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	var reaches []string
	for _, a := range c.Agents {
		reaches = append(reaches, a.ID+":"+a.Reach.String())
	}
	if want := "Eddy:inbound JULES:websocket HOOK:webhook Fixer:stdio everything:mcp"; strings.Join(reaches, " ") != want {
		t.Errorf("example agents %s, want %s", strings.Join(reaches, " "), want)
	}
}

func TestReachString(t *testing.T) {
	for r, want := range map[Reach]string{ReachInbound: "inbound", "url": "websocket", "webhook": "webhook", "command": "stdio", "mcp": "mcp", "nine": `Reach("nine")`} {
		if got := r.String(); got != want {
			t.Errorf("%q: %q, want %q", string(r), got, want)
		}
	}
}

func TestQueue(t *testing.T) {
	c, err := Parse("q.yaml", []byte("queue: {per_agent: 50, total: 500}\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.QueuePerAgent != 50 || c.QueueTotal != 500 {
		t.Errorf("queue %d/%d", c.QueuePerAgent, c.QueueTotal)
	}
}

func TestResilience(t *testing.T) {
	c, err := Parse("r.yaml", []byte(`retry: {max_retries: 5, initial_delay: 20ms, max_delay: 1s, backoff_factor: 1.5, retryable_errors: [timeout]}
circuit_breaker: {failure_threshold: 2, reset_timeout: 200ms, half_open_requests: 1}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := Retry{MaxRetries: 5, InitialDelay: 20 * time.Millisecond, MaxDelay: time.Second, BackoffFactor: 1.5, RetryableErrors: []string{"timeout"}}
	if !reflect.DeepEqual(c.Retry, want) {
		t.Errorf("retry %+v", c.Retry)
	}
	if c.CircuitBreaker != (CircuitBreaker{FailureThreshold: 2, ResetTimeout: 200 * time.Millisecond, HalfOpenRequests: 1}) {
		t.Errorf("circuit_breaker %+v", c.CircuitBreaker)
	}
	for _, tc := range []struct{ in, want string }{
		{"retry: {backoff_factor: 0.5}\n", `r.yaml:1: retry.backoff_factor: "0.5" is not a number of at least 1`},
		{"retry: {retryable_errors: [timeout, flaky]}\n", `r.yaml:1: retry.retryable_errors[1]: "flaky" is not a canonical error code (invalid-message, `},
		{"retry: {tries: 3}\n", "r.yaml:1: retry.tries: unknown key (want max_retries, initial_delay, max_delay, backoff_factor, retryable_errors)"},
		{"circuit_breaker: {half_open_requests: 0}\n", `r.yaml:1: circuit_breaker.half_open_requests: "0" is not a whole number of at least 1`},
	} {
		if _, err := Parse("r.yaml", []byte(tc.in), nil); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %s", tc.in, err, tc.want)
		}
	}
}

// TestUIOn: the console is on by default on a loopback listener, or where
// an MCP token names no agents (it then asks for it), and as ui.enabled
// says otherwise; only the tokens that name no agents open it.
func TestUIOn(t *testing.T) {
	for _, c := range []struct {
		file   string
		on     bool
		tokens []string
	}{
		{"listen: 127.0.0.1:7300\n", true, nil},
		{"listen: '[::1]:7300'\n", true, nil},
		{"listen: 0.0.0.0:7300\nmcp: {enabled: false}\n", false, nil},
		{"listen: 0.0.0.0:7300\nmcp: {tokens: [{token: scoped, agents: [a]}]}\n", false, nil},
		{"listen: 0.0.0.0:7300\nmcp: {tokens: [{token: scoped, agents: [a]}, {token: all}]}\n", true, []string{"all"}},
		{"listen: 0.0.0.0:7300\nmcp: {tokens: [{token: all}]}\nui: {enabled: false}\n", false, []string{"all"}},
		{"mcp: {tokens: [{token: all}]}\n", true, []string{"all"}},
		{"ui: {enabled: false}\n", false, nil},
	} {
		cfg, err := Parse("serve.yaml", []byte(c.file), dialects.Names())
		if err != nil {
			t.Fatalf("%q: %v", c.file, err)
		}
		if got := cfg.UIOn(); got != c.on {
			t.Errorf("%q: console on %v, want %v", c.file, got, c.on)
		}
		if got := cfg.ConsoleTokens(); !reflect.DeepEqual(got, c.tokens) {
			t.Errorf("%q: console tokens %v, want %v", c.file, got, c.tokens)
		}
	}
}

// TestMemoryKeys: the memory section and pprof read into the Config, 0
// meaning none for the sizes that allow it.
func TestMemoryKeys(t *testing.T) {
	c, err := Parse("m.yaml", []byte("memory: {dedupe_entries: 10, dedupe_answers: 0, pending_requests: 5, a2a_tasks: 7, mcp_sessions: 3, gogc: 0, limit: 512MiB}\npprof: true\n"), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	want := Memory{DedupeEntries: 10, DedupeAnswers: 0, PendingRequests: 5, A2ATasks: 7, MCPSessions: 3, GOGC: 0, Limit: 512 << 20}
	if c.Memory != want || !c.PProf {
		t.Errorf("memory %+v, pprof %v; want %+v, true", c.Memory, c.PProf, want)
	}
	for text, problem := range map[string]string{
		"memory: {dedupe_entries: 0}\n":   `m.yaml:1: memory.dedupe_entries: "0" is not a whole number of at least 1`,
		"memory: {limit: -1}\n":           `m.yaml:1: memory.limit: must be more than 0 bytes, got "-1"`,
		"memory: {pending_requests: x}\n": `m.yaml:1: memory.pending_requests: "x" is not a whole number of at least 1`,
	} {
		if _, err := Parse("m.yaml", []byte(text), dialects.Names()); err == nil || !strings.Contains(err.Error(), problem) {
			t.Errorf("%q: %v, want %s", text, err, problem)
		}
	}
}
