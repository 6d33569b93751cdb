package mcpface

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// names returns the names of tools, sorted.
func names[T any](tools map[string]T) []string {
	out := make([]string, 0, len(tools))
	for n := range tools {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// TestTableFollowsDirectory: tools/list shows the tools of the agents
// connected now, each described with its agent's schemas, or said to be
// served by its agent; a client hears
// list_changed when an agent comes or goes; the tool of an agent gone is
// no longer listed, and a call to it says the agent cannot be reached.
func TestTableFollowsDirectory(t *testing.T) {
	l := serve(t, Options{})
	c := l.connect("")
	if got := c.tools(); len(got) != 0 {
		t.Fatalf("no agents, and tools %q", names(got))
	}
	calc := l.attach("fuse", "calc", "add", "echo")
	c.awaitChanged("calc connected")
	eventually(t, "calc's tools listed", func() bool { return slices.Equal(names(c.tools()), []string{"calc__add", "calc__echo"}) })
	add := c.tools()["calc__add"]
	schema, _ := json.Marshal(add.InputSchema)
	if !strings.Contains(add.Description, "Adds two numbers") || !strings.Contains(string(schema), `"a"`) ||
		!strings.Contains(string(schema), `"required":["a","b"]`) {
		t.Errorf("calc__add: %q, schema %s", add.Description, schema)
	}
	if out, _ := json.Marshal(add.OutputSchema); !strings.Contains(string(out), `"sum"`) {
		t.Errorf("calc__add's output schema: %s", out)
	}

	// An agent whose dialect declares no descriptions or schemas: its
	// tool says who serves it, and takes any object.
	l.attach("swarm", "other", "add")
	c.awaitChanged("other connected")
	eventually(t, "both agents' tools listed", func() bool {
		return slices.Equal(names(c.tools()), []string{"calc__add", "calc__echo", "other__add"})
	})
	other := c.tools()["other__add"]
	schema, _ = json.Marshal(other.InputSchema)
	if other.Description != "add, served by the swarm agent other through mcp-bridge." || !sameJSON(t, string(schema), openSchema) {
		t.Errorf("other__add: %q, schema %s", other.Description, schema)
	}

	calc.stop()
	c.awaitChanged("calc disconnected")
	eventually(t, "calc's tools no longer listed", func() bool { return slices.Equal(names(c.tools()), []string{"other__add"}) })
	res, err := c.call("calc__add", map[string]any{"a": 1, "b": 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || !strings.Contains(text(res), "calc") {
		t.Errorf("a call to the tool of an agent gone: isError %v, %q", res.IsError, text(res))
	}
	if n := testutil.ToFloat64(l.f.metrics.listChanged); n < 3 {
		t.Errorf("mcp_tools_list_changed_total %v, want at least 3", n)
	}
}

// TestTableExposure: the expose patterns and the tool naming apply to the
// table: a denied tool is neither listed nor callable.
func TestTableExposure(t *testing.T) {
	l := serve(t, Options{ToolNames: NamesBare, Deny: []string{"calc:echo"}})
	l.attach("swarm", "calc", "add", "echo", "sentiment-analysis")
	l.attach("fuse", "other", "add")
	c := l.connect("")
	eventually(t, "the tools listed", func() bool {
		return slices.Equal(names(c.tools()), []string{"calc__add", "other__add", "sentiment-analysis"})
	})
	res, err := c.call("calc__echo", map[string]any{})
	if err == nil && !res.IsError {
		t.Errorf("a denied tool was called: %q", text(res))
	}
	if _, err := New(l.b, Options{ToolNames: "short"}); err == nil || !strings.Contains(err.Error(), "tool_names") {
		t.Errorf("an unknown tool naming: %v", err)
	}
	if _, err := New(l.b, Options{Allow: []string{"[x"}}); err == nil {
		t.Error("a bad expose pattern was taken")
	}
}

// TestTableScoped: a token limited to some agents lists and calls only
// their tools.
func TestTableScoped(t *testing.T) {
	l := serve(t, Options{Tokens: []Token{{Token: "all"}, {Token: "calc-only", Agents: []string{"calc"}}}})
	l.attach("swarm", "calc", "add")
	l.attach("fuse", "other", "add")
	all, scoped := l.connect("all"), l.connect("calc-only")
	eventually(t, "every tool listed to the token of all", func() bool {
		return slices.Equal(names(all.tools()), []string{"calc__add", "other__add"})
	})
	if got := names(scoped.tools()); !slices.Equal(got, []string{"calc__add"}) {
		t.Errorf("the token of calc lists %q", got)
	}
	res, err := scoped.call("other__add", map[string]any{"a": 1, "b": 2})
	if err == nil && !res.IsError {
		t.Errorf("the token of calc called other's tool: %q", text(res))
	}
	if res, err := scoped.call("calc__add", map[string]any{"a": 1, "b": 2}); err != nil || res.IsError {
		t.Errorf("the token of calc calling calc: %v %v", err, res)
	}
}

// TestRegistryFollowsTable: after each sync, the table describes the
// tools as tools/list shows them, and each is callable by its name, while
// mcp-go's registry holds the dispatcher alone (call.go), when agents
// come, when a name clash renames a tool, when an agent's description
// changes and when agents go (a name clash settled anew with them, or
// not); a session hears list_changed at each, and a sync that finds no
// change tells it nothing.
func TestRegistryFollowsTable(t *testing.T) {
	l := serve(t, Options{ToolNames: NamesBare})
	c := l.connect("")
	declare := func(id, tool, desc string) func() {
		return func() {
			l.b.Declare(bridge.AgentSpec{ID: id, Dialect: "fuse", Tools: []canonical.Tool{{Name: tool, Description: desc}}})
		}
	}
	steps := []struct {
		what string
		do   func()
		want map[string]string // name -> description
	}{
		{"two agents declared", func() { declare("a", "add", "adds")(); declare("b", "echo", "echoes")() },
			map[string]string{"add": "adds", "echo": "echoes"}},
		{"a clash renames add", declare("c", "add", "adds too"),
			map[string]string{"a__add": "adds", "c__add": "adds too", "echo": "echoes"}},
		{"b's description changes", func() {
			l.b.Redeclare(bridge.AgentSpec{ID: "b", Dialect: "fuse", Tools: []canonical.Tool{{Name: "echo", Description: "echoes back"}}})
		}, map[string]string{"a__add": "adds", "c__add": "adds too", "echo": "echoes back"}},
		{"c removed", func() { l.b.Remove("c", "gone from the config") },
			map[string]string{"add": "adds", "echo": "echoes back"}},
		{"b removed", func() { l.b.Remove("b", "gone from the config") },
			map[string]string{"add": "adds"}},
	}
	for _, s := range steps {
		s.do()
		l.f.sync()
		c.awaitChanged(s.what)
		got := map[string]string{}
		for _, e := range l.f.table().entries {
			got[e.name] = mcpTool(e.name, e.tool.full()).Description // as tools/list shows it
		}
		if !maps.Equal(got, s.want) {
			t.Errorf("%s: table %v, want %v", s.what, got, s.want)
		}
		if reg := names(l.f.srv.ListTools()); !slices.Equal(reg, []string{dispatchName}) {
			t.Errorf("%s: mcp-go's registry holds %q", s.what, reg)
		}
		for name := range s.want {
			// Declared, never connected: the call reaches the face, which
			// says the agent cannot be reached.
			if res, err := c.call(name, map[string]any{}); err != nil || !res.IsError {
				t.Errorf("%s: a call of %s: %v %+v", s.what, name, err, res)
			}
		}
		told := testutil.ToFloat64(l.f.metrics.listChanged)
		l.f.sync()
		if n := testutil.ToFloat64(l.f.metrics.listChanged); n != told {
			t.Errorf("%s: a sync with nothing changed told the sessions (%v list_changed, then %v)", s.what, told, n)
		}
	}
}

// TestSharedDescriptions: agents that declare the same tool share the
// table's description of it, and each entry still reads as its own
// agent's tool; a tool that differs has its own.
func TestSharedDescriptions(t *testing.T) {
	l := serve(t, Options{})
	l.attach("swarm", "x", "add")
	l.attach("swarm", "y", "add")
	l.attach("swarm", "z", "echo")
	var x, y, z *entry
	eventually(t, "the three agents' tools in the table", func() bool {
		tb := l.f.table()
		x, y, z = tb.byName["x__add"], tb.byName["y__add"], tb.byName["z__echo"]
		return x != nil && y != nil && z != nil
	})
	if x.tool.toolDesc != y.tool.toolDesc {
		t.Error("x's and y's add are described twice")
	}
	if z.tool.toolDesc == x.tool.toolDesc {
		t.Error("z's echo shares add's description")
	}
	for _, e := range []*entry{x, y, z} {
		full := e.tool.full()
		if full.Agent+"__"+full.Name != e.name || full.Dialect != "swarm" || e.tool.Operation.Name != full.Name || !e.reachable {
			t.Errorf("%s reads as %+v", e.name, full)
		}
	}
}
