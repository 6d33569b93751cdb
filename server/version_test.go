package server

import (
	"io"
	"net/http/httptest"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
	"github.com/mcp-bridge/mcp-bridge/mcpface"
)

// TestVersion: the version is the module's as the binary records it, or
// "(devel)" when it records none; the MCP face tells its clients so.
func TestVersion(t *testing.T) {
	want := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		want = bi.Main.Version
	}
	if got := Version(); got != want || got == "" {
		t.Errorf("Version() = %q, want %q", got, want)
	}
	s := newServer(t, config.Default())
	r := httptest.NewRequest("POST", mcpface.Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize",`+
		`"params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}`))
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	w := httptest.NewRecorder()
	s.Handler().ServeHTTP(w, r)
	body, _ := io.ReadAll(w.Result().Body)
	if !strings.Contains(string(body), `"serverInfo"`) || !strings.Contains(string(body), `"version":"`+want+`"`) {
		t.Errorf("initialize answers %d:\n%s\nwant the server's version %s", w.Code, body, want)
	}
}
