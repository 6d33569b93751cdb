package config

import "time"

// MCP configures the bridge's MCP face (mcp:).
type MCP struct {
	Enabled     bool          // serve MCP (streamable HTTP) at /mcp
	Stateless   bool          // no MCP sessions on HTTP
	SessionIdle time.Duration // how long a session lives without a request
	ToolNames   string        // prefixed or bare
	Allow, Deny []string      // expose patterns: AGENT or AGENT:TOOL globs
	Tokens      []MCPToken    // bearer tokens; required on a listener that is not loopback
	OAuth       *OAuth        // the face as an OAuth 2.1 resource server; nil: off
	Policies    []MCPPolicy   // which tools an OAuth access token may see and call; none: all
	Limits      MCPLimits     // rates of tools/call per client and per tool
	CallTimeout time.Duration // bound of a tools/call; 0: request_timeout
	Sender      string        // the id MCP clients' requests carry
	Line        int           // line of the mcp section, for messages; 0 when the file has none
}

// MCPToken is a bearer token MCP clients present, and the agents whose
// tools it may see and call (none: all).
type MCPToken struct {
	Token  string
	Agents []string
}

// OAuth makes the MCP face an OAuth 2.1 resource server (mcp.oauth:): it
// takes access tokens (JWTs) that authorization servers issue for it.
type OAuth struct {
	Resource             string   // this resource's identifier (RFC 8707); "": the /mcp URL a request reached
	ResourceName         string   // its name for people, in its metadata
	AuthorizationServers []string // the issuers' URLs, in the metadata
	JWKSFile             string   // the issuers' keys, a JWKS file; or JWKSURL
	JWKSURL              string   // the issuers' keys, fetched
	Issuer               string   // the iss every token must name
	ScopesSupported      []string // the scopes the metadata lists
	RequiredScopes       []string // the scopes every token must hold
}

// MCPPolicy grants the access tokens that hold a scope, or whose claim has
// a value, the tools of Allow less those of Deny (mcp.policies[]).
type MCPPolicy struct {
	Scope       string // the scope a token must hold; or Claim and Value
	Claim       string // a claim a token must have...
	Value       string // ...equal to this, or (an array) holding it
	Allow, Deny []string
}

// MCPLimits bound how often MCP clients may call tools (mcp.limits:).
type MCPLimits struct {
	PerClient float64   // tools/call a second of one client; 0: no limit
	PerTool   []MCPRate // tools/call a second of one client to the tools of a pattern
}

// MCPRate is a rate of the calls of one client to the tools a pattern
// matches.
type MCPRate struct {
	Pattern   string
	PerSecond float64
}
