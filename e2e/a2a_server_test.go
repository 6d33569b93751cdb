package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2aclient"
	"github.com/mcp-bridge/mcp-bridge/a2aface"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// a2aGet fetches path of the harness's listener with token ("" for none)
// and decodes its JSON into v; it returns the status.
func (h *harness) a2aGet(path, token string, v any) int {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.httpURL()+path, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := h.httpClient().Do(req)
	if err != nil {
		h.t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusOK && v != nil {
		if err := json.NewDecoder(res.Body).Decode(v); err != nil {
			h.t.Fatal(err)
		}
	}
	return res.StatusCode
}

// bearer adds its token to every request.
type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// TestA2AServer: the whole server serves its agents over A2A at /a2a, as
// the config says: mcp.tokens asked for, a2a.expose hiding an agent, and
// an A2A client of the official SDK, made from the served card, getting
// an agent's result; a2a.enabled: false serves nothing there.
func TestA2AServer(t *testing.T) {
	cfg := config.Default()
	cfg.MCP.Tokens = []config.MCPToken{{Token: "secret"}}
	cfg.A2A.Deny = []string{"collab-agent"}
	h := start(t, cfg)
	h.runAgent("swarm", "swarm-agent")
	h.runAgent("collab", "collab-agent")

	if got := h.a2aGet(a2aface.Path, "", nil); got != http.StatusUnauthorized {
		t.Fatalf("GET /a2a without a token: %d", got)
	}
	var listing a2aface.Listing
	if got := h.a2aGet(a2aface.Path, "secret", &listing); got != http.StatusOK || len(listing.Agents) != 1 || listing.Agents[0].Name != "swarm-agent" {
		t.Fatalf("GET /a2a: %d %+v", got, listing)
	}
	if got := h.a2aGet(a2aface.Path+"/collab-agent"+a2aface.CardPath, "secret", nil); got != http.StatusNotFound {
		t.Fatalf("the hidden agent's card: %d", got)
	}
	var card a2a.AgentCard
	h.a2aGet(a2aface.Path+"/swarm-agent"+a2aface.CardPath, "secret", &card)
	c, err := a2aclient.NewFromCard(context.Background(), &card, a2aclient.WithJSONRPCTransport(&http.Client{Transport: bearer("secret")}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Destroy()
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"text": "through the server"}))
	msg.Metadata = map[string]any{"skill": "echo"}
	res, err := c.SendMessage(context.Background(), &a2a.SendMessageRequest{Message: msg})
	task, ok := res.(*a2a.Task)
	if err != nil || !ok || task.Status.State != a2a.TaskStateCompleted ||
		!strings.Contains(task.Artifacts[0].Parts[1].Text(), "through the server") {
		t.Fatalf("SendMessage: %v %+v", err, res)
	}

	off := config.Default()
	no := false
	off.A2A.Enabled = &no
	h2 := start(t, off)
	if got := h2.a2aGet(a2aface.Path, "", nil); got != http.StatusNotFound {
		t.Fatalf("a2a.enabled: false still serves /a2a: %d", got)
	}
}
