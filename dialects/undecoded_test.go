package dialects_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestUndecoded: what an answer to a frame that does not decode can quote
// of it, where each dialect's record says its id and sender are.
func TestUndecoded(t *testing.T) {
	for _, tc := range []struct {
		dialect, frame string
		id, task, from string // "" and "" and "": nothing to quote
	}{
		{"elizaacl", `{"performative":"PROPOSE","message_id":"m1","sender":{"agent_id":"Eddy"}}`, "m1", "", "Eddy"},
		{"bluelabel", `{"type":"nonsense","task_id":"T-1","sender_id":"EDDY"}`, "", "T-1", "EDDY"},
		{"fuse", `{"messageType":"response","id":"x1","content":{"status":"bogus"}}`, "x1", "", ""},
		{"swarm", `{"message_type":"nonsense","sender_id":"s"}`, "", "", "s"},
		{"collab", `{"header":{"messageId":7}}`, "", "", ""},   // an id that is not a string
		{"swarm", `{"message_type":`, "", "", ""},              // not JSON
		{"elizaacl", `{"performative":"PROPOSE"}`, "", "", ""}, // nothing named
	} {
		codec, _ := builtin.Default().Lookup(tc.dialect)
		env := dialects.Undecoded(codec, []byte(tc.frame))
		if tc.id == "" && tc.task == "" && tc.from == "" {
			if env != nil {
				t.Errorf("%s %s: %+v, want nothing", tc.dialect, tc.frame, env)
			}
			continue
		}
		if env == nil || env.ID != tc.id || env.TaskID != tc.task || env.Sender.ID != tc.from {
			t.Errorf("%s %s: %+v, want id %q task %q sender %q", tc.dialect, tc.frame, env, tc.id, tc.task, tc.from)
		}
	}
}
