package config

import (
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestMCPSessionKeys: memory.mcp_sessions and mcp.session_idle bound the
// MCP face's table of sessions, with the defaults it had before they were
// keys; a bad value or a misspelt key is refused, naming its path.
func TestMCPSessionKeys(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		sessions   int
		idle       time.Duration
		problem    string
	}{
		{"defaults", "mcp: {enabled: true}\n", 10000, time.Hour, ""},
		{"set", "memory: {mcp_sessions: 50}\nmcp: {session_idle: 90s}\n", 50, 90 * time.Second, ""},
		{"no sessions", "memory: {mcp_sessions: 0}\n", 0, 0, `s.yaml:1: memory.mcp_sessions: "0" is not a whole number of at least 1`},
		{"not a number", "memory: {mcp_sessions: many}\n", 0, 0, `s.yaml:1: memory.mcp_sessions: "many" is not a whole number of at least 1`},
		{"idle not a duration", "mcp: {session_idle: soon}\n", 0, 0, `s.yaml:1: mcp.session_idle:`},
		{"idle zero", "mcp: {session_idle: 0s}\n", 0, 0, `s.yaml:1: mcp.session_idle:`},
		{"misspelt", "mcp: {session_idle_time: 1m}\n", 0, 0, `s.yaml:1: mcp.session_idle_time:`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("s.yaml", []byte(tc.text), dialects.Names())
			if tc.problem != "" {
				if err == nil || !strings.Contains(err.Error(), tc.problem) {
					t.Fatalf("%v, want %s", err, tc.problem)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Memory.MCPSessions != tc.sessions || c.MCP.SessionIdle != tc.idle {
				t.Errorf("mcp_sessions %d, session_idle %v; want %d, %v", c.Memory.MCPSessions, c.MCP.SessionIdle, tc.sessions, tc.idle)
			}
		})
	}
}
