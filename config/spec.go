package config

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/transports/reach"
)

// serve returns the serve config's format: every key, its type, default,
// documentation and checks. docs/config.md's key reference and
// `mcp-bridge config schema` are generated from it; bind.go reads the
// decoded values into a Config. It is built once, on first use: the
// agents' ways to be reached are the transports' (package reach), which
// register them as the program starts.
var serve = sync.OnceValue(serveSpec)

func serveSpec() *spec.Spec {
	root := serveKeys()
	return &spec.Spec{
		Root:        root,
		Title:       "mcp-bridge serve config",
		Description: "The config file of `mcp-bridge serve`; docs/config.md is the reference.",
		Noun:        "config file",
		Shape:       fmt.Sprintf("a config file is a YAML mapping (%s)", root.KeyList()),
		Env:         true,
	}
}

// serveKeys is the serve config's top-level object.
func serveKeys() *spec.Node {
	tool := spec.Object("", "A tool declared with more than its name.",
		spec.String("name", "The operation's name, as mapping files write it (fuse's `capability/action`).").
			Named("an operation name").Required("every tool has a name"),
		spec.String("title", "A title for people.").Named("a title"),
		spec.String("description", "What the tool does, for MCP clients and the agents' directory.").Named("a description"),
		schemaField("input_schema", "A JSON Schema (draft 2020-12), in YAML, of the arguments."),
		schemaField("output_schema", "A JSON Schema (draft 2020-12), in YAML, of the result."),
		spec.String("version", "The version of the tool's definition, written into declarations that carry one (fuse's capability `version`).").Named("a version"),
	)
	toolName := spec.String("", "").Named("an operation name").Typed("name")

	agent := agentKeys(tool, toolName)

	token := spec.Object("", "A bearer token, and what it may reach.",
		spec.String("token", "The token, best given as `${VAR}`.").Named("a token").Required("every entry has a token").Secret(),
		spec.List("agents", "The agents whose tools this token sees and calls; without it, all.", spec.String("", "").Named("an agent id")).
			Named("a list of agent ids").Distinct(),
	)

	root := spec.Object("", "",
		spec.String("listen", "The one HTTP listener: the agents' WebSocket (`/ws`) and HTTP (`/v1`) endpoints, MCP (`/mcp`), the web console (`/ui/`), `/metrics`, `/healthz` and `/readyz`. The default takes connections from this machine only.").
			Named("host:port").Typed("host:port").Default("127.0.0.1:7300").Check(checkListen),
		spec.String("bridge_id", "The sender id of the messages the bridge writes itself (timeout and error replies, handshake answers). No agent may have it.").
			Named("an agent id").Default("mcp-bridge"),
		spec.Size("max_frame", "The largest message accepted; a larger one is answered with an error in the sender's dialect.").Default("1MiB"),
		spec.Duration("request_timeout", "How long a request waits for its reply when the message sets no timeout or ttl of its own.").Default("30s"),
		spec.Duration("write_timeout", "How long one delivery to an agent may block before it counts as failed.").Default("5s"),
		spec.Duration("shutdown_timeout", "How long a graceful shutdown (SIGINT, SIGTERM) may take.").Default("10s"),
		spec.Duration("dedupe_window", "How long a message id is remembered: a message sent again within it is delivered once, and a repeated request is answered from the first (bluelabel: by task id and retry_count).").
			Default("1m").Off(),
		spec.Duration("heartbeat", "How often WebSocket agents are pinged; 3 missed (or 3 request timeouts in a row) make an agent UNAVAILABLE until it answers.").
			Default("10s").Off(),
		spec.Object("retry", "When a request whose delivery failed, or that was answered with a retryable error, is delivered again, after a growing wait (specs/collab.md 5.2). The requester sees one answer.",
			spec.Int("max_retries", "How many times a request is delivered again; 0 never retries.").Default("3"),
			spec.Duration("initial_delay", "The first wait.").Default("1s"),
			spec.Duration("max_delay", "The longest wait.").Default("10s"),
			spec.Number("backoff_factor", "What each wait is multiplied by for the next.").AtLeast(1).Default("2"),
			spec.List("retryable_errors", "The canonical error codes whose answers are retried.",
				spec.Enum("", "", errorCodes...).Named("a canonical error code")).
				Named("a list of canonical error codes").Distinct().Default("[timeout, unavailable]"),
		).Rule(notMore("initial_delay", "max_delay")),
		spec.Object("circuit_breaker", "Each agent's circuit breaker (specs/collab.md 5.3): after `failure_threshold` failures in a row, requests to the agent are refused at once; after `reset_timeout`, `half_open_requests` probes go through, and as many successes close it again.",
			spec.Int("failure_threshold", "The failures in a row that open the breaker; 0 turns it off.").Default("5"),
			spec.Duration("reset_timeout", "How long the breaker stays open.").Default("1m"),
			spec.Int("half_open_requests", "The probes let through once it half-opens.").AtLeast(1).Default("3"),
		),
		spec.Enum("validate", "What each received message is checked against: `schema` (its dialect's JSON Schema and rules) or `decode` (the decoder's checks only: faster, for trusted agents).",
			"schema", "decode").Default("schema"),
		spec.Object("queue", "Bounds of the outbound queues, in messages. Past them a sender gets a retryable *unavailable* error (queue full).",
			spec.Int("per_agent", "One agent's queue.").AtLeast(1).Default("1000"),
			spec.Int("total", "All agents' queues together.").AtLeast(1).Default("100000"),
		),
		spec.Object("memory", "What the bridge's tables may hold, and the Go runtime's memory settings. Past a table's bound the oldest entry goes first, and `/metrics` counts it (`bridge_table_dropped_total`); `bridge_table_limit` and `bridge_table_size` show the bounds and how full each table is.",
			spec.Int("dedupe_entries", "Messages the dedupe table remembers: a 128-bit hash of each one's identity, about 100 bytes each.").AtLeast(1).Default("100000"),
			spec.Size("dedupe_answers", "Bytes of answers kept for requests sent again within `dedupe_window`; 0 keeps none (a repeated request whose first is answered is then refused).").Default("8MiB").Off(),
			spec.Int("pending_requests", "Requests open at once, awaiting their answers; past it the oldest is answered *unavailable*.").AtLeast(1).Default("100000"),
			spec.Int("a2a_tasks", "Tasks the A2A face keeps (`a2a.task_ttl`); past it the task changed longest ago is forgotten.").AtLeast(1).Default("10000"),
			spec.Int("mcp_sessions", "MCP sessions the MCP face keeps (`mcp.session_idle`), its own and, in a cluster, those of other instances it served; past it the session used least lately ends.").AtLeast(1).Default("10000"),
			spec.Int("gogc", "The garbage collector's target, as Go's `GOGC`: the heap grows by this percentage of the live heap before a collection; 0 turns the collector off (then only `limit` starts one). The default, one and a half times Go's, makes a third fewer collections under load for a sixth more resident memory (README, \"Under load\"). The `GOGC` environment variable, when set, wins.").Default("150"),
			spec.Size("limit", "A soft limit on the Go runtime's memory, as Go's `GOMEMLIMIT`; 0: none. The `GOMEMLIMIT` environment variable, when set, wins.").Default("0").Off(),
		),
		spec.Bool("pprof", "Serve the Go runtime's profiles at `/debug/pprof/` on the listener, for measuring. Anyone who reaches the listener can read them: keep it on loopback.").Default("false"),
		spec.List("mappings", "Mapping files layered over the embedded defaults, in order, the later winning.",
			spec.String("", "").Named("a mapping file path").Path()).
			Named("a list of mapping file paths").Distinct().DefaultIs("none"),
		spec.Object("log", "Logging.",
			spec.Enum("level", "The least severe level logged.", "debug", "info", "warn", "error").Named("a log level").Default("info"),
		),
		spec.Object("http", "The HTTP API (`/v1`).",
			spec.Duration("forget_after", "How long an agent known only from the messages it POSTed to `/v1/{dialect}/messages` stays listed in `/v1/agents` after its last one; 0s keeps it.").
				Default("10m").Off(),
		),
		spec.Object("mcp", "The MCP face (docs/mcp.md): every reachable agent's tools as MCP tools, at `/mcp` on the listener and on stdio with `serve --mcp-stdio`.",
			spec.Bool("enabled", "Serve MCP (streamable HTTP) at `/mcp`, and allow `serve --mcp-stdio`.").Default("true"),
			spec.Bool("stateless", "No MCP sessions on HTTP.").Default("false"),
			spec.Duration("session_idle", "How long an MCP session lives without a request; then it ends (404 to its next request). `memory.mcp_sessions` bounds how many are kept.").Default("1h"),
			spec.Enum("tool_names", "How tools are named: `prefixed` (`<agent>__<tool>`) or `bare` (the tool's own name where it is unique).", "prefixed", "bare").
				Default("prefixed"),
			spec.Object("expose", "Which tools MCP clients see: those that match an allow pattern and no deny pattern. A pattern is `AGENT` or `AGENT:TOOL`, each a glob as Go's `path.Match` reads it.",
				patterns("allow", "Patterns of the tools shown.").Default(`["*"]`),
				patterns("deny", "Patterns of the tools hidden.").Default("[]"),
			),
			spec.List("tokens", "Bearer tokens MCP clients present. Required while the face is on and `listen` is not a loopback address, unless `mcp.oauth` (or `auth.jwt`) is set. They work beside OAuth: `agents` narrows what they see; `mcp.policies`, `mcp.oauth.required_scopes` do not apply to them.", token).
				Named("a list of {token, agents}").DistinctBy("token", "token").DefaultIs("none"),
			oauthField(),
			policiesField(),
			mcpLimitsField(),
			spec.Duration("call_timeout", "A `tools/call`'s time limit.").DefaultIs("`request_timeout`"),
			spec.String("sender", "The sender id MCP clients' requests carry to the agents.").Named("an agent id").Default("mcp-client"),
		),
		spec.Object("a2a", "The A2A face (docs/a2a.md): every agent the bridge knows, whatever its dialect, served as an A2A v1.0 agent at `/a2a/<agent>` (JSON-RPC), its agent card at `/a2a/<agent>/.well-known/agent-card.json`, the cards listed at `/a2a`. It asks for the tokens of `mcp.tokens` (an entry's `agents` narrows the agents it reaches) or a JWT of `auth.jwt`.",
			spec.Bool("enabled", "Serve the agents at `/a2a`.").
				DefaultIs("on when `listen` is loopback, or when there are tokens to ask for (`mcp.tokens`, `auth.jwt`); off otherwise"),
			spec.Object("expose", "Which agents and skills A2A clients see, as `mcp.expose`: an agent is served while one of its tools is shown.",
				patterns("allow", "Patterns of the skills shown.").Default(`["*"]`),
				patterns("deny", "Patterns of the skills hidden.").Default("[]"),
			),
			spec.String("sender", "The sender id A2A clients' requests carry to the agents (a token of `auth.jwt` carries its own).").Named("an agent id").Default("a2a-client"),
			spec.Duration("task_ttl", "How long a task is kept after its last change, for `GetTask`, `ListTasks` and `SubscribeToTask`.").Default("1h"),
		),
		spec.Object("ui", "The web console (docs/console.md) at `/ui/` on the listener: the agents, the traffic, a translation playground, conformance runs and a chart of the message rate and latency.",
			spec.Bool("enabled", "Serve the console at `/ui/`. It asks for a token of `mcp.tokens` that names no agents, when there is one.").
				DefaultIs("on when `listen` is loopback, or when `mcp.tokens` has a token that names no agents; off otherwise"),
			spec.Int("traffic", "How many of the latest messages the traffic view keeps.").AtLeast(1).Default("500"),
			spec.Size("frame_limit", "How much of each frame the traffic view keeps; a longer frame is shown cut.").Default("16KiB"),
			spec.Int("viewers", "How many live views (server-sent event streams) may be open at once; another is refused until one closes.").AtLeast(1).Default("16"),
		),
		spec.Object("cluster", "Joining a cluster of bridges on NATS, which then behave as one. With neither `nats` nor `embedded`, the bridge runs alone.",
			spec.String("nats", "The NATS server to join; `serve --nats URL` overrides it.").
				Named("a NATS URL (nats:// or tls://; several comma-separated)").Typed("URLs (`nats://`, `tls://`), comma-separated").
				DefaultIs("none").Check(checkNATSURLs),
			spec.String("name", "This instance's name, unique in the cluster.").Named("an instance name").
				DefaultIs("the host name and a random suffix").Check(checkInstanceName),
			spec.Bool("embedded", "Run a NATS server in this process, and join it.").Default("false"),
			spec.String("listen", "Where the embedded NATS server listens.").Named("host:port").Typed("host:port").
				Default(DefaultClusterListen).Check(checkListen),
			spec.String("prefix", "The subjects' prefix: clusters with different prefixes can share a NATS.").Named("a subject prefix").
				Default("mcp-bridge").Check(checkSubjectPrefix),
			spec.String("credentials", "A NATS credentials file.").Named("a credentials file").DefaultIs("none").Path(),
			spec.String("token", "A NATS token.").Named("a token").DefaultIs("none").Secret(),
			spec.Duration("heartbeat", "How often the instance announces its agents; an instance silent for three is gone.").Default("2s"),
		),
		authField(),
		tlsField(),
		limitsField(),
		spec.Object("reload", "Reloading the config while the bridge runs (docs/operations.md): on SIGHUP, and when a watched file changes. Agents, tokens, mappings, limits, TLS certificates and the log level change without dropping a connection; the other keys need a restart. A config with errors is refused whole, each error logged with its `file:line`, and the old one stays.",
			spec.Bool("watch", "Reload when the config file, one of its mapping files, a TLS file or a JWT key file changes.").Default("true"),
			spec.Duration("debounce", "How long a watched file must stay unchanged before the reload: editors write a file in several steps.").Default("250ms"),
		),
		spec.Object("tracing", "OpenTelemetry traces (docs/operations.md): a span for each message received, translated and delivered, and one for each request until its answer, with W3C trace context read from and written into the messages' trace fields.",
			spec.Enum("exporter", "Where spans go: `none` (no spans are made), `otlp` (OTLP over HTTP, configured by the standard `OTEL_EXPORTER_OTLP_*` variables) or `stdout` (the spans as JSON, written to standard error beside the logs, for trying it out).",
				"none", "otlp", "stdout").Default("none"),
			spec.Number("sample_ratio", "The fraction of the traces that start at the bridge that are recorded; a trace an agent started keeps the agent's choice.").
				Default("1").Check(checkRatio),
		),
		spec.List("agents", "The agents the bridge knows.", agent).
			Named(fmt.Sprintf("a list of agents, each a mapping (%s)", agent.KeyList())).DistinctBy("id", "agent id").DefaultIs("none"),
	).Rule(checkBridgeID).Rule(checkMCPTokens).Rule(checkA2ATokens).Rule(checkUITokens)
	return root
}

