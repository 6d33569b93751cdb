package config

import "fmt"

// spec is the serve config: every key, its type, default, documentation
// and checks. docs/config.md's key reference and `mcp-bridge config
// schema` are generated from it; bind.go reads the decoded values into a
// Config.
var spec = serveSpec()

func serveSpec() *field {
	tool := object("", "A tool declared with more than its name.",
		str("name", "The operation's name, as mapping files write it (fuse's `capability/action`).").
			named("an operation name").mustHave("every tool has a name"),
		str("title", "A title for people.").named("a title"),
		str("description", "What the tool does, for MCP clients and the agents' directory.").named("a description"),
		schemaField("input_schema", "A JSON Schema (draft 2020-12), in YAML, of the arguments."),
		schemaField("output_schema", "A JSON Schema (draft 2020-12), in YAML, of the result."),
		str("version", "The version of the tool's definition, written into declarations that carry one (fuse's capability `version`).").named("a version"),
	)
	toolName := str("", "").named("an operation name").typed("name")

	agent := object("", "One agent the bridge knows: its id, its dialect, and how the bridge reaches it.",
		str("id", "The agent's canonical id: the name messages use for it, as sender or receiver. Unique in the file, and not `bridge_id`.").
			named("an agent id").mustHave("every agent has an id"),
		str("dialect", "The dialect it speaks: `elizaacl`, `collab`, `bluelabel`, `fuse`, `swarm`, or one a mapping file declares. An MCP server (`mcp`) has none.").
			named("a dialect name").defaultIs("required, except with `mcp`"),
		str("token", "The token a connection claiming this id must present. Without it, the id needs none.").
			named("a token (a non-empty string)").hidden(),
		list("tools", "The operations it serves: for routing a request that names no receiver, and as its tools for MCP clients where its dialect declares none (bluelabel) or names only (swarm). Each a name, or a descriptor.",
			oneOf("", "", toolName, tool)).
			named(fmt.Sprintf("a list of tools: names, or mappings (%s)", tool.keyList())).distinctBy("name", "tool"),
		list("subscribe", "The topics it receives.", str("", "").named("a topic")).
			named("a list of topics").distinct(),
		str("url", "The bridge dials the agent's WebSocket here, and redials with backoff when the connection drops.").
			named("a WebSocket URL (ws:// or wss://)").typed("URL (`ws://`, `wss://`)").checked(checkWebSocketURL),
		str("webhook", "The bridge POSTs each message to the agent here.").
			named("an HTTP URL (http:// or https://)").typed("URL (`http://`, `https://`)").checked(checkHTTPURL),
		commandField("The bridge runs the agent as a child and talks to it on standard input and output, restarting it with backoff when it exits: the program, then its arguments, each one word; no shell."),
		mcpServerField(),
		envField().only("the environment of an agent the bridge runs", "command"),
		str("dir", "The child's working directory.").named("a directory").
			withDefault(".").defaultIs("the config file's directory").only("the working directory of an agent the bridge runs", "command").pathed(),
		object("restart_backoff", "The waits before redialling a `url` agent, restarting a `command` agent, or reaching an `mcp` agent again: from `min`, growing to `max`.",
			duration("min", "The first wait.").withDefault("100ms"),
			duration("max", "The longest wait.").withDefault("10s"),
		).only("how long to wait before restarting or redialling the agent", "command", "url", "mcp").checkedBy(notMore("min", "max")),
	).checkedBy(checkMCPAgent)
	agent.choice = &choice{keys: []string{"url", "webhook", "command", "mcp"},
		twice: "two ways to reach one agent: %s (line %d) and %s; give at most one"}

	token := object("", "A bearer token, and what it may reach.",
		str("token", "The token, best given as `${VAR}`.").named("a token").mustHave("every entry has a token").hidden(),
		list("agents", "The agents whose tools this token sees and calls; without it, all.", str("", "").named("an agent id")).
			named("a list of agent ids").distinct(),
	)

	root := object("", "",
		str("listen", "The one HTTP listener: the agents' WebSocket (`/ws`) and HTTP (`/v1`) endpoints, MCP (`/mcp`), the web console (`/ui/`), `/metrics`, `/healthz` and `/readyz`. The default takes connections from this machine only.").
			named("host:port").typed("host:port").withDefault("127.0.0.1:7300").checked(checkListen),
		str("bridge_id", "The sender id of the messages the bridge writes itself (timeout and error replies, handshake answers). No agent may have it.").
			named("an agent id").withDefault("mcp-bridge"),
		size("max_frame", "The largest message accepted; a larger one is answered with an error in the sender's dialect.").withDefault("1MiB"),
		duration("request_timeout", "How long a request waits for its reply when the message sets no timeout or ttl of its own.").withDefault("30s"),
		duration("write_timeout", "How long one delivery to an agent may block before it counts as failed.").withDefault("5s"),
		duration("shutdown_timeout", "How long a graceful shutdown (SIGINT, SIGTERM) may take.").withDefault("10s"),
		duration("dedupe_window", "How long a message id is remembered: a message sent again within it is delivered once, and a repeated request is answered from the first (bluelabel: by task id and retry_count).").
			withDefault("1m").off(),
		duration("heartbeat", "How often WebSocket agents are pinged; 3 missed (or 3 request timeouts in a row) make an agent UNAVAILABLE until it answers.").
			withDefault("10s").off(),
		object("retry", "When a request whose delivery failed, or that was answered with a retryable error, is delivered again, after a growing wait (specs/collab.md 5.2). The requester sees one answer.",
			integer("max_retries", "How many times a request is delivered again; 0 never retries.").withDefault("3"),
			duration("initial_delay", "The first wait.").withDefault("1s"),
			duration("max_delay", "The longest wait.").withDefault("10s"),
			number("backoff_factor", "What each wait is multiplied by for the next.").atLeast(1).withDefault("2"),
			list("retryable_errors", "The canonical error codes whose answers are retried.",
				enum("", "", errorCodes...).named("a canonical error code")).
				named("a list of canonical error codes").distinct().withDefault("[timeout, unavailable]"),
		).checkedBy(notMore("initial_delay", "max_delay")),
		object("circuit_breaker", "Each agent's circuit breaker (specs/collab.md 5.3): after `failure_threshold` failures in a row, requests to the agent are refused at once; after `reset_timeout`, `half_open_requests` probes go through, and as many successes close it again.",
			integer("failure_threshold", "The failures in a row that open the breaker; 0 turns it off.").withDefault("5"),
			duration("reset_timeout", "How long the breaker stays open.").withDefault("1m"),
			integer("half_open_requests", "The probes let through once it half-opens.").atLeast(1).withDefault("3"),
		),
		enum("validate", "What each received message is checked against: `schema` (its dialect's JSON Schema and rules) or `decode` (the decoder's checks only: faster, for trusted agents).",
			"schema", "decode").withDefault("schema"),
		object("queue", "Bounds of the outbound queues, in messages. Past them a sender gets a retryable *unavailable* error (queue full).",
			integer("per_agent", "One agent's queue.").atLeast(1).withDefault("1000"),
			integer("total", "All agents' queues together.").atLeast(1).withDefault("100000"),
		),
		object("memory", "What the bridge's tables may hold, and the Go runtime's memory settings. Past a table's bound the oldest entry goes first, and `/metrics` counts it (`bridge_table_dropped_total`); `bridge_table_limit` and `bridge_table_size` show the bounds and how full each table is.",
			integer("dedupe_entries", "Messages the dedupe table remembers: a 128-bit hash of each one's identity, about 100 bytes each.").atLeast(1).withDefault("100000"),
			size("dedupe_answers", "Bytes of answers kept for requests sent again within `dedupe_window`; 0 keeps none (a repeated request whose first is answered is then refused).").withDefault("8MiB").off(),
			integer("pending_requests", "Requests open at once, awaiting their answers; past it the oldest is answered *unavailable*.").atLeast(1).withDefault("100000"),
			integer("gogc", "The garbage collector's target, as Go's `GOGC`: the heap grows by this percentage of the live heap before a collection; 0 turns the collector off (then only `limit` starts one). The default, one and a half times Go's, makes a third fewer collections under load for a sixth more resident memory (README, \"Under load\"). The `GOGC` environment variable, when set, wins.").withDefault("150"),
			size("limit", "A soft limit on the Go runtime's memory, as Go's `GOMEMLIMIT`; 0: none. The `GOMEMLIMIT` environment variable, when set, wins.").withDefault("0").off(),
		),
		boolean("pprof", "Serve the Go runtime's profiles at `/debug/pprof/` on the listener, for measuring. Anyone who reaches the listener can read them: keep it on loopback.").withDefault("false"),
		list("mappings", "Mapping files layered over the embedded defaults, in order, the later winning.",
			str("", "").named("a mapping file path").pathed()).
			named("a list of mapping file paths").distinct().defaultIs("none"),
		object("log", "Logging.",
			enum("level", "The least severe level logged.", "debug", "info", "warn", "error").named("a log level").withDefault("info"),
		),
		object("http", "The HTTP API (`/v1`).",
			duration("forget_after", "How long an agent known only from the messages it POSTed to `/v1/{dialect}/messages` stays listed in `/v1/agents` after its last one; 0s keeps it.").
				withDefault("10m").off(),
		),
		object("mcp", "The MCP face (docs/mcp.md): every reachable agent's tools as MCP tools, at `/mcp` on the listener and on stdio with `serve --mcp-stdio`.",
			boolean("enabled", "Serve MCP (streamable HTTP) at `/mcp`, and allow `serve --mcp-stdio`.").withDefault("true"),
			boolean("stateless", "No MCP sessions on HTTP.").withDefault("false"),
			enum("tool_names", "How tools are named: `prefixed` (`<agent>__<tool>`) or `bare` (the tool's own name where it is unique).", "prefixed", "bare").
				withDefault("prefixed"),
			object("expose", "Which tools MCP clients see: those that match an allow pattern and no deny pattern. A pattern is `AGENT` or `AGENT:TOOL`, each a glob as Go's `path.Match` reads it.",
				patterns("allow", "Patterns of the tools shown.").withDefault(`["*"]`),
				patterns("deny", "Patterns of the tools hidden.").withDefault("[]"),
			),
			list("tokens", "Bearer tokens MCP clients present. Required while the face is on and `listen` is not a loopback address.", token).
				named("a list of {token, agents}").distinctBy("token", "token").defaultIs("none"),
			duration("call_timeout", "A `tools/call`'s time limit.").defaultIs("`request_timeout`"),
			str("sender", "The sender id MCP clients' requests carry to the agents.").named("an agent id").withDefault("mcp-client"),
		),
		object("ui", "The web console (docs/console.md) at `/ui/` on the listener: the agents, the traffic, a translation playground, conformance runs and a chart of the message rate and latency.",
			boolean("enabled", "Serve the console at `/ui/`. It asks for a token of `mcp.tokens` that names no agents, when there is one.").
				defaultIs("on when `listen` is loopback, or when `mcp.tokens` has a token that names no agents; off otherwise"),
			integer("traffic", "How many of the latest messages the traffic view keeps.").atLeast(1).withDefault("500"),
			size("frame_limit", "How much of each frame the traffic view keeps; a longer frame is shown cut.").withDefault("16KiB"),
			integer("viewers", "How many live views (server-sent event streams) may be open at once; another is refused until one closes.").atLeast(1).withDefault("16"),
		),
		object("cluster", "Joining a cluster of bridges on NATS, which then behave as one. With neither `nats` nor `embedded`, the bridge runs alone.",
			str("nats", "The NATS server to join; `serve --nats URL` overrides it.").
				named("a NATS URL (nats:// or tls://; several comma-separated)").typed("URLs (`nats://`, `tls://`), comma-separated").
				defaultIs("none").checked(checkNATSURLs),
			str("name", "This instance's name, unique in the cluster.").named("an instance name").
				defaultIs("the host name and a random suffix").checked(checkInstanceName),
			boolean("embedded", "Run a NATS server in this process, and join it.").withDefault("false"),
			str("listen", "Where the embedded NATS server listens.").named("host:port").typed("host:port").
				withDefault(DefaultClusterListen).checked(checkListen),
			str("prefix", "The subjects' prefix: clusters with different prefixes can share a NATS.").named("a subject prefix").
				withDefault("mcp-bridge").checked(checkSubjectPrefix),
			str("credentials", "A NATS credentials file.").named("a credentials file").defaultIs("none").pathed(),
			str("token", "A NATS token.").named("a token").defaultIs("none").hidden(),
			duration("heartbeat", "How often the instance announces its agents; an instance silent for three is gone.").withDefault("2s"),
		),
		authField(),
		tlsField(),
		limitsField(),
		object("reload", "Reloading the config while the bridge runs (docs/operations.md): on SIGHUP, and when a watched file changes. Agents, tokens, mappings, limits, TLS certificates and the log level change without dropping a connection; the other keys need a restart. A config with errors is refused whole, each error logged with its `file:line`, and the old one stays.",
			boolean("watch", "Reload when the config file, one of its mapping files, a TLS file or a JWT key file changes.").withDefault("true"),
			duration("debounce", "How long a watched file must stay unchanged before the reload: editors write a file in several steps.").withDefault("250ms"),
		),
		object("tracing", "OpenTelemetry traces (docs/operations.md): a span for each message received, translated and delivered, and one for each request until its answer, with W3C trace context read from and written into the messages' trace fields.",
			enum("exporter", "Where spans go: `none` (no spans are made), `otlp` (OTLP over HTTP, configured by the standard `OTEL_EXPORTER_OTLP_*` variables) or `stdout` (the spans as JSON, written to standard error beside the logs, for trying it out).",
				"none", "otlp", "stdout").withDefault("none"),
			number("sample_ratio", "The fraction of the traces that start at the bridge that are recorded; a trace an agent started keeps the agent's choice.").
				withDefault("1").checked(checkRatio),
		),
		list("agents", "The agents the bridge knows.", agent).
			named(fmt.Sprintf("a list of agents, each a mapping (%s)", agent.keyList())).distinctBy("id", "agent id").defaultIs("none"),
	).checkedBy(checkBridgeID).checkedBy(checkMCPTokens).checkedBy(checkUITokens)
	return root
}

