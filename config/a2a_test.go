package config

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestA2A: the a2a section reads into the Config, and the face is on by
// default where it can ask for tokens or needs none.
func TestA2A(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		on         bool
	}{
		{"loopback", "listen: 127.0.0.1:7300\n", true},
		{"off loopback, no tokens", "listen: 0.0.0.0:7300\nmcp: {enabled: false}\nui: {enabled: false}\n", false},
		{"off loopback, tokens", "listen: 0.0.0.0:7300\nmcp: {tokens: [{token: t}]}\n", true},
		{"turned off", "a2a: {enabled: false}\n", false},
	} {
		c, err := Parse("a.yaml", []byte(tc.file), dialects.Names())
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if c.A2AOn() != tc.on {
			t.Errorf("%s: on %v, want %v", tc.name, c.A2AOn(), tc.on)
		}
	}
	c, err := Parse("a.yaml", []byte("a2a: {sender: caller, task_ttl: 5m, expose: {allow: [calc], deny: ['calc:fail']}}\n"), dialects.Names())
	if err != nil {
		t.Fatal(err)
	}
	if a := c.A2A; a.Sender != "caller" || a.TaskTTL != 5*time.Minute || len(a.Allow) != 1 || a.Deny[0] != "calc:fail" {
		t.Errorf("a2a: %+v", a)
	}
}