// agentKeys is an agent entry: its own keys, then those of every way to
// reach it (package reach), then restart_backoff.
func agentKeys(tool, toolName *spec.Node) *spec.Node {
	ways := reach.Ways()
	var names, fixed []string
	var speakers strings.Builder
	for _, w := range ways {
		names = append(names, w.Name)
		if w.Dialect != "" {
			fixed = append(fixed, "`"+w.Name+"`")
			fmt.Fprintf(&speakers, " %s (`%s`) has none.", capital(w.Speaker), w.Name)
		}
	}
	dialect := spec.String("dialect", "The dialect it speaks: `elizaacl`, `collab`, `bluelabel`, `fuse`, `swarm`, `a2a`, or one a mapping file declares."+speakers.String()).
		Named("a dialect name")
	if len(fixed) > 0 {
		dialect.DefaultIs("required, except with " + spec.OrList(fixed))
	} else {
		dialect.DefaultIs("required")
	}
	keys := []*spec.Node{
		spec.String("id", "The agent's canonical id: the name messages use for it, as sender or receiver. Unique in the file, and not `bridge_id`.").
			Named("an agent id").Required("every agent has an id"),
		dialect,
		spec.String("token", "The token a connection claiming this id must present. Without it, the id needs none.").
			Named("a token (a non-empty string)").Secret(),
		spec.List("tools", "The operations it serves: for routing a request that names no receiver, and as its tools for MCP clients where its dialect declares none (bluelabel) or names only (swarm). Each a name, or a descriptor.",
			spec.OneOf("", "", toolName, tool)).
			Named(fmt.Sprintf("a list of tools: names, or mappings (%s)", tool.KeyList())).DistinctBy("name", "tool"),
		spec.List("subscribe", "The topics it receives.", spec.String("", "").Named("a topic")).
			Named("a list of topics").Distinct(),
	}
	for _, w := range ways {
		keys = append(keys, w.Key)
	}
	for _, w := range ways {
		keys = append(keys, w.With...)
	}
	if b := restartBackoff(ways); b != nil {
		keys = append(keys, b)
	}
	agent := spec.Object("", "One agent the bridge knows: its id, its dialect, and how the bridge reaches it.", keys...).Rule(checkFixedDialect)
	if len(names) > 0 {
		agent.Choice("two ways to reach one agent: %s (line %d) and %s; give at most one", "", names...)
	}
	return agent
}

