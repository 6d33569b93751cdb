package config

import "time"

// A2A configures the bridge's A2A face (a2a:): every agent served as an
// A2A agent at /a2a/<agent>.
type A2A struct {
	Enabled     *bool         // serve the agents at /a2a; nil: A2AOn decides
	Allow, Deny []string      // expose patterns: AGENT or AGENT:TOOL globs
	Sender      string        // the id A2A clients' requests carry
	TaskTTL     time.Duration // how long a task is kept after its last change
}

// A2AOn reports whether the A2A face is on: as a2a.enabled says, or by
// default when the listener is loopback or there are tokens to ask for
// (mcp.tokens, auth.jwt).
func (c *Config) A2AOn() bool {
	if c.A2A.Enabled != nil {
		return *c.A2A.Enabled
	}
	return Loopback(c.Listen) || len(c.MCP.Tokens) > 0 || c.Auth.JWT != nil
}