// commandField is a program and its arguments.
func commandField(doc string) *field {
	f := list("command", doc, str("", "").named("an argument").emptyOK()).named("a list: the program and its arguments").checkedBy(checkProgram)
	f.nonEmpty = true
	f.typ = "list of strings"
	return f
}

// envField is environment variables for a child.
func envField() *field {
	val := str("", "").named(`a value (write "" for an empty one)`).hidden().emptyOK()
	f := mapOf("env", "Environment variables added to the bridge's own for the child; a number or `true` is taken as its text.", val).
		named("a mapping (variable names to values)")
	f.checkKey = checkEnvName
	return f
}

// mcpServerField is how to reach an agent that is an MCP server.
func mcpServerField() *field {
	headerValue := str("", "").named(`a value (write "" for an empty one)`).hidden().emptyOK()
	headers := mapOf("headers", "HTTP headers sent with every request.", headerValue).
		named("a mapping (header names to values)").only("a server over HTTP", "url")
	headers.checkKey = checkHeaderName
	f := object("mcp", "The agent is an MCP server, and the bridge its client: a `command` run on stdio, or a `url` of streamable HTTP. Its tools are the agent's.",
		commandField("The server to run, as a child on stdio: the program, then its arguments."),
		envField().only("a server the bridge runs", "command"),
		str("dir", "The child's working directory.").named("a directory").
			withDefault(".").defaultIs("the config file's directory").only("a server the bridge runs", "command").pathed(),
		str("url", "The server's streamable HTTP endpoint.").
			named("an HTTP URL of a streamable HTTP MCP endpoint (http:// or https://)").typed("URL (`http://`, `https://`)").checked(checkHTTPURL),
		headers,
	).defaultIs("none")
	f.choice = &choice{keys: []string{"command", "url"},
		twice: "two ways to reach one MCP server: %s (line %d) and %s; give one",
		none:  "says neither command (a server on stdio) nor url (streamable HTTP)"}
	return f
}