// restartBackoff is the key restart_backoff, for the ways that reach their
// agent again; nil when there is none.
func restartBackoff(ways []*reach.Way) *spec.Node {
	var again []*reach.Way
	var docs []string
	for _, w := range ways {
		if w.Again != nil {
			again = append(again, w)
			docs = append(docs, w.Again.Doc)
		}
	}
	if len(again) == 0 {
		return nil
	}
	slices.SortStableFunc(again, func(a, b *reach.Way) int { return a.Again.Rank - b.Again.Rank })
	names := make([]string, len(again))
	for i, w := range again {
		names[i] = w.Name
	}
	return spec.Object("restart_backoff", fmt.Sprintf("The waits before %s: from `min`, growing to `max`.", orSeries(docs)),
		spec.Duration("min", "The first wait.").Default("100ms"),
		spec.Duration("max", "The longest wait.").Default("10s"),
	).Only("how long to wait before restarting or redialling the agent", names...).Rule(notMore("min", "max"))
}

// orSeries joins phrases as "a", "a or b", or "a, b, or c".
func orSeries(phrases []string) string {
	if len(phrases) < 3 {
		return strings.Join(phrases, " or ")
	}
	return strings.Join(phrases[:len(phrases)-1], ", ") + ", or " + phrases[len(phrases)-1]
}

