package config

import (
	"fmt"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
)

const agentKeys = "id, dialect, token, tools, subscribe, url, webhook, command, mcp, env, dir, restart_backoff"

// agents reads the agents list, refusing duplicate ids and the bridge's own.
func (d *decoder) agents(n *yaml.Node, bridgeID string) []Agent {
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, "agents", "must be a list of agents, each a mapping (%s)", agentKeys)
		return nil
	}
	out := make([]Agent, 0, len(n.Content))
	ids := map[string]int{}
	for i, en := range n.Content {
		key := fmt.Sprintf("agents[%d]", i)
		a, idLine := d.agent(deref(en), key)
		if a.ID == "" {
			continue
		}
		switch first, dup := ids[a.ID]; {
		case dup:
			d.fail(idLine, key+".id", "duplicate agent id %q (first at line %d)", a.ID, first)
		case a.ID == bridgeID:
			d.fail(idLine, key+".id", "%q is the bridge's own id (bridge_id)", a.ID)
		default:
			ids[a.ID] = idLine
		}
		out = append(out, a)
	}
	return out
}

// agent reads one agent entry, returning it and the line of its id.
func (d *decoder) agent(n *yaml.Node, key string) (Agent, int) {
	a := Agent{Line: n.Line, BackoffMin: DefaultBackoffMin, BackoffMax: DefaultBackoffMax}
	if !d.mapping(n, key, agentKeys) {
		return a, 0
	}
	var (
		idLine     int
		hasDialect bool
		reach      *yaml.Node                   // the key of the first of url, webhook, command
		later      = map[string][2]*yaml.Node{} // env, dir, restart_backoff: key and value, read once reach is known
	)
	d.pairs(key+".", n, func(k, v *yaml.Node) {
		at := key + "." + k.Value
		switch k.Value {
		case "id":
			idLine = v.Line
			a.ID, _ = d.scalar(v, at, "an agent id")
		case "dialect":
			hasDialect = true
			a.DialectLine = v.Line
			if s, ok := d.scalar(v, at, "a dialect name"); ok {
				if d.dialects != nil && !slices.Contains(d.dialects, s) {
					d.fail(v.Line, at, "unknown dialect %q (known: %s)", s, d.known())
					return
				}
				a.Dialect = s
			}
		case "token":
			a.Token, _ = d.scalar(v, at, "a token (a non-empty string)")
		case "tools":
			a.Tools = d.tools(v, at)
		case "subscribe":
			a.Subscribe = d.words(v, at, "topic")
		case "url", "webhook", "command", "mcp":
			if reach != nil {
				d.fail(k.Line, at, "two ways to reach one agent: %s (line %d) and %s; give at most one", reach.Value, reach.Line, k.Value)
				return
			}
			reach = k
			d.reach(&a, k.Value, v, at)
		case "env", "dir", "restart_backoff":
			later[k.Value] = [2]*yaml.Node{k, v}
		default:
			d.fail(k.Line, at, "unknown key (want %s)", agentKeys)
		}
	})
	if idLine == 0 {
		d.fail(n.Line, key+".id", "missing: every agent has an id")
	}
	switch {
	case a.Reach == ReachMCP && hasDialect:
		d.fail(a.DialectLine, key+".dialect", "an MCP server (mcp:) speaks MCP: it has no dialect")
	case a.Reach == ReachMCP:
		a.Dialect = MCPDialect
	case !hasDialect:
		d.fail(n.Line, key+".dialect", "missing: every agent has a dialect (known: %s)", d.known())
	}
	if a.Reach == ReachStdio {
		a.Dir = d.dir
	}
	if kv, ok := later["env"]; ok {
		if a.Reach != ReachStdio {
			d.fail(kv[0].Line, key+".env", "only with command: the environment of an agent the bridge runs")
		} else {
			a.Env = d.env(kv[1], key+".env")
		}
	}
	if kv, ok := later["dir"]; ok {
		if a.Reach != ReachStdio {
			d.fail(kv[0].Line, key+".dir", "only with command: the working directory of an agent the bridge runs")
		} else if s, ok := d.scalar(kv[1], key+".dir", "a directory"); ok {
			a.Dir = d.path(s)
		}
	}
	if kv, ok := later["restart_backoff"]; ok {
		if a.Reach != ReachStdio && a.Reach != ReachWebSocket && a.Reach != ReachMCP {
			d.fail(kv[0].Line, key+".restart_backoff", "only with command, url or mcp: how long to wait before restarting or redialling the agent")
		} else {
			d.backoff(&a, kv[1], key+".restart_backoff")
		}
	}
	return a, idLine
}

// reach reads url, webhook or command: how the bridge reaches the agent.
func (d *decoder) reach(a *Agent, how string, v *yaml.Node, at string) {
	switch how {
	case "url":
		a.Reach = ReachWebSocket
		a.URL = d.url(v, at, "a WebSocket URL (ws:// or wss://)", "ws", "wss")
	case "webhook":
		a.Reach = ReachWebhook
		a.URL = d.url(v, at, "an HTTP URL (http:// or https://)", "http", "https")
	case "command":
		a.Reach = ReachStdio
		a.Command = d.command(v, at)
	case "mcp":
		a.Reach = ReachMCP
		a.MCP = d.mcpServer(v, at)
	}
}

