package collab_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		msg  string
		path string // "" when the message is valid
		text string
	}{
		{`{"type":"REQUEST"}`, "", ""},
		{`{"type":"PUBLISH","destination":"agent-b","body":{"event":"e"}}`, "", ""},
		{`{"type":"RESPONSE","body":{"status":"SUCCESS"}}`, "correlationId", "a RESPONSE must carry the correlationId"},
		{`{"header":{"messageId":"m","type":"RESPONSE","source":"a","destination":"b"},"body":{"status":"SUCCESS"}}`, "header.correlationId", "a RESPONSE must carry the correlationId"},
		{`{"header":{"messageId":"m","type":"RESPONSE","source":"a","destination":"b"},"correlationId":"r","body":{"status":"SUCCESS"}}`, "", ""},
		{`{"type":"RESPONSE","correlationId":"r","body":{"result":1}}`, "body.status", "a RESPONSE needs a status (one of SUCCESS, ERROR, TIMEOUT)"},
		{`{"type":"RESPONSE","correlationId":"r"}`, "body.status", "a RESPONSE needs a status"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":null}}`, "body.error", "a ERROR response needs an error with code and message"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT"}}`, "body.error", "a TIMEOUT response needs an error with code and message"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":{"passed":0}}}`, "", ""},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"TIMEOUT","result":"partial","error":null}}`, "", ""},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":null}}`, "body.error", "or a result (a failed result)"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","result":{"passed":0},"error":{"code":"INTERNAL"}}}`, "body.error.message", "needs a message"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":{"code":"INTERNAL"}}}`, "body.error.message", "a ERROR response's error needs a message"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":{"message":"x"}}}`, "body.error.code", "needs a code"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"ERROR","error":{"code":"INTERNAL","message":"x","retryAfter":-5}}}`, "body.error.retryAfter", "minimum"},
		{`{"type":"RESPONSE","correlationId":"r","body":{"status":"DONE"}}`, "body.status", "value must be one of"},
		{`{"type":"PUBLISH","destination":"*"}`, "destination", `"*" is for BROADCAST`},
		{`{"type":"PUBLISH","destination":"topic:"}`, "destination", "names no topic"},
		{`{"header":{"messageId":"m","type":"BROADCAST","source":"a","destination":"topic:x"}}`, "header.destination", `must be "*", got "topic:x"`},
		{`{"type":"BROADCAST"}`, "", ""},
		{`{"header":{"type":"REQUEST","source":"a","destination":"b"}}`, "header", "messageId"},
		{`{"header":{"messageId":"m","type":"REQUEST","source":"a","destination":"b","priority":7}}`, "header.priority", "maximum"},
		{`{"type":"REQUEST","ttl":-1}`, "ttl", "minimum"},
		{`{"type":"REQUEST","ttl":1.5}`, "ttl", "integer"},
		{`{"type":"REQUEST","timestamp":"10 Jan 2026"}`, "timestamp", "pattern"},
		{`{"type":"REQUEST","body":{"action":"registry.register","payload":{"id":"a","name":"A","capabilities":[{"name":"c"}]}}}`, "body.payload.capabilities.0", "actions"},
		{`{"type":"REQUEST","body":{"action":"registry.find","payload":{"status":"ASLEEP"}}}`, "body.payload.status", "value must be one of"},
		{`{"source":"a"}`, "", "type"},
		{"{\"type\":\"BROADCAST\",\"\x8b\":1,\"\x89\":2}", "", "not valid UTF-8"},
	}
	c := codec()
	for _, tt := range tests {
		p := c.Validate([]byte(tt.msg))
		if tt.path == "" && tt.text == "" {
			if len(p) != 0 {
				t.Errorf("%s: unexpected problems %v", tt.msg, p)
			}
			continue
		}
		found := false
		for _, pr := range p {
			if pr.Path == tt.path && strings.Contains(pr.Message, tt.text) {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: problems %v, want one at %q containing %q", tt.msg, p, tt.path, tt.text)
		}
	}
}

// TestDetect checks that collab claims its own samples and none of the other
// dialects'.
func TestDetect(t *testing.T) {
	c := codec()
	for _, s := range dialecttest.Samples(t, dialecttest.SamplesDir) {
		if c.Detect(s.Data) < 3 {
			t.Errorf("%s: Detect = %d", s.Name, c.Detect(s.Data))
		}
	}
	others, err := filepath.Glob("../*/testdata/samples")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range others {
		if strings.Contains(dir, "/collab/") {
			continue
		}
		for _, s := range dialecttest.Samples(t, dir) {
			if n := c.Detect(s.Data); n != 0 {
				t.Errorf("%s/%s: Detect = %d, want 0", dir, s.Name, n)
			}
		}
	}
	for _, m := range []string{`{"type":"task_result"}`, `{"type":"error","payload":{}}`, `{"header":1,"type":"REQUEST"}`} {
		want(t, c.Detect([]byte(m)), 0)
	}
}