// capital is s with its first letter in upper case.
func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// schemaField is a JSON Schema, written in YAML.
func schemaField(key, doc string) *spec.Node {
	f := spec.JSON(key, doc).Named("a JSON Schema: a mapping ({type: object, properties: ...})").Typed("JSON Schema")
	return f.CheckJSON(checkSchema).Schema(map[string]any{"type": "object", "$ref": "https://json-schema.org/draft/2020-12/schema"})
}

// patterns is a list of expose patterns.
func patterns(key, doc string) *spec.Node {
	return spec.List(key, doc, spec.String("", "").Named("a pattern").Check(checkPattern)).Named("a list of patterns").Distinct()
}

// oauthField is mcp.oauth: the MCP face as an OAuth 2.1 resource server.
func oauthField() *spec.Node {
	url := func(what string) *spec.Node {
		return spec.String("", "").Named(what + " (http:// or https://)").Check(reach.CheckHTTPURL)
	}
	f := spec.Object("oauth", "The MCP face as an OAuth 2.1 resource server (docs/security.md): every HTTP request to `/mcp` presents an access token, a JWT that an authorization server issued for this resource, as `Authorization: Bearer`; `/.well-known/oauth-protected-resource` (and `.../mcp`) describe it (RFC 9728). `mcp.tokens` keep working beside it.",
		spec.String("resource", "This resource's identifier (RFC 8707): every token's `aud` must contain it. Behind a proxy, set it to the URL clients use.").
			Named("the URL of /mcp as clients reach it (http:// or https://)").Typed("URL (`http://`, `https://`)").Check(reach.CheckHTTPURL).
			DefaultIs("`<scheme>://<the request's Host>/mcp`"),
		spec.String("resource_name", "The resource's name for people, in its metadata.").Named("a name").Default("mcp-bridge"),
		spec.List("authorization_servers", "The authorization servers that issue tokens for it, as its metadata lists them (their issuer URLs).", url("an authorization server's URL")).
			Named("a list of URLs").Distinct().NonEmpty().Required("clients find the authorization server here"),
		spec.String("jwks_file", "The authorization servers' public keys, a JSON Web Key Set file (RSA, EC P-256 and Ed25519 keys).").Named("a JWKS file path").DefaultIs("none").Path(),
		spec.String("jwks_url", "The authorization servers' public keys, a JSON Web Key Set fetched from this URL when first needed, and again when a token names an unknown `kid` (at most once every 10 s); between fetches the cached keys serve. `http://` only on loopback.").
			Named("an https:// URL (http:// on loopback)").Typed("URL (`https://`; `http://` on loopback)").DefaultIs("none").Check(checkJWKSURL),
		spec.String("issuer", "Every token's `iss` must be this.").Named("an issuer").DefaultIs("the authorization server, when `authorization_servers` lists one"),
		spec.List("scopes_supported", "The scopes its metadata lists.", spec.String("", "").Named("a scope")).
			Named("a list of scopes").Distinct().DefaultIs("none"),
		spec.List("required_scopes", "The scopes every token must hold; a token without them is answered 403 (`insufficient_scope`).", spec.String("", "").Named("a scope")).
			Named("a list of scopes").Distinct().DefaultIs("none"),
	).DefaultIs("none: no OAuth").Rule(checkOAuthIssuer)
	return f.Choice("two sources of keys: %s (line %d) and %s; give one", "names no keys to verify tokens with: give jwks_file or jwks_url", "jwks_file", "jwks_url")
}