const mcpServerKeys = "command, url, headers, env, dir"

// mcpServer reads how to reach an MCP server agent: a command to run on
// stdio (with env and dir), or a streamable HTTP url (with headers).
func (d *decoder) mcpServer(n *yaml.Node, at string) MCPServer {
	m := MCPServer{Dir: d.dir}
	if !d.mapping(n, at, mcpServerKeys) {
		return m
	}
	var first *yaml.Node
	both := func(k *yaml.Node) bool {
		if first != nil {
			d.fail(k.Line, at+"."+k.Value, "two ways to reach one MCP server: %s (line %d) and %s; give one", first.Value, first.Line, k.Value)
			return true
		}
		first = k
		return false
	}
	var stdioOnly, httpOnly []*yaml.Node
	d.pairs(at+".", n, func(k, v *yaml.Node) {
		kat := at + "." + k.Value
		switch k.Value {
		case "command":
			if !both(k) {
				m.Command = d.command(v, kat)
			}
		case "url":
			if !both(k) {
				m.URL = d.url(v, kat, "an HTTP URL of a streamable HTTP MCP endpoint (http:// or https://)", "http", "https")
			}
		case "headers":
			httpOnly = append(httpOnly, k)
			m.Headers = d.env(v, kat)
		case "env":
			stdioOnly = append(stdioOnly, k)
			m.Env = d.env(v, kat)
		case "dir":
			stdioOnly = append(stdioOnly, k)
			if s, ok := d.scalar(v, kat, "a directory"); ok {
				m.Dir = d.path(s)
			}
		default:
			d.fail(k.Line, kat, "unknown key (want %s)", mcpServerKeys)
		}
	})
	switch {
	case first == nil:
		d.fail(n.Line, at, "says neither command (a server on stdio) nor url (streamable HTTP)")
	case m.URL != "" || first.Value == "url":
		for _, k := range stdioOnly {
			d.fail(k.Line, at+"."+k.Value, "only with command: a server the bridge runs")
		}
	default:
		for _, k := range httpOnly {
			d.fail(k.Line, at+"."+k.Value, "only with url: a server over HTTP")
		}
	}
	return m
}

func (d *decoder) url(v *yaml.Node, at, what string, schemes ...string) string {
	s, ok := d.scalar(v, at, what)
	if !ok {
		return ""
	}
	if problem := checkURL(s, schemes...); problem != "" {
		d.fail(v.Line, at, "%s", problem)
		return ""
	}
	return s
}

// command reads a program and its arguments; arguments may be empty or
// repeated, the program may not be empty.
func (d *decoder) command(n *yaml.Node, at string) []string {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		d.fail(n.Line, at, "must be a list: the program and its arguments")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, wn := range n.Content {
		wn = deref(wn)
		if wn.Kind != yaml.ScalarNode || wn.Tag == "!!null" || (i == 0 && wn.Value == "") {
			what := "an argument"
			if i == 0 {
				what = "the program to run"
			}
			d.fail(wn.Line, fmt.Sprintf("%s[%d]", at, i), "must be %s", what)
			continue
		}
		out = append(out, wn.Value)
	}
	return out
}

// env reads environment variables: names to values, any scalar as its text.
func (d *decoder) env(n *yaml.Node, at string) map[string]string {
	if !d.mapping(n, at, "variable names to values") {
		return nil
	}
	out := make(map[string]string, len(n.Content)/2)
	d.pairs(at+".", n, func(k, v *yaml.Node) {
		vat := at + "." + k.Value
		if k.Value == "" || strings.ContainsAny(k.Value, "=\x00") {
			d.fail(k.Line, vat, "%q is not a variable name", k.Value)
			return
		}
		if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
			d.fail(v.Line, vat, `must be a value (write "" for an empty one)`)
			return
		}
		val, problem := expandEnv(v.Value)
		if problem != "" {
			d.fail(v.Line, vat, "%s", problem)
			return
		}
		out[k.Value] = val
	})
	return out
}

func (d *decoder) backoff(a *Agent, n *yaml.Node, at string) {
	if !d.mapping(n, at, "min, max") {
		return
	}
	ok := true
	d.pairs(at+".", n, func(k, v *yaml.Node) {
		switch k.Value {
		case "min":
			ok = d.duration(v, at+".min", &a.BackoffMin) && ok
		case "max":
			ok = d.duration(v, at+".max", &a.BackoffMax) && ok
		default:
			d.fail(k.Line, at+"."+k.Value, "unknown key (want min, max)")
		}
	})
	if ok && a.BackoffMin > a.BackoffMax {
		d.fail(n.Line, at, "min %v is more than max %v", a.BackoffMin, a.BackoffMax)
	}
}

// known lists the dialect names an agent may have, sorted.
func (d *decoder) known() string {
	if len(d.dialects) == 0 {
		return "none"
	}
	names := slices.Clone(d.dialects)
	slices.Sort(names)
	return strings.Join(names, ", ")
}
