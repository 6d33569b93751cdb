package mcpface

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// read reads a resource; an error of the protocol is returned.
func (c *client) read(uri string) (*sdk.ReadResourceResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	return c.s.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
}

// TestResources: the agents are resources, as GET /v1/agents describes
// them: all of them, or one by id; a token limited to some agents reads
// only those; an agent unknown, or out of the token's reach, is an error.
func TestResources(t *testing.T) {
	l := serve(t, Options{Tokens: []Token{{Token: "all"}, {Token: "calc-only", Agents: []string{"calc"}}}})
	l.attach("fuse", "calc", "add")
	l.attach("swarm", "other", "echo")
	for _, tc := range []struct {
		token string
		all   []string // the ids mcp-bridge://agents lists
		one   map[string]bool
	}{
		{"all", []string{"calc", "other"}, map[string]bool{"calc": true, "other": true, "nobody": false}},
		{"calc-only", []string{"calc"}, map[string]bool{"calc": true, "other": false}},
	} {
		c := l.connect(tc.token)
		res, err := c.read(agentsURI)
		if err != nil {
			t.Fatalf("%s: %v", tc.token, err)
		}
		var listed struct {
			Agents []bridge.AgentInfo `json:"agents"`
		}
		if len(res.Contents) != 1 || res.Contents[0].MIMEType != "application/json" ||
			json.Unmarshal([]byte(res.Contents[0].Text), &listed) != nil {
			t.Fatalf("%s: %+v", tc.token, res.Contents)
		}
		var ids []string
		for _, a := range listed.Agents {
			ids = append(ids, a.ID)
		}
		if !slices.Equal(ids, tc.all) {
			t.Errorf("%s reads agents %q, want %q", tc.token, ids, tc.all)
		}
		for id, ok := range tc.one {
			res, err := c.read(agentsURI + "/" + id)
			if (err == nil) != ok {
				t.Errorf("%s reading %s: %v", tc.token, id, err)
				continue
			}
			if !ok {
				continue
			}
			var a bridge.AgentInfo
			if err := json.Unmarshal([]byte(res.Contents[0].Text), &a); err != nil || a.ID != id || !a.Connected || len(a.Tools) != 1 {
				t.Errorf("%s reading %s: %+v, %v", tc.token, id, a, err)
			}
		}
	}
}