// policiesField is mcp.policies: which tools an access token may see.
func policiesField() *spec.Node {
	policy := spec.Object("", "A grant: the tokens that hold `scope` (or whose claim has the value `claim` names) may see and call the tools of `allow` less those of `deny`.",
		spec.String("scope", "The scope a token must hold.").Named("a scope"),
		spec.Map("claim", "A claim and the value it must have, or (an array claim) hold: `{groups: ops}`.", spec.String("", "").Named("a value")).
			Named("a mapping of one claim to its value").Rule(checkOneClaim),
		toolPatterns("allow", "Patterns of the tools granted.").Required("a policy grants some tools"),
		toolPatterns("deny", "Patterns of the tools taken out of `allow`.").Default("[]"),
	)
	policy.Choice("two conditions: %s (line %d) and %s; give one", "names no condition: give scope or claim", "scope", "claim")
	return spec.List("policies", "Which tools an OAuth access token (`mcp.oauth`) may see and call: those that a policy it meets allows and does not deny. A tool no policy grants is absent from its `tools/list` and unknown to its `tools/call`. A pattern is `AGENT:TOOL` (globs, as `mcp.expose`) or a glob of MCP tool names (`*__search`). Static `mcp.tokens` are not subject to them.", policy).
		Named("a list of policies, each a mapping (scope or claim, allow, deny)").DefaultIs("none: a valid token sees every tool")
}

