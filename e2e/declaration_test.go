package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestFuseDeclarationDocument: a fuse agent declares itself with the spec's
// Capability Declaration document, {"capabilities": [...]} alone, which
// names no sender. On a connection bound to an agent (/ws/fuse?agent=ID)
// the bridge takes it as that agent's declaration, and /v1/agents lists the
// capabilities, each tool with its capability's version; on a connection
// that has named no agent it is refused, in fuse, with an error saying to
// name the agent.
func TestFuseDeclarationDocument(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "dialects", "fuse", dialecttest.SamplesDir, "spec_capability_declaration.json"))
	if err != nil {
		t.Fatal(err)
	}
	h := start(t, nil)

	c := h.dial("fuse", "text-bot")
	c.send(doc)
	deadline := time.Now().Add(wait)
	for {
		caps, ok := listedCapabilities(t, h, "text-bot")
		if ok && slices.Equal(caps, []string{"text-analysis/sentiment-analysis"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/v1/agents lists text-bot with capabilities %v (listed %v)", caps, ok)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if tools := listed(t, h, "text-bot").Tools; len(tools) != 1 || tools[0].Version != "1.0" {
		t.Errorf("/v1/agents lists text-bot's tools as %+v, want one of version 1.0", tools)
	}

	// A connection that has not named its agent.
	anon := h.dial("fuse", "")
	anon.send(doc)
	reply := anon.decode(anon.recv())
	if reply.Error == nil || !strings.Contains(reply.Error.Message, "fuse: a capability declaration declares the agent that sends it, and this connection has named none") ||
		!strings.Contains(reply.Error.Message, "?agent=ID") {
		t.Errorf("an anonymous declaration was answered %s %+v", reply.Act, reply.Error)
	}
	if !reply.Act.IsError() {
		t.Errorf("answered with act %s, not an error", reply.Act)
	}
	// The connection carries on: named in the declaration, it is taken.
	anon.send([]byte(`{"source":{"agentId":"named-bot"},"capabilities":[{"id":"math","actions":[{"id":"add"}]}]}`))
	deadline = time.Now().Add(wait)
	for {
		if caps, _ := listedCapabilities(t, h, "named-bot"); slices.Equal(caps, []string{"math/add"}) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a declaration naming its sender was not taken")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// listedAgent is what GET /v1/agents says of an agent, in part.
type listedAgent struct {
	ID           string
	Capabilities []string
	Tools        []struct{ Name, Version string }
}

// listed returns what GET /v1/agents lists for id; nil when it lists no id.
func listed(t *testing.T, h *harness, id string) *listedAgent {
	t.Helper()
	r, err := http.Get(h.httpURL() + "/v1/agents")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct{ Agents []listedAgent }
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for i := range list.Agents {
		if list.Agents[i].ID == id {
			return &list.Agents[i]
		}
	}
	return nil
}

// listedCapabilities returns the capabilities GET /v1/agents lists for id,
// and whether it lists id.
func listedCapabilities(t *testing.T, h *harness, id string) ([]string, bool) {
	t.Helper()
	if a := listed(t, h, id); a != nil {
		return a.Capabilities, true
	}
	return nil, false
}
