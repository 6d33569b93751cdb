package config

import (
	"errors"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// agent is the start of a file with one agent, A, whose entry begins on
// line 2; the keys a case adds begin on line 4.
const agent = "agents:\n  - id: A\n    dialect: swarm\n"

func TestBadFiles(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"syntax", "listen: [a\n", "bad.yaml:1: did not find expected ',' or ']'"},
		{"empty", "", "bad.yaml:1: empty config file"},
		{"only comments", "# nothing\n", "bad.yaml:1: empty config file"},
		{"two documents", "listen: 127.0.0.1:1\n---\nlisten: 127.0.0.1:2\n", "bad.yaml:2: a config file is one YAML document"},
		{"not a mapping", "- a\n", "bad.yaml:1: a config file is a YAML mapping (listen, bridge_id, max_frame, request_timeout, write_timeout, shutdown_timeout, dedupe_window, heartbeat, retry, circuit_breaker, validate, queue, memory, pprof, mappings, log, http, mcp, a2a, ui, cluster, auth, tls, limits, reload, tracing, agents)"},
		{"unknown key", "listn: x\n", "bad.yaml:1: listn: unknown key (want listen, bridge_id, max_frame, request_timeout, write_timeout, shutdown_timeout, dedupe_window, heartbeat, retry, circuit_breaker, validate, queue, memory, pprof, mappings, log, http, mcp, a2a, ui, cluster, auth, tls, limits, reload, tracing, agents)"},
		{"bad validate", "validate: strict\n", `bad.yaml:1: validate: "strict" is not schema or decode`},
		{"bad queue", "queue: {per_agent: 0, size: 3}\n", "bad.yaml:1: queue.per_agent: \"0\" is not a whole number of at least 1\nbad.yaml:1: queue.size: unknown key (want per_agent, total)"},
		{"duplicate key", "listen: 127.0.0.1:1\nlisten: 127.0.0.1:2\n", "bad.yaml:2: listen: duplicate key (first at line 1)"},
		{"non-scalar key", "? [a]\n: b\n", "bad.yaml:1: keys must be plain words"},
		{"listen no port", "listen: localhost\n", `bad.yaml:1: listen: "localhost" is not host:port: missing port in address`},
		{"listen named port", "listen: 127.0.0.1:http\n", `bad.yaml:1: listen: "127.0.0.1:http" is not host:port: port "http" is not a number from 0 to 65535`},
		{"listen port range", "listen: 127.0.0.1:70000\n", `bad.yaml:1: listen: "127.0.0.1:70000" is not host:port: port "70000" is not a number from 0 to 65535`},
		{"listen type", "listen: [a]\n", "bad.yaml:1: listen: must be host:port"},
		{"listen null", "listen:\n", "bad.yaml:1: listen: must be host:port"},
		{"bridge_id type", "bridge_id: {a: b}\n", "bad.yaml:1: bridge_id: must be an agent id"},
		{"size unit", "max_frame: 1GiB\n", `bad.yaml:1: max_frame: "1GiB" is not a size (integer bytes, or with KiB, MiB, KB, MB: 1MiB)`},
		{"size fraction", "max_frame: 1.5MiB\n", `bad.yaml:1: max_frame: "1.5MiB" is not a size (integer bytes, or with KiB, MiB, KB, MB: 1MiB)`},
		{"size zero", "max_frame: 0\n", `bad.yaml:1: max_frame: must be more than 0 bytes, got "0"`},
		{"size negative", "max_frame: -5KiB\n", `bad.yaml:1: max_frame: must be more than 0 bytes, got "-5KiB"`},
		{"size overflow", "max_frame: 9000000000000MiB\n", `bad.yaml:1: max_frame: "9000000000000MiB" is too large`},
		{"duration unit", "request_timeout: 30\n", `bad.yaml:1: request_timeout: "30" is not a duration (30s, 500ms, 2m)`},
		{"duration negative", "write_timeout: -1s\n", `bad.yaml:1: write_timeout: must be more than 0, got "-1s"`},
		{"duration type", "write_timeout: [5s]\n", "bad.yaml:1: write_timeout: must be a duration (30s, 500ms, 2m)"},
		{"mappings type", "mappings: site.yaml\n", "bad.yaml:1: mappings: must be a list of mapping file paths"},
		{"mapping twice", "mappings:\n  - site.yaml\n  - ./site.yaml\n", `bad.yaml:3: mappings[1]: "site.yaml" is listed twice (first at line 2)`},
		{"mapping empty", "mappings: ['']\n", "bad.yaml:1: mappings[0]: must be a mapping file path"},
		{"log type", "log: debug\n", "bad.yaml:1: log: must be a mapping (level)"},
		{"log level", "log:\n  level: verbose\n", `bad.yaml:2: log.level: "verbose" is not a log level (debug, info, warn or error)`},
		{"log key", "log:\n  lvl: x\n", "bad.yaml:2: log.lvl: unknown key (want level)"},
		{"agents type", "agents: {id: A}\n", "bad.yaml:1: agents: must be a list of agents, each a mapping (id, dialect, token, tools, subscribe, url, webhook, command, mcp, a2a, env, dir, restart_backoff)"},
		{"agent type", "agents: [A]\n", "bad.yaml:1: agents[0]: must be a mapping (id, dialect, token, tools, subscribe, url, webhook, command, mcp, a2a, env, dir, restart_backoff)"},
		{"agent key", agent + "    tool: [x]\n", "bad.yaml:4: agents[0].tool: unknown key (want id, dialect, token, tools, subscribe, url, webhook, command, mcp, a2a, env, dir, restart_backoff)"},
		{"mcp type", "mcp: on\n", "bad.yaml:1: mcp: must be a mapping (enabled, stateless, session_idle, tool_names, expose, tokens, oauth, policies, limits, call_timeout, sender)"},
		{"mcp keys", "mcp:\n  enabled: yes\n  tool_names: short\n  colour: red\n",
			"bad.yaml:2: mcp.enabled: \"yes\" is not true or false\nbad.yaml:3: mcp.tool_names: \"short\" is not prefixed or bare\n" +
				"bad.yaml:4: mcp.colour: unknown key (want enabled, stateless, session_idle, tool_names, expose, tokens, oauth, policies, limits, call_timeout, sender)"},
		{"mcp expose", "mcp:\n  expose:\n    allow: ['a:', '[x']\n", "bad.yaml:3: mcp.expose.allow[0]: \"a:\": an empty pattern (want AGENT or AGENT:TOOL)\n" +
			"bad.yaml:3: mcp.expose.allow[1]: \"[x\" is not a glob pattern: syntax error in pattern"},
		{"mcp tokens", "mcp:\n  tokens:\n    - agents: [a]\n    - token: t\n    - token: t\n",
			"bad.yaml:3: mcp.tokens[0].token: missing: every entry has a token\nbad.yaml:5: mcp.tokens[2].token: the same token is listed twice (first at line 4)"},
		{"env unset", "bridge_id: ${MCP_BRIDGE_TEST_UNSET}\n", "bad.yaml:1: bridge_id: the environment variable MCP_BRIDGE_TEST_UNSET is not set (write $$ for a literal $)"},
		{"http", "http: {forget_after: soon, keep: 1}\n", "bad.yaml:1: http.forget_after: \"soon\" is not a duration (30s, 500ms, 2m)\nbad.yaml:1: http.keep: unknown key (want forget_after)"},
		{"cluster", "cluster:\n  nats: http://h:4222\n  name: a.b\n  gossip: true\n",
			"bad.yaml:2: cluster.nats: \"http://h:4222\": the scheme must be nats:// or tls://\nbad.yaml:3: cluster.name: \"a.b\" has a character NATS subjects cannot hold (. * > or a space)\n" +
				"bad.yaml:4: cluster.gossip: unknown key (want nats, name, embedded, listen, prefix, credentials, token, heartbeat)"},
		{"tool schema", agent + "    tools:\n      - name: t\n        input_schema: {type: 7}\n      - {title: x}\n",
			"bad.yaml:6: agents[0].tools[0].input_schema: is not a JSON Schema: at /type: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'; at /type: got number, want array\n" +
				"bad.yaml:7: agents[0].tools[1].name: missing: every tool has a name"},
		{"mcp server", "agents:\n  - id: M\n    dialect: swarm\n    mcp: {command: [x], url: http://h/, headers: {a: b}}\n",
			"bad.yaml:3: agents[0].dialect: an MCP server (mcp:) speaks MCP: it has no dialect\nbad.yaml:4: agents[0].mcp.url: two ways to reach one MCP server: command (line 4) and url; give one\n" +
				"bad.yaml:4: agents[0].mcp.headers: only with url: a server over HTTP"},
		{"a2a agent", "agents:\n  - id: P\n    dialect: swarm\n    a2a: {card: 'ftp://h/card', headers: {'a b': c}}\n",
			"bad.yaml:3: agents[0].dialect: an A2A agent (a2a:) speaks A2A: it has no dialect\nbad.yaml:4: agents[0].a2a.card: \"ftp://h/card\": the scheme must be http:// or https://\n" +
				"bad.yaml:4: agents[0].a2a.headers.a b: \"a b\" is not a header name"},
		{"a2a agent without its card", "agents:\n  - id: P\n    a2a: {}\n", "bad.yaml:3: agents[0].a2a.card: missing: an A2A agent is found by its card"},
		{"mcp server empty", "agents:\n  - id: M\n    mcp: {env: {A: b}}\n", "bad.yaml:3: agents[0].mcp: says neither command (a server on stdio) nor url (streamable HTTP)"},
		{"agent duplicate key", "agents:\n  - id: A\n    id: B\n    dialect: swarm\n", "bad.yaml:3: agents[0].id: duplicate key (first at line 2)"},
		{"agent missing id and dialect", "agents:\n  - token: x\n", "bad.yaml:2: agents[0].id: missing: every agent has an id\n" +
			"bad.yaml:2: agents[0].dialect: missing: every agent has a dialect (known: a2a, bluelabel, collab, elizaacl, fuse, swarm)"},
		{"duplicate agent id", agent + "  - id: A\n    dialect: fuse\n", `bad.yaml:4: agents[1].id: the agent id "A" is listed twice (first at line 2)`},
		{"bridge's own id", "bridge_id: gw\nagents:\n  - id: gw\n    dialect: swarm\n", `bad.yaml:3: agents[0].id: "gw" is the bridge's own id (bridge_id)`},
		{"default bridge id", "agents:\n  - id: mcp-bridge\n    dialect: swarm\n", `bad.yaml:2: agents[0].id: "mcp-bridge" is the bridge's own id (bridge_id)`},
		{"unknown dialect", "agents:\n  - id: A\n    dialect: swarn\n", `bad.yaml:3: agents[0].dialect: unknown dialect "swarn" (known: a2a, bluelabel, collab, elizaacl, fuse, swarm)`},
		{"two ways to reach", agent + "    url: ws://h/\n    command: [a]\n    webhook: http://h/\n",
			"bad.yaml:5: agents[0].command: two ways to reach one agent: url (line 4) and command; give at most one\n" +
				"bad.yaml:6: agents[0].webhook: two ways to reach one agent: url (line 4) and webhook; give at most one"},
		{"url scheme", agent + "    url: http://h/\n", `bad.yaml:4: agents[0].url: "http://h/": the scheme must be ws:// or wss://`},
		{"url syntax", agent + "    url: 'ws://a b/'\n", `bad.yaml:4: agents[0].url: "ws://a b/" is not a URL: invalid character " " in host name`},
		{"webhook scheme", agent + "    webhook: ws://h/\n", `bad.yaml:4: agents[0].webhook: "ws://h/": the scheme must be http:// or https://`},
		{"webhook host", agent + "    webhook: http:///inbox\n", `bad.yaml:4: agents[0].webhook: "http:///inbox" has no host`},
		{"env and dir without command", agent + "    env: {A: b}\n    dir: x\n",
			"bad.yaml:4: agents[0].env: only with command: the environment of an agent the bridge runs\n" +
				"bad.yaml:5: agents[0].dir: only with command: the working directory of an agent the bridge runs"},
		{"backoff with webhook", agent + "    webhook: http://h/\n    restart_backoff: {min: 1s}\n",
			"bad.yaml:5: agents[0].restart_backoff: only with command, url, mcp or a2a: how long to wait before restarting or redialling the agent"},
		{"backoff inbound", agent + "    restart_backoff: {min: 1s}\n",
			"bad.yaml:4: agents[0].restart_backoff: only with command, url, mcp or a2a: how long to wait before restarting or redialling the agent"},
		{"backoff order", agent + "    command: [a]\n    restart_backoff: {min: 20s}\n", "bad.yaml:5: agents[0].restart_backoff: min 20s is more than max 10s"},
		{"backoff values", agent + "    command: [a]\n    restart_backoff: {min: soon, mx: 1s}\n",
			"bad.yaml:5: agents[0].restart_backoff.min: \"soon\" is not a duration (30s, 500ms, 2m)\n" +
				"bad.yaml:5: agents[0].restart_backoff.mx: unknown key (want min, max)"},
		{"env values", agent + "    command: [a]\n    env:\n      A:\n      B=C: x\n      D: [x]\n",
			"bad.yaml:6: agents[0].env.A: must be a value (write \"\" for an empty one)\n" +
				"bad.yaml:7: agents[0].env.B=C: \"B=C\" is not a variable name\n" +
				"bad.yaml:8: agents[0].env.D: must be a value (write \"\" for an empty one)"},
		{"command empty", agent + "    command: []\n", "bad.yaml:4: agents[0].command: must be a list: the program and its arguments"},
		{"command string", agent + "    command: a b\n", "bad.yaml:4: agents[0].command: must be a list: the program and its arguments"},
		{"command no program", agent + "    command: ['', x]\n", "bad.yaml:4: agents[0].command[0]: must be the program to run"},
		{"tools type", agent + "    tools: debug\n", "bad.yaml:4: agents[0].tools: must be a list of tools: names, or mappings (name, title, description, input_schema, output_schema, version)"},
		{"tools twice", agent + "    tools: [a, a]\n", `bad.yaml:4: agents[0].tools[1]: the tool "a" is listed twice (first at line 4)`},
		{"subscribe item", agent + "    subscribe: [[x]]\n", "bad.yaml:4: agents[0].subscribe[0]: must be a topic"},
		{"token empty", agent + "    token: ''\n", "bad.yaml:4: agents[0].token: must be a token (a non-empty string)"},
		{"retry delays", "retry: {initial_delay: 20s}\n", "bad.yaml:1: retry: initial_delay 20s is more than max_delay 10s"},
		{"off negative", "heartbeat: -1s\n", `bad.yaml:1: heartbeat: must be 0s (off) or more, got "-1s"`},
		{"off not a duration", "dedupe_window: never\n", `bad.yaml:1: dedupe_window: "never" is not a duration (30s, 500ms, 2m)`},
		{"MCP tokens off loopback", "listen: 0.0.0.0:7300\n",
			"bad.yaml:1: listen: the MCP face on a listener that is not loopback (0.0.0.0:7300) needs mcp.tokens or mcp.oauth (or auth.jwt), or mcp.enabled: false"},
		{"console off loopback", "listen: 0.0.0.0:7300\nmcp:\n  tokens: [{token: t, agents: [a]}]\nui:\n  enabled: true\n",
			"bad.yaml:5: ui.enabled: the console on a listener that is not loopback (0.0.0.0:7300) needs a token for every agent: an entry of mcp.tokens without agents, or ui.enabled: false"},
		{"MCP tokens off loopback, mcp given", "listen: 0.0.0.0:7300\nmcp:\n  stateless: true\n",
			"bad.yaml:3: mcp.tokens: the MCP face on a listener that is not loopback (0.0.0.0:7300) needs mcp.tokens or mcp.oauth (or auth.jwt), or mcp.enabled: false"},
		{"A2A on off loopback without tokens", "listen: 0.0.0.0:7300\nmcp: {enabled: false}\nui: {enabled: false}\na2a:\n  enabled: true\n",
			"bad.yaml:5: a2a.enabled: the A2A face on a listener that is not loopback (0.0.0.0:7300) needs mcp.tokens (or auth.jwt), or a2a.enabled: false"},
		{"A2A expose pattern", "a2a: {expose: {deny: ['[']}}\n", `bad.yaml:1: a2a.expose.deny[0]: "[" is not a glob pattern: syntax error in pattern`},
		{"header name", "agents:\n  - id: M\n    mcp:\n      url: http://h/\n      headers: {'Bad Name': x}\n",
			`bad.yaml:5: agents[0].mcp.headers.Bad Name: "Bad Name" is not a header name`},
		{"NATS URLs", "cluster: {nats: 'nats://a:4222, http://b:4222'}\n", `bad.yaml:1: cluster.nats: "http://b:4222": the scheme must be nats:// or tls://`},
		{"env in an argument", agent + "    command: [a, '${MCP_BRIDGE_TEST_UNSET}']\n",
			"bad.yaml:4: agents[0].command[1]: the environment variable MCP_BRIDGE_TEST_UNSET is not set (write $$ for a literal $)"},
		{"bad dialect is not also missing", "agents:\n  - id: A\n    dialect: [swarm]\n", "bad.yaml:3: agents[0].dialect: must be a dialect name"},
		{"bad mcp is not a missing dialect", "agents:\n  - id: A\n    mcp: 5\n", "bad.yaml:3: agents[0].mcp: must be a mapping (command, env, dir, url, headers)"},
		{"secret not quoted", "mcp:\n  tokens: [{token: [t]}]\n", "bad.yaml:2: mcp.tokens[0].token: must be a token"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Parse("bad.yaml", []byte(c.text), dialects.Names())
			if err == nil || err.Error() != c.want {
				t.Errorf("got %v\nwant %s", err, c.want)
			}
			if cfg != nil {
				t.Error("a config with problems must not be returned")
			}
		})
	}
}

