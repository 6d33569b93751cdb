package config

// UI configures the web console (ui:).
type UI struct {
	// Enabled serves the console at /ui/; nil leaves it to On's default.
	Enabled    *bool
	Traffic    int // how many of the latest messages the traffic view keeps
	FrameLimit int // how much of each frame the traffic view keeps, in bytes
	Viewers    int // how many live views may be open at once
	Line       int // line of the ui section, for messages; 0 when the file has none
}

// UIOn reports whether the console is served, for the config c (its
// listener, and its MCP tokens): as ui.enabled says, and by default when
// the listener is loopback or an MCP token names no agents.
func (c *Config) UIOn() bool {
	if c.UI.Enabled != nil {
		return *c.UI.Enabled
	}
	return Loopback(c.Listen) || len(c.ConsoleTokens()) > 0
}

// ConsoleTokens are the tokens the console asks for: those of mcp.tokens
// that name no agents, as the console shows every agent.
func (c *Config) ConsoleTokens() []string {
	var out []string
	for _, t := range c.MCP.Tokens {
		if len(t.Agents) == 0 {
			out = append(out, t.Token)
		}
	}
	return out
}
