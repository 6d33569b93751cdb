package e2e

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/transports/upstream"
)

// serveTestMCP is the test binary as an MCP server on stdio (E2E_MCP_SERVER
// set): tools add (structured), fail (isError) and grow (adds a tool).
func serveTestMCP() {
	s := mcpserver.NewMCPServer("e2e-upstream", "1.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("add", mcpgo.WithDescription("Adds a and b."), mcpgo.WithNumber("a"), mcpgo.WithNumber("b")),
		func(_ context.Context, r mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			sum := r.GetFloat("a", 0) + r.GetFloat("b", 0)
			return mcpgo.NewToolResultStructured(map[string]float64{"sum": sum}, fmt.Sprintf("sum %g", sum)), nil
		})
	s.AddTool(mcpgo.NewTool("fail", mcpgo.WithDescription("Always fails.")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultError("the disk is full"), nil
		})
	s.AddTool(mcpgo.NewTool("grow", mcpgo.WithDescription("Adds the tool extra.")),
		func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			s.AddTool(mcpgo.NewTool("extra", mcpgo.WithDescription("Appeared later.")),
				func(context.Context, mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
					return mcpgo.NewToolResultText("extra"), nil
				})
			return mcpgo.NewToolResultText("grown"), nil
		})
	if err := mcpserver.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// withUpstream returns the default config with the MCP server spec
// describes as the agent id, and starts it; it waits until the bridge knows
// tools of the agent's.
func withUpstream(t *testing.T, id string, server upstream.Server, tools int) *harness {
	t.Helper()
	cfg := config.Default()
	cfg.Agents = append(cfg.Agents, config.Agent{ID: id, Dialect: upstream.Dialect, Reach: "mcp", Settings: server,
		BackoffMin: 10 * time.Millisecond, BackoffMax: time.Second})
	h := start(t, cfg)
	h.agentUp(id, tools)
	return h
}

func testUpstream() upstream.Server {
	return upstream.Server{Command: []string{os.Args[0]}, Env: map[string]string{"E2E_MCP_SERVER": "stdio"}}
}

// TestUpstreamDialects: an agent of each dialect calls a tool of an MCP
// server behind the bridge, and gets the result, and a failing tool's
// error, in its own dialect.
func TestUpstreamDialects(t *testing.T) {
	h := withUpstream(t, "mcp-up", testUpstream(), 3)
	for _, d := range dialectNames {
		t.Run(d, func(t *testing.T) {
			c := h.dial(d, requester(d))
			c.t = t
			id := "up-" + d
			c.send(c.encode(request(d, "mcp-up", "add", `{"a":2,"b":40}`, id)))
			reply := answerOf(c)
			if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "42") {
				t.Errorf("add: %s %s %+v", reply.Act, reply.Result, reply.Error)
			}
			if got, want := correlationOf(d, reply), spellFor(d, id); got != want {
				t.Errorf("answers %q, want %q", got, want)
			}
			c.send(c.encode(request(d, "mcp-up", "fail", `{}`, id+"-fail")))
			reply = answerOf(c)
			if !reply.Act.IsError() || reply.Error == nil || !strings.Contains(reply.Error.Message, "the disk is full") {
				t.Errorf("fail: %s %+v", reply.Act, reply.Error)
			}
		})
	}
}

// answerOf returns the client's next message that is not an accept.
func answerOf(c *client) *canonical.Envelope {
	c.t.Helper()
	for {
		env := c.decode(c.recv())
		if env.Act != canonical.ActAccept {
			return env
		}
	}
}

// correlationOf is the value an answer of dialect d names its request by.
func correlationOf(d string, env *canonical.Envelope) string {
	if d == "bluelabel" {
		return env.TaskID
	}
	return env.InReplyTo
}

// TestUpstreamThroughMCP: the bridge is an MCP aggregator: an MCP client
// of the bridge sees the upstream's tools as mcp-up__<tool> beside the
// dialect agents', calls them, and hears list_changed when the upstream's
// own list changes.
func TestUpstreamThroughMCP(t *testing.T) {
	h := withUpstream(t, "mcp-up", testUpstream(), 3)
	h.runAgent("swarm", "swarm-agent")
	c := h.mcpConnect(t, "2025-11-25", nil, nil)
	tools := c.tools()
	if tools["mcp-up__add"] == nil || tools["mcp-up__add"].Description != "Adds a and b." || tools["swarm-agent__add"] == nil {
		t.Fatalf("listed %v", keys(tools))
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	res := c.call(ctx, "mcp-up__add", map[string]any{"a": 20, "b": 22}, false)
	if res.IsError || !strings.Contains(text(res), `"sum":42`) {
		t.Errorf("mcp-up__add: %s", text(res))
	}
	res = c.call(ctx, "mcp-up__fail", map[string]any{}, false)
	if !res.IsError || !strings.Contains(text(res), "the disk is full") {
		t.Errorf("mcp-up__fail: %s", text(res))
	}
	drain(c.changed)
	if res := c.call(ctx, "mcp-up__grow", map[string]any{}, false); res.IsError {
		t.Fatalf("grow: %s", text(res))
	}
	c.awaitChanged("the upstream's list changed")
	deadline := time.Now().Add(wait)
	for c.tools()["mcp-up__extra"] == nil {
		if time.Now().After(deadline) {
			t.Fatalf("mcp-up__extra never listed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func drain(ch chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// TestUpstreamEverything: the reference server
// @modelcontextprotocol/server-everything from the npm registry (installed
// with Node 22 by make mcp-tools) as a stdio child: its echo tool from a
// swarm agent and from an MCP client of the bridge.
func TestUpstreamEverything(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := nodeTool(t, ctx, "mcp-server-everything", "stdio")
	env := map[string]string{}
	for _, kv := range cmd.Env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == "PATH" {
			env[k] = v
		}
	}
	h := withUpstream(t, "everything", upstream.Server{Command: cmd.Args, Env: env, Dir: cmd.Dir}, 1)
	c := h.dial("swarm", requester("swarm"))
	c.send(c.encode(request("swarm", "everything", "echo", `{"message":"hello from swarm"}`, "ev-1")))
	reply := answerOf(c)
	if reply.Act != canonical.ActResult || !strings.Contains(string(reply.Result), "hello from swarm") {
		t.Errorf("echo from swarm: %s %s %+v", reply.Act, reply.Result, reply.Error)
	}
	m := h.mcpConnect(t, "2025-11-25", nil, nil)
	if tools := m.tools(); tools["everything__echo"] == nil {
		t.Fatalf("everything__echo not listed: %v", keys(tools))
	}
	res := m.call(ctx, "everything__echo", map[string]any{"message": "hello from MCP"}, false)
	if res.IsError || !strings.Contains(text(res), "hello from MCP") {
		t.Errorf("everything__echo: %s", text(res))
	}
}