// schemaField is a JSON Schema, written in YAML.
func schemaField(key, doc string) *field {
	f := jsonValue(key, doc).named("a JSON Schema: a mapping ({type: object, properties: ...})").typed("JSON Schema")
	f.checkJSON = checkSchema
	return f
}

// patterns is a list of expose patterns.
func patterns(key, doc string) *field {
	return list(key, doc, str("", "").named("a pattern").checked(checkPattern)).named("a list of patterns").distinct()
}

// authField is auth: JWT verification, and the tokens the bridge mints.
func authField() *field {
	sign := object("sign", "The tokens the bridge writes into the messages it sends fuse agents (`authentication: {type: jwt, token}`), so that they can check the message came through the bridge: `sub` is the sender, `aud` the receiving agent.",
		str("key", "A PEM private key file: RSA signs RS256, an EC P-256 key ES256.").named("a PEM file path").
			defaultIs("HS256 with `hs256_secret`").pathed(),
		str("issuer", "The tokens' `iss`.").named("an issuer").defaultIs("`bridge_id`"),
		duration("ttl", "How long a minted token is valid.").withDefault("5m"),
	).defaultIs("none: the bridge mints no tokens")
	jwt := object("jwt", "JSON Web Tokens (RFC 7519; docs/security.md). An agent of any dialect presents one as a bearer token (WebSocket, HTTP, MCP), and a fuse message in its `authentication` member; the claim `subject_claim` names the agent id it may speak for. Keys may be combined: a token is checked against every key of its algorithm.",
		str("hs256_secret", "The HS256 key, best given as `${VAR}`.").named("a secret").defaultIs("none").hidden(),
		list("public_keys", "PEM files of RS256 and ES256 public keys (or certificates).", str("", "").named("a PEM file path").pathed()).
			named("a list of PEM file paths").distinct().defaultIs("none"),
		str("jwks_file", "A JSON Web Key Set file (RFC 7517) of RSA and EC public keys, picked by `kid`.").named("a JWKS file path").defaultIs("none").pathed(),
		str("issuer", "When set, every token must have this `iss`.").named("an issuer").defaultIs("none: any"),
		str("audience", "When set, every token's `aud` must include it.").named("an audience").defaultIs("none: any"),
		str("subject_claim", "The claim naming the agent id the token's holder may speak for.").named("a claim name").withDefault("sub"),
		boolean("required", "Every connection, of every dialect, must present a valid token: as a bearer token, or (fuse) in every message. Agents the bridge runs or dials itself are trusted as the config names them.").withDefault("false"),
		sign,
	).defaultIs("none: no JWT is verified").checkedBy(checkJWT)
	return object("auth", "How agents and clients prove who they are, beyond the agents' static `token`s (docs/security.md).", jwt)
}

