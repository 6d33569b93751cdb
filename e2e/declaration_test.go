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
// capabilities; on a connection that has named no agent it is refused, in
// fuse, with an error saying to name the agent.
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

// listedCapabilities returns the capabilities GET /v1/agents lists for id,
// and whether it lists id.
func listedCapabilities(t *testing.T, h *harness, id string) ([]string, bool) {
	t.Helper()
	r, err := http.Get(h.httpURL() + "/v1/agents")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var list struct {
		Agents []struct {
			ID           string
			Capabilities []string
		}
	}
	if err := json.NewDecoder(r.Body).Decode(&list); err != nil {
		t.Fatal(err)
	}
	for _, a := range list.Agents {
		if a.ID == id {
			return a.Capabilities, true
		}
	}
	return nil, false
}