// mcpLimitsField is mcp.limits: rates of tools/call.
func mcpLimitsField() *spec.Node {
	rate := spec.String("", "").Named("a rate (20/s, 100/m, 1000/h)").Typed("rate").Check(checkRate)
	return spec.Object("limits", "How often one MCP client (an access token's subject, or a static token) may call tools; the burst is one second's worth. A `tools/call` over a limit gets a result with `isError: true` saying so; a client's HTTP requests to `/mcp` past four times `per_client` (at least 10 a second) are answered 429 with `Retry-After`. `mcp_rate_limited_total` counts each.",
		spec.String("per_client", "Every `tools/call` of one client.").Named("a rate (20/s, 100/m, 1000/h)").Typed("rate").Check(checkRate).DefaultIs("none"),
		spec.Map("per_tool", "One client's calls of the tools a pattern matches (`AGENT:TOOL` or an MCP tool-name glob), each pattern counted apart.", rate).
			Named("a mapping of tool patterns to rates").CheckKey(checkToolPattern).DefaultIs("none"),
	)
}

// toolPatterns is a list of tool patterns: AGENT:TOOL globs, or globs of
// MCP tool names.
func toolPatterns(key, doc string) *spec.Node {
	return spec.List(key, doc, spec.String("", "").Named("a pattern").Check(checkToolPattern)).Named("a list of patterns").Distinct()
}

