package config

import "time"

// MCP configures the bridge's MCP face (mcp:).
type MCP struct {
	Enabled     bool          // serve MCP (streamable HTTP) at /mcp
	Stateless   bool          // no MCP sessions on HTTP
	ToolNames   string        // prefixed or bare
	Allow, Deny []string      // expose patterns: AGENT or AGENT:TOOL globs
	Tokens      []MCPToken    // bearer tokens; required on a listener that is not loopback
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