// TestEveryProblem checks that one file's problems are all reported, in
// line order, as Errors.
func TestEveryProblem(t *testing.T) {
	text := `agents:
  - id: A
    dialect: nope
  - id: A
    dialect: swarm
    url: ws://h/
    webhook: http://h/
listen: nowhere
log: {level: loud}
`
	_, err := Parse("site.yaml", []byte(text), []string{"swarm", "fuse"})
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("got %T %v, want Errors", err, err)
	}
	want := []string{
		`site.yaml:3: agents[0].dialect: unknown dialect "nope" (known: fuse, swarm)`,
		`site.yaml:4: agents[1].id: the agent id "A" is listed twice (first at line 2)`,
		"site.yaml:7: agents[1].webhook: two ways to reach one agent: url (line 6) and webhook; give at most one",
		`site.yaml:8: listen: "nowhere" is not host:port: missing port in address`,
		`site.yaml:9: log.level: "loud" is not a log level (debug, info, warn or error)`,
	}
	if len(es) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%v", len(es), len(want), err)
	}
	for i, e := range es {
		if e.Error() != want[i] {
			t.Errorf("problem %d: %s\nwant %s", i, e, want[i])
		}
	}
	if es[0].File != "site.yaml" || es[0].Line != 3 || es[0].Key != "agents[0].dialect" {
		t.Errorf("fields of the first problem: %+v", es[0])
	}
}

func TestCheckDialectsLater(t *testing.T) {
	c, err := Parse("site.yaml", []byte("agents:\n  - id: A\n    dialect: hook\n"), nil)
	if err != nil {
		t.Fatalf("nil dialects defers the check, got %v", err)
	}
	if err := c.CheckDialects([]string{"hook", "swarm"}); err != nil {
		t.Errorf("hook is known: %v", err)
	}
	want := `site.yaml:3: agents[0].dialect: unknown dialect "hook" (known: collab, swarm)`
	if err := c.CheckDialects([]string{"swarm", "collab"}); err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}
