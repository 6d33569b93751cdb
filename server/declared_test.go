package server

import (
	"encoding/json"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestDeclaredTools: a tool the config declares reaches the directory with
// everything the config says of it, a fuse-style name split into its
// capability and action.
func TestDeclaredTools(t *testing.T) {
	got := declaredTools([]config.Tool{
		{Name: "echo"},
		{Name: "text/score", Title: "Score", Description: "Scores text.", Version: "1.10",
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"number"}`)},
	})
	want := []canonical.Tool{
		{Name: "echo"},
		{Capability: "text", Name: "score", Title: "Score", Description: "Scores text.", Version: "1.10",
			InputSchema: `{"type":"object"}`, OutputSchema: `{"type":"number"}`},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tools, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("tool %d\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}
