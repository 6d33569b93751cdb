package mcpface

import (
	"fmt"
	"sort"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Tool names. An agent's tool is named "<agent id>__<tool>" (two
// underscores), where <tool> is the operation's own name (fuse's action,
// collab's action, a swarm tool name...), or "<capability>_<action>" when
// two tools of the agent have the same action; characters outside
// [A-Za-z0-9_.-] become "_" and a name is at most maxName characters. With NamesBare, a tool whose own name is
// unique among all the tools shown is named by it alone. Two tools whose
// names come out the same are settled the same way every time: the tools
// are taken in the order of agent id and then operation name, the first
// keeps the name and each later one gets "_2", "_3"... (shortened to fit).

// The ways of naming tools (mcp.tool_names).
const (
	NamesPrefixed = "prefixed"
	NamesBare     = "bare"
)

// maxName is the longest tool name MCP clients accept.
const maxName = 128

// separator joins an agent id and its tool's name.
const separator = "__"

// sanitize replaces each character a tool name may not have with "_".
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// clip shortens name to at most n bytes.
func clip(name string, n int) string {
	if len(name) <= n {
		return name
	}
	return name[:n]
}

// clash is two or more tools that wanted one name.
type clash struct {
	name  string
	tools []string // "agent/tool", the first kept the name
}

// name gives each tool its MCP name, in the order of ts, which must be
// sorted by agent and then by name (bridge.Tools gives that order). It
// returns the names, in the order of ts, and the clashes it settled.
func name(ts []bridge.Tool, style string) ([]string, []clash) {
	own := ownNames(ts)
	want := make([]string, len(ts))
	if style == NamesBare {
		count := map[string]int{}
		for _, n := range own {
			count[n]++
		}
		for i, n := range own {
			if count[n] == 1 {
				want[i] = clip(n, maxName)
			}
		}
	}
	for i, t := range ts {
		if want[i] == "" {
			want[i] = clip(sanitize(t.Agent)+separator+own[i], maxName)
		}
	}
	names := make([]string, len(ts))
	taken := make(map[string]int, len(ts)) // name -> index of the tool that has it
	clashes := map[string]*clash{}
	for i, w := range want {
		n := w
		for k := 2; ; k++ {
			if _, dup := taken[n]; !dup {
				break
			}
			suffix := fmt.Sprintf("_%d", k)
			n = clip(w, maxName-len(suffix)) + suffix
		}
		if n != w {
			c := clashes[w]
			if c == nil {
				first := ts[taken[w]]
				c = &clash{name: w, tools: []string{first.Agent + "/" + first.Name}}
				clashes[w] = c
			}
			c.tools = append(c.tools, ts[i].Agent+"/"+ts[i].Name)
		}
		taken[n] = i
		names[i] = n
	}
	out := make([]clash, 0, len(clashes))
	for _, c := range clashes {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return names, out
}

// ownNames returns each tool's own name, sanitized: its action, or its
// capability and action when another tool of its agent has the same action.
func ownNames(ts []bridge.Tool) []string {
	type key struct{ agent, action string }
	count := map[key]int{}
	for _, t := range ts {
		count[key{t.Agent, action(t)}]++
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		n := action(t)
		if count[key{t.Agent, n}] > 1 && t.Operation.Capability != "" && t.Operation.Name != "" {
			n = t.Operation.Capability + "_" + n
		}
		out[i] = sanitize(n)
	}
	return out
}

// action is the name a tool's requests give its operation: the action of
// two levels, else the one name there is.
func action(t bridge.Tool) string {
	if t.Operation.Name != "" {
		return t.Operation.Name
	}
	return t.Operation.Capability
}

// String says which tools clashed and how it was settled.
func (c clash) String() string {
	return fmt.Sprintf("%s: %s keeps it; %s numbered in order", c.name, c.tools[0], strings.Join(c.tools[1:], ", "))
}
