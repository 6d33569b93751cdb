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

// TestA2ANeedsTokens: the A2A face turned on, on a listener that is not
// loopback, must have tokens to ask for; by default it is off there.
func TestA2ANeedsTokens(t *testing.T) {
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	on, off := true, false
	for _, tc := range []struct {
		enabled *bool
		tokens  []config.MCPToken
		ok, a2a bool
	}{
		{nil, nil, true, false},
		{&on, nil, false, false},
		{&on, []config.MCPToken{{Token: "t"}}, true, true},
		{nil, []config.MCPToken{{Token: "t"}}, true, true},
		{&off, []config.MCPToken{{Token: "t"}}, true, false},
	} {
		cfg := config.Default()
		cfg.Listen, cfg.MCP.Enabled, cfg.MCP.Tokens, cfg.A2A.Enabled = "0.0.0.0:7300", false, tc.tokens, tc.enabled
		no := false
		cfg.UI.Enabled = &no
		s, err := New(cfg, nil, log)
		if (err == nil) != tc.ok || (err != nil && !strings.Contains(err.Error(), "a2a.enabled")) {
			t.Errorf("enabled %v, %d tokens: %v", tc.enabled, len(tc.tokens), err)
		}
		if err == nil && (s.A2A() != nil) != tc.a2a {
			t.Errorf("enabled %v, %d tokens: face %v, want %v", tc.enabled, len(tc.tokens), s.A2A() != nil, tc.a2a)
		}
	}
}