// authField is auth: JWT verification, and the tokens the bridge mints.
func authField() *spec.Node {
	sign := spec.Object("sign", "The tokens the bridge writes into the messages it sends fuse agents (`authentication: {type: jwt, token}`), so that they can check the message came through the bridge: `sub` is the sender, `aud` the receiving agent.",
		spec.String("key", "A PEM private key file: RSA signs RS256, an EC P-256 key ES256.").Named("a PEM file path").
			DefaultIs("HS256 with `hs256_secret`").Path(),
		spec.String("issuer", "The tokens' `iss`.").Named("an issuer").DefaultIs("`bridge_id`"),
		spec.Duration("ttl", "How long a minted token is valid.").Default("5m"),
	).DefaultIs("none: the bridge mints no tokens")
	jwt := spec.Object("jwt", "JSON Web Tokens (RFC 7519; docs/security.md). An agent of any dialect presents one as a bearer token (WebSocket, HTTP, MCP), and a fuse message in its `authentication` member; the claim `subject_claim` names the agent id it may speak for. Keys may be combined: a token is checked against every key of its algorithm.",
		spec.String("hs256_secret", "The HS256 key, best given as `${VAR}`.").Named("a secret").DefaultIs("none").Secret(),
		spec.List("public_keys", "PEM files of RS256 and ES256 public keys (or certificates).", spec.String("", "").Named("a PEM file path").Path()).
			Named("a list of PEM file paths").Distinct().DefaultIs("none"),
		spec.String("jwks_file", "A JSON Web Key Set file (RFC 7517) of RSA and EC public keys, picked by `kid`.").Named("a JWKS file path").DefaultIs("none").Path(),
		spec.String("issuer", "When set, every token must have this `iss`.").Named("an issuer").DefaultIs("none: any"),
		spec.String("audience", "When set, every token's `aud` must include it.").Named("an audience").DefaultIs("none: any"),
		spec.String("subject_claim", "The claim naming the agent id the token's holder may speak for.").Named("a claim name").Default("sub"),
		spec.Bool("required", "Every connection, of every dialect, must present a valid token: as a bearer token, or (fuse) in every message. Agents the bridge runs or dials itself are trusted as the config names them.").Default("false"),
		sign,
	).DefaultIs("none: no JWT is verified").Rule(checkJWT)
	return spec.Object("auth", "How agents and clients prove who they are, beyond the agents' static `token`s (docs/security.md).", jwt)
}

// tlsField is tls: the listener's certificate, client certificates, and
// the CAs trusted for the agents the bridge dials.
func tlsField() *spec.Node {
	return spec.Object("tls", "TLS (docs/security.md): HTTPS and `wss://` on the listener, client certificates (mTLS), and the CAs the bridge trusts when it dials agents. The files are read again when they change, without dropping a connection.",
		spec.String("cert", "The listener's certificate chain, a PEM file: with it, the listener speaks only TLS.").Named("a PEM file path").DefaultIs("none: plain HTTP").Path(),
		spec.String("key", "The certificate's private key, a PEM file.").Named("a PEM file path").DefaultIs("none").Path(),
		spec.String("client_ca", "PEM of the CAs that sign client certificates (mTLS). An agent's certificate names the agent id it may speak for: its Common Name, or its first DNS name when it has none.").
			Named("a PEM file path").DefaultIs("none: no client certificates").Path(),
		spec.Enum("client_auth", "With `client_ca`: `require` (every client presents a certificate) or `optional` (those that do are checked, and bound to their name).", "require", "optional").
			Default("require").Only("what to do with client certificates", "client_ca"),
		spec.String("ca", "PEM of CAs trusted, beside the system's, for the agents the bridge dials: `wss://` URLs and `https://` webhooks.").Named("a PEM file path").DefaultIs("none: the system's").Path(),
	).Rule(checkTLS)
}

// limitsField is limits: per-agent rates, connection caps and the HTTP
// server's timeouts.
func limitsField() *spec.Node {
	return spec.Object("limits", "Limits (docs/operations.md). A message over an agent's rate is answered with a retryable *unavailable* error carrying `retry_after`, in the sender's dialect; a connection over a cap gets HTTP 503 (`connections`) or 429 (`connections_per_address`) with `Retry-After`. `bridge_limited_total` counts each.",
		spec.Number("rate", "Messages per second each agent may send (a token bucket per agent); 0: no limit.").Default("0"),
		spec.Int("burst", "How many messages an agent may send at once, above its rate.").AtLeast(1).DefaultIs("`rate`, at least 1"),
		spec.Int("connections", "Open connections to the listener, all clients together; 0: no limit.").Default("100000"),
		spec.Int("connections_per_address", "Open connections from one IP address; 0: no limit.").Default("0"),
		spec.Duration("read_header_timeout", "How long a client may take to send a request's headers.").Default("10s"),
		spec.Duration("idle_timeout", "How long an HTTP keep-alive connection may stay idle between requests.").Default("2m"),
	)
}
