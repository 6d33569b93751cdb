package config

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// MCP configures the bridge's MCP face (mcp:).
type MCP struct {
	Enabled     bool          // serve MCP (streamable HTTP) at /mcp
	Stateless   bool          // no MCP sessions on HTTP
	ToolNames   string        // prefixed or bare
	Allow, Deny []string      // expose patterns: AGENT or AGENT:TOOL globs
	Tokens      []MCPToken    // bearer tokens; required on a listener that is not loopback
	CallTimeout time.Duration // bound of a tools/call; 0: request_timeout
	Sender      string        // the id MCP clients' requests carry
	Line        int           // line of the mcp key, for messages
}

// MCPToken is a bearer token MCP clients present, and the agents whose
// tools it may see and call (none: all).
type MCPToken struct {
	Token  string
	Agents []string
}

// DefaultMCP is the MCP face of a config that says nothing of it.
var DefaultMCP = MCP{Enabled: true, ToolNames: "prefixed", Sender: "mcp-client"}

const mcpKeys = "enabled, stateless, tool_names, expose, tokens, call_timeout, sender"

// mcp reads the mcp section.
func (d *decoder) mcp(n *yaml.Node, c *Config) {
	c.MCP.Line = n.Line
	if !d.mapping(n, "mcp", mcpKeys) {
		return
	}
	d.pairs("mcp.", n, func(k, v *yaml.Node) {
		at := "mcp." + k.Value
		switch k.Value {
		case "enabled":
			d.boolean(v, at, &c.MCP.Enabled)
		case "stateless":
			d.boolean(v, at, &c.MCP.Stateless)
		case "tool_names":
			if s, ok := d.scalar(v, at, "prefixed or bare"); ok {
				if s != "prefixed" && s != "bare" {
					d.fail(v.Line, at, "%q is not prefixed or bare", s)
					return
				}
				c.MCP.ToolNames = s
			}
		case "expose":
			d.expose(v, at, &c.MCP)
		case "tokens":
			c.MCP.Tokens = d.mcpTokens(v, at)
		case "call_timeout":
			d.duration(v, at, &c.MCP.CallTimeout)
		case "sender":
			if s, ok := d.scalar(v, at, "an agent id"); ok {
				c.MCP.Sender = s
			}
		default:
			d.fail(k.Line, at, "unknown key (want %s)", mcpKeys)
		}
	})
}

// expose reads the allow and deny patterns.
func (d *decoder) expose(n *yaml.Node, at string, m *MCP) {
	if !d.mapping(n, at, "allow, deny") {
		return
	}
	d.pairs(at+".", n, func(k, v *yaml.Node) {
		kat := at + "." + k.Value
		var dst *[]string
		switch k.Value {
		case "allow":
			dst = &m.Allow
		case "deny":
			dst = &m.Deny
		default:
			d.fail(k.Line, kat, "unknown key (want allow, deny)")
			return
		}
		list := d.words(v, kat, "pattern")
		for i, p := range list {
			if problem := checkPattern(p); problem != "" {
				d.fail(v.Content[i].Line, fmt.Sprintf("%s[%d]", kat, i), "%s", problem)
			}
		}
		*dst = list
	})
}

// checkPattern says what is wrong with an expose pattern (AGENT or
// AGENT:TOOL, globs as path.Match reads them), or "".
func checkPattern(p string) string {
	for _, g := range strings.SplitN(p, ":", 2) {
		if g == "" {
			return fmt.Sprintf("%q: an empty pattern (want AGENT or AGENT:TOOL)", p)
		}
		if _, err := path.Match(g, ""); err != nil {
			return fmt.Sprintf("%q is not a glob pattern: %v", p, err)
		}
	}
	return ""
}

// mcpTokens reads the bearer tokens: each a mapping of token and,
// optionally, agents.
func (d *decoder) mcpTokens(n *yaml.Node, at string) []MCPToken {
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, at, "must be a list of {token, agents}")
		return nil
	}
	var out []MCPToken
	seen := map[string]int{}
	for i, tn := range n.Content {
		tat := fmt.Sprintf("%s[%d]", at, i)
		tn = deref(tn)
		if !d.mapping(tn, tat, "token, agents") {
			continue
		}
		var t MCPToken
		d.pairs(tat+".", tn, func(k, v *yaml.Node) {
			switch k.Value {
			case "token":
				if s, ok := d.scalar(v, tat+".token", "a token"); ok {
					if first, dup := seen[s]; dup {
						d.fail(v.Line, tat+".token", "the same token is listed twice (first at line %d)", first)
						return
					}
					seen[s] = v.Line
					t.Token = s
				}
			case "agents":
				t.Agents = d.words(v, tat+".agents", "agent id")
			default:
				d.fail(k.Line, tat+"."+k.Value, "unknown key (want token, agents)")
			}
		})
		if t.Token == "" {
			if !slices.ContainsFunc(tn.Content, func(k *yaml.Node) bool { return k.Value == "token" }) {
				d.fail(tn.Line, tat+".token", "missing: every entry has a token")
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

// boolean reads true or false into *dst.
func (d *decoder) boolean(n *yaml.Node, key string, dst *bool) {
	s, ok := d.scalar(n, key, "true or false")
	if !ok {
		return
	}
	switch s {
	case "true":
		*dst = true
	case "false":
		*dst = false
	default:
		d.fail(n.Line, key, "%q is not true or false", s)
	}
}
