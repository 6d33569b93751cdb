package mcpface

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"sort"
	"sync"
	"unsafe"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// table is the tools of the agents the bridge knows that the expose
// patterns show, made from the directory. A tools/call of any of them is
// routed to the face's handler (Face.beforeCall), so that a call to the
// tool of an agent that went away gets an isError result saying so;
// tools/list shows those the bridge can reach.
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
	tool      toolRef
	reachable bool
}

// toolRef is an agent's tool as the table keeps it: what is the agent's
// own, and a description of the tool shared by every agent that declares
// it alike (thousands of agents of one kind declare the same tools; a
// bridge.Tool each would cost every one of them 200 bytes a tool). Its
// fields read as a bridge.Tool's.
type toolRef struct {
	Agent, Dialect string
	Status         bridge.Status
	*toolDesc
}

// toolDesc is what a tool is, whichever agent serves it: a bridge.Tool
// but for its agent. Never modified once made.
type toolDesc struct {
	Name, Title, Description, Version string
	InputSchema, OutputSchema         json.RawMessage
	Operation                         canonical.Operation
	// headers says the input schema may bind parameters to HTTP headers
	// (it mentions x-mcp-header): mcp-go checks those of a tool it holds
	// under the tool's own name (Face.sync).
	headers bool
}

// descKey identifies a toolDesc: its words, and its schemas by their bytes'
// address and length (the directory shares equal schemas' bytes, and
// never modifies them).
type descKey struct {
	name, title, description, version string
	operation                         canonical.Operation
	in, out                           *byte
	inLen, outLen                     int
}

func keyOf(t bridge.Tool) descKey {
	return descKey{name: t.Name, title: t.Title, description: t.Description, version: t.Version, operation: t.Operation,
		in: unsafe.SliceData(t.InputSchema), out: unsafe.SliceData(t.OutputSchema), inLen: len(t.InputSchema), outLen: len(t.OutputSchema)}
}

func (d *toolDesc) key() descKey {
	return keyOf(bridge.Tool{Name: d.Name, Title: d.Title, Description: d.Description, Version: d.Version, Operation: d.Operation,
		InputSchema: d.InputSchema, OutputSchema: d.OutputSchema})
}

// newEntry returns the entry of tool under name, its description taken
// from descs when one there is alike (and put there when none is; descs
// may be nil).
func newEntry(name string, tool bridge.Tool, descs map[descKey]*toolDesc) *entry {
	k := keyOf(tool)
	d := descs[k]
	if d == nil {
		d = &toolDesc{Name: tool.Name, Title: tool.Title, Description: tool.Description, Version: tool.Version,
			InputSchema: tool.InputSchema, OutputSchema: tool.OutputSchema, Operation: tool.Operation,
			headers: bytes.Contains(tool.InputSchema, headerKeyword)}
		if descs != nil {
			descs[k] = d
		}
	}
	return &entry{name: name, tool: toolRef{Agent: tool.Agent, Dialect: tool.Dialect, Status: tool.Status, toolDesc: d},
		reachable: reachable(tool.Status)}
}

// full returns the tool r stands for.
func (r toolRef) full() bridge.Tool {
	return bridge.Tool{Agent: r.Agent, Dialect: r.Dialect, Status: r.Status, Name: r.Name, Title: r.Title,
		Description: r.Description, InputSchema: r.InputSchema, OutputSchema: r.OutputSchema, Version: r.Version,
		Operation: r.Operation}
}

// headerKeyword is the schema keyword that binds a tool's parameter to an
// HTTP header (SEP-2243).
var headerKeyword = []byte("x-mcp-header")

// openSchema is the input schema of a tool that declares none.
const openSchema = `{"type":"object","additionalProperties":true}`

// makeTable makes the table of the tools the expose patterns show, logging
// the name clashes it settled. A tool that prev (nil for none) held as it
// is now under the same name keeps prev's entry, so that making the table
// again while agents come makes entries for their tools only.
func (f *Face) makeTable(prev *table) *table {
	// Filtered in place: AllTools's list is this call's own, and a copy
	// of thousands of agents' tools at every sync would be garbage.
	all := f.b.AllTools()
	shown := all[:0]
	for _, t := range all {
		if f.expose.shows(t) {
			shown = append(shown, t)
		}
	}
	names, clashes := name(shown, f.opts.ToolNames)
	for _, c := range clashes {
		f.log.Warn("mcp: tool names clash", "clash", c.String())
	}
	t := &table{entries: make([]*entry, len(shown)), byName: make(map[string]*entry, len(shown))}
	// The descriptions the table holds, so that a new entry shares one.
	descs := map[descKey]*toolDesc{}
	if prev != nil {
		for _, e := range prev.entries {
			descs[e.tool.key()] = e.tool.toolDesc
		}
	}
	for i, tool := range shown {
		e := prev.kept(names[i], tool)
		if e == nil {
			e = newEntry(names[i], tool, descs)
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
	if e == nil || !sameTool(e.tool.full(), tool) || e.tool.Status != tool.Status || e.tool.Version != tool.Version ||
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

// holds reports whether t (nil for none), as the sessions were last told
// of it, holds e's tool as it is: the same entry, or one under its name that mcpTool
// describes alike (digest, seeded by seed; the status is not part of it).
func (t *table) holds(e *entry, seed maphash.Seed) bool {
	if t == nil {
		return false
	}
	old := t.byName[e.name]
	return old == e || old != nil && digest(seed, old.tool.full()) == digest(seed, e.tool.full())
}

// listedSum sums the names of the tools tools/list shows, whatever their
// order, seeded by seed: two tables list the same tools when their sums
// are equal (but for a chance of one in 2^64), and comparing them needs
// no list of thousands of names kept, nor one made and sorted at every
// sync.
func (t *table) listedSum(seed maphash.Seed) uint64 {
	var sum uint64
	for _, e := range t.entries {
		if e.reachable {
			sum += maphash.String(seed, e.name)
		}
	}
	return sum
}

// tools returns the table's list, making it when first asked for.
func (t *table) tools() []mcp.Tool {
	t.listOnce.Do(func() {
		for _, e := range t.entries {
			if e.reachable {
				t.list = append(t.list, mcpTool(e.name, e.tool.full()))
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

// registryTool is what mcp-go's registry holds of e's tool when it holds
// it (its input schema binds parameters to HTTP headers: Face.sync): its
// name, and its input schema as mcpTool makes it (mcp-go checks a call's
// x-mcp-header parameters against it). What tools/list shows is the
// table's own list (Face.listed), so the registry needs no description,
// title or output schema.
func registryTool(e *entry) mcp.Tool {
	return mcp.Tool{Name: e.name, RawInputSchema: objectSchema(e.tool.InputSchema, openSchema)}
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

// openSchemaBytes is openSchema as bytes, shared by every tool that
// declares no input schema (thousands of agents' tools may not): never
// modified.
var openSchemaBytes = json.RawMessage(openSchema)

func raw(s string) json.RawMessage {
	switch s {
	case "":
		return nil
	case openSchema:
		return openSchemaBytes
	}
	return json.RawMessage(s)
}