// tlsField is tls: the listener's certificate, client certificates, and
// the CAs trusted for the agents the bridge dials.
func tlsField() *field {
	return object("tls", "TLS (docs/security.md): HTTPS and `wss://` on the listener, client certificates (mTLS), and the CAs the bridge trusts when it dials agents. The files are read again when they change, without dropping a connection.",
		str("cert", "The listener's certificate chain, a PEM file: with it, the listener speaks only TLS.").named("a PEM file path").defaultIs("none: plain HTTP").pathed(),
		str("key", "The certificate's private key, a PEM file.").named("a PEM file path").defaultIs("none").pathed(),
		str("client_ca", "PEM of the CAs that sign client certificates (mTLS). An agent's certificate names the agent id it may speak for: its Common Name, or its first DNS name when it has none.").
			named("a PEM file path").defaultIs("none: no client certificates").pathed(),
		enum("client_auth", "With `client_ca`: `require` (every client presents a certificate) or `optional` (those that do are checked, and bound to their name).", "require", "optional").
			withDefault("require").only("what to do with client certificates", "client_ca"),
		str("ca", "PEM of CAs trusted, beside the system's, for the agents the bridge dials: `wss://` URLs and `https://` webhooks.").named("a PEM file path").defaultIs("none: the system's").pathed(),
	).checkedBy(checkTLS)
}

// limitsField is limits: per-agent rates, connection caps and the HTTP
// server's timeouts.
func limitsField() *field {
	return object("limits", "Limits (docs/operations.md). A message over an agent's rate is answered with a retryable *unavailable* error carrying `retry_after`, in the sender's dialect; a connection over a cap gets HTTP 503 (`connections`) or 429 (`connections_per_address`) with `Retry-After`. `bridge_limited_total` counts each.",
		number("rate", "Messages per second each agent may send (a token bucket per agent); 0: no limit.").withDefault("0"),
		integer("burst", "How many messages an agent may send at once, above its rate.").atLeast(1).defaultIs("`rate`, at least 1"),
		integer("connections", "Open connections to the listener, all clients together; 0: no limit.").withDefault("100000"),
		integer("connections_per_address", "Open connections from one IP address; 0: no limit.").withDefault("0"),
		duration("read_header_timeout", "How long a client may take to send a request's headers.").withDefault("10s"),
		duration("idle_timeout", "How long an HTTP keep-alive connection may stay idle between requests.").withDefault("2m"),
	)
}
