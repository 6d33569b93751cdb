// Package builtin imports the built-in transports the bridge reaches
// agents with, whose packages register their ways (package reach):
// WebSocket dial-outs, webhooks, stdio children, MCP servers and A2A
// agents.
//
// A new way to reach an agent is a package that registers its way, and
// one import line here.
package builtin

import (
	// The built-in ways.
	_ "github.com/mcp-bridge/mcp-bridge/transports/a2a"
	_ "github.com/mcp-bridge/mcp-bridge/transports/httpapi"
	_ "github.com/mcp-bridge/mcp-bridge/transports/stdio"
	_ "github.com/mcp-bridge/mcp-bridge/transports/upstream"
	_ "github.com/mcp-bridge/mcp-bridge/transports/ws"
)
