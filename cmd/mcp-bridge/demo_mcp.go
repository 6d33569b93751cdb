package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"
)

// mcpScene plays an MCP client (mcp-go's) that lists the bridge's tools at
// mcpURL and calls tool with args, printing the call and its result.
func (d *demo) mcpScene(ctx context.Context, mcpURL, tool, args string) error {
	c, err := client.NewStreamableHttpClient(mcpURL)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		return err
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "mcp-bridge-demo", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		return err
	}
	list, err := c.ListTools(ctx, mcp.ListToolsRequest{})
	if err != nil {
		return err
	}
	names := make([]string, 0, len(list.Tools))
	for _, t := range list.Tools {
		names = append(names, t.Name)
	}
	d.mu.Lock()
	fmt.Fprintf(d.out, "  mcp client tools/list: %v\n", names)
	fmt.Fprintf(d.out, "  mcp client tools/call  %s %s\n", tool, args)
	d.mu.Unlock()
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	req.Params.Arguments = json.RawMessage(args)
	res, err := c.CallTool(ctx, req)
	if err != nil {
		return err
	}
	out, err := json.Marshal(res)
	if err != nil {
		return err
	}
	d.mu.Lock()
	fmt.Fprintf(d.out, "  mcp client result      %s\n", out)
	d.mu.Unlock()
	if res.IsError {
		return fmt.Errorf("%s answered an error: %s", tool, out)
	}
	return nil
}
