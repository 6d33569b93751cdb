package mcpface

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// How a tools/call reaches the face. mcp-go routes a call by its tool's
// name through its registry, which holds a server.ServerTool by value per
// tool (about 400 bytes each, whatever it holds): one per tool of every
// agent would cost each agent kilobytes. So the registry holds one tool,
// the dispatcher, under a name no client can send, and the face routes
// calls itself: beforeCall (mcp-go's BeforeCallTool hook, which runs before
// mcp-go looks the tool up) renames a call of a tool of the face's table
// that the caller may see to the dispatcher, and hands the handler the
// table's entry in the request itself (routed), where it travels with the
// call whatever the transport (stdio's calls share one context) and into
// mcp-go's retries of it. A call of a tool the table does not have, or the
// caller may not see, is left as it came: mcp-go answers that the tool is
// not found, naming it, as it always has.
//
// The exception is a tool whose input schema binds parameters to HTTP
// headers (x-mcp-header, rare): mcp-go checks the headers of a call
// against the schema of the tool it holds under the call's name, before
// any hook, so the face registers such a tool under its own name (sync)
// and leaves its calls alone once mcp-go holds it.

// dispatchName is the name the dispatcher is registered under: not UTF-8,
// so that no tool name (names.go) is it and no client can send it (a
// JSON string decodes to UTF-8 only).
const dispatchName = "\xffmcp-bridge"

// routed is the arguments of a call beforeCall routed to the dispatcher:
// the table's entry of the tool called, and the call's own arguments. A
// client cannot send one: JSON decodes to maps, slices and scalars only.
type routed struct {
	e    *entry
	args any
}

// dispatcher is the one tool mcp-go's registry holds for every tool
// routed by beforeCall: its handler is the face's.
func (f *Face) dispatcher() server.ServerTool {
	return server.ServerTool{Tool: mcp.Tool{Name: dispatchName, RawInputSchema: openSchemaBytes}, Handler: f.call}
}

// beforeCall is mcp-go's BeforeCallTool hook: a call of a tool of the
// table that the request's token may see goes to the dispatcher, unless
// mcp-go holds the tool under its own name (its input schema binds
// headers). Any other call is left to mcp-go, which answers that its tool
// is not found.
func (f *Face) beforeCall(ctx context.Context, _ any, req *mcp.CallToolRequest) {
	e := f.table().byName[req.Params.Name]
	if e == nil || !scopeOf(ctx).shows(e) {
		return
	}
	if e.tool.headers && f.held(e.name) {
		return
	}
	req.Params.Name = dispatchName
	req.Params.Arguments = &routed{e: e, args: req.Params.Arguments}
}

// held reports whether mcp-go holds the tool named name under its name.
func (f *Face) held(name string) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.holding[name]
	return ok
}

// unroute returns the entry of the tool a call is of, and the call as its
// client sent it: the entry beforeCall routed it with, or the table's
// entry of its name (a tool mcp-go holds; nil if the table has none).
func (f *Face) unroute(req mcp.CallToolRequest) (*entry, mcp.CallToolRequest) {
	if r, ok := req.Params.Arguments.(*routed); ok {
		req.Params.Name, req.Params.Arguments = r.e.name, r.args
		return r.e, req
	}
	return f.entry(req.Params.Name), req
}
