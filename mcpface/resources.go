package mcpface

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// Resources: the bridge describes its agents as MCP resources, the same
// JSON that GET /v1/agents answers: mcp-bridge://agents for all of them,
// mcp-bridge://agents/{id} for one. A token limited to some agents reads
// only those.

const (
	agentsURI      = "mcp-bridge://agents"
	agentsTemplate = agentsURI + "/{id}"
)

// addResources registers the agents resources with srv.
func (f *Face) addResources(srv *server.MCPServer) {
	srv.AddResource(mcp.NewResource(agentsURI, "agents",
		mcp.WithResourceTitle("Agents behind this bridge"),
		mcp.WithResourceDescription("Every agent the bridge knows: its id, dialect, transport, status, tools (with their schemas) and topics."),
		mcp.WithMIMEType("application/json"),
	), f.readAgents)
	srv.AddResourceTemplate(mcp.NewResourceTemplate(agentsTemplate, "agent",
		mcp.WithTemplateTitle("One agent behind this bridge"),
		mcp.WithTemplateDescription("One agent the bridge knows, by id: its dialect, transport, status, tools and topics."),
		mcp.WithTemplateMIMEType("application/json"),
	), f.readAgent)
}

func (f *Face) readAgents(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	s := scopeOf(ctx)
	agents := []bridge.AgentInfo{}
	for _, a := range f.b.Agents("") {
		if s.allows(a.ID) {
			agents = append(agents, a)
		}
	}
	return jsonContents(req.Params.URI, map[string]any{"agents": agents})
}

func (f *Face) readAgent(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
	id := strings.TrimPrefix(req.Params.URI, agentsURI+"/")
	a, ok := f.b.Agent(id)
	if !ok || !scopeOf(ctx).allows(id) {
		return nil, fmt.Errorf("no agent %q is known to the bridge", id)
	}
	return jsonContents(req.Params.URI, a)
}

func jsonContents(uri string, v any) ([]mcp.ResourceContents, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, MIMEType: "application/json", Text: string(b)}}, nil
}
