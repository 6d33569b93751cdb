package server

import (
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// TestMCPNeedsTokens: the MCP face on a listener that is not loopback must
// have tokens.
func TestMCPNeedsTokens(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, tc := range []struct {
		listen string
		tokens []config.MCPToken
		ok     bool
	}{
		{"127.0.0.1:0", nil, true},
		{"localhost:7300", nil, true},
		{"[::1]:7300", nil, true},
		{"0.0.0.0:7300", nil, false},
		{":7300", nil, false},
		{"10.1.2.3:7300", nil, false},
		{"0.0.0.0:7300", []config.MCPToken{{Token: "t"}}, true},
	} {
		cfg := config.Default()
		cfg.Listen, cfg.MCP.Tokens = tc.listen, tc.tokens
		_, err := New(cfg, nil, log)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "mcp.tokens")) {
			t.Errorf("%s with %d tokens: %v", tc.listen, len(tc.tokens), err)
		}
	}
	cfg := config.Default()
	cfg.Listen, cfg.MCP.Enabled = "0.0.0.0:7300", false
	if _, err := New(cfg, nil, log); err != nil {
		t.Errorf("without the MCP face: %v", err)
	}
}
