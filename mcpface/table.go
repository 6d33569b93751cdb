package mcpface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// table is the tools of the agents the bridge knows that the expose
// patterns show, made from the directory. All of them are registered with
// mcp-go, so that a call to the tool of an agent that went away gets an
// isError result saying so; tools/list shows those the bridge can reach.
type table struct {
	entries []*entry // sorted by agent, then by operation name
	byName  map[string]*entry
	// list is what tools/list shows: the reachable entries' tools, sorted
	// by name (mcp-go's pagination needs that order), made when first
	// asked for (mcp-go's registry holds the tools besides, and a table
	// no client lists needs no second copy). It is shared: never modified
	// once made.
	listOnce sync.Once
	list     []mcp.Tool
}

// entry is one tool: its MCP name and the agent's tool behind it. An
// entry is never modified once made: the next table keeps it when its
// tool did not change.
type entry struct {
	name      string
	tool      bridge.Tool
	reachable bool
}

// openSchema is the input schema of a tool that declares none.
const openSchema = `{"type":"object","additionalProperties":true}`

// makeTable makes the table of the tools the expose patterns show, logging
// the name clashes it settled. A tool that prev (nil for none) held as it
// is now under the same name keeps prev's entry, so that making the table
// again while agents come makes entries for their tools only.
func (f *Face) makeTable(prev *table) *table {
	var shown []bridge.Tool
	for _, t := range f.b.AllTools() {
		if f.expose.shows(t) {
			shown = append(shown, t)
		}
	}
	names, clashes := name(shown, f.opts.ToolNames)
	for _, c := range clashes {
		f.log.Warn("mcp: tool names clash", "clash", c.String())
	}
	t := &table{entries: make([]*entry, len(shown)), byName: make(map[string]*entry, len(shown))}
	for i, tool := range shown {
		e := prev.kept(names[i], tool)
		if e == nil {
			e = &entry{name: names[i], tool: tool, reachable: reachable(tool.Status)}
		}
		t.entries[i] = e
		t.byName[e.name] = e
	}
	return t
}

// kept returns t's entry of tool under name if tool is as it was then, nil
// if not (or t is nil).
func (t *table) kept(name string, tool bridge.Tool) *entry {
	if t == nil {
		return nil
	}
	e := t.byName[name]
	if e == nil || !sameTool(e.tool, tool) || e.tool.Status != tool.Status || e.tool.Version != tool.Version ||
		e.tool.Operation != tool.Operation {
		return nil
	}
	return e
}

// sameTool reports whether a and b are described to MCP the same way: the
// same agent's same tool with the same words and schemas.
func sameTool(a, b bridge.Tool) bool {
	return a.Agent == b.Agent && a.Dialect == b.Dialect && a.Name == b.Name &&
		a.Title == b.Title && a.Description == b.Description &&
		bytes.Equal(a.InputSchema, b.InputSchema) && bytes.Equal(a.OutputSchema, b.OutputSchema)
}

// listed returns the names of the tools tools/list shows, sorted.
func (t *table) listed() []string {
	var out []string
	for _, e := range t.entries {
		if e.reachable {
			out = append(out, e.name)
		}
	}
	slices.Sort(out)
	return out
}

// tools returns the table's list, making it when first asked for.
func (t *table) tools() []mcp.Tool {
	t.listOnce.Do(func() {
		for _, e := range t.entries {
			if e.reachable {
				t.list = append(t.list, mcpTool(e.name, e.tool))
			}
		}
		sort.Slice(t.list, func(i, j int) bool { return t.list[i].Name < t.list[j].Name })
	})
	return t.list
}

// reachable reports whether an agent of status takes requests: its tools
// are listed.
func reachable(s bridge.Status) bool {
	return s == bridge.StatusReady || s == bridge.StatusBusy || s == bridge.StatusInitializing
}

// visible returns the tools of t a request of scope s may see.
func (t *table) visible(s *scope) []mcp.Tool {
	list := t.tools()
	if s.all() {
		return list
	}
	out := make([]mcp.Tool, 0, len(list))
	for _, tool := range list {
		if s.shows(t.byName[tool.Name]) {
			out = append(out, tool)
		}
	}
	return out
}

// mcpTool describes tool to MCP clients as name: its own description, or
// one saying which agent of which dialect serves it; its input schema, or an
// open object schema; its output schema when it declares one.
func mcpTool(name string, tool bridge.Tool) mcp.Tool {
	desc := tool.Description
	if desc == "" {
		desc = fmt.Sprintf("%s, served by the %s agent %s through mcp-bridge.", tool.Name, tool.Dialect, tool.Agent)
	}
	return mcp.Tool{
		Name:            name,
		Title:           tool.Title,
		Description:     desc,
		RawInputSchema:  objectSchema(tool.InputSchema, openSchema),
		RawOutputSchema: objectSchema(tool.OutputSchema, ""),
	}
}

// objectSchema returns schema as MCP wants a tool's schemas: a JSON object
// whose type is "object" (added when it says no type). A schema that is not
// such an object is replaced by def ("" for none).
func objectSchema(schema json.RawMessage, def string) json.RawMessage {
	if len(schema) == 0 || !gjson.ValidBytes(schema) {
		return raw(def)
	}
	v := gjson.ParseBytes(schema)
	if !v.IsObject() {
		return raw(def)
	}
	switch typ := v.Get("type"); {
	case !typ.Exists():
		out, err := sjson.SetBytes(schema, "type", "object")
		if err != nil {
			return raw(def)
		}
		return out
	case typ.String() != "object":
		return raw(def)
	}
	return schema
}

func raw(s string) json.RawMessage {
	if s == "" {
		return nil
	}
	return json.RawMessage(s)
}
