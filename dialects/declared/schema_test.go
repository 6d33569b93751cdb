package declared_test

import (
	"encoding/json"
	"testing"

	"github.com/tidwall/sjson"
)

// TestSchemaDocument checks the schema derived from the hook declaration.
func TestSchemaDocument(t *testing.T) {
	var doc struct {
		Schema     string                     `json:"$schema"`
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(codec(t).Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	want(t, "$schema", doc.Schema, "https://json-schema.org/draft/2020-12/schema")
	want(t, "type", doc.Type, "object")
	want(t, "required", doc.Required, []string{"hook", "id", "event", "from", "sent_at"})
	props := map[string]string{
		"hook":    `{"const":"1","description":"detection mark"}`,
		"event":   `{"description":"canonical act (word)","enum":["call","reply","error","reject","notify"]}`,
		"urgency": `{"description":"canonical priority (word)","enum":["low","normal","high","urgent"]}`,
		"ttl_ms":  `{"description":"canonical ttl (milli): milliseconds","type":"number","minimum":0,"maximum":9223372036854}`,
		"data":    `{"description":"canonical arguments (raw)"}`,
		"from":    `{"description":"canonical sender (text)","type":"string"}`,
	}
	for k, w := range props {
		if !equalJSON(doc.Properties[k], []byte(w)) {
			t.Errorf("properties.%s = %s, want %s", k, doc.Properties[k], w)
		}
	}
	var errObj struct {
		Type       string                     `json:"type"`
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(doc.Properties["error"], &errObj); err != nil {
		t.Fatal(err)
	}
	want(t, "error.type", errObj.Type, "object")
	want(t, "error.required", errObj.Required, []string(nil))
	want(t, "error members", len(errObj.Properties), 3)
}

// TestSchemaValidate edits a valid hook message and checks what Validate
// finds.
func TestSchemaValidate(t *testing.T) {
	c := codec(t)
	base := []byte(`{"hook":"1","id":"h-1","event":"call","from":"ci-bot","sent_at":"2026-01-10T14:30:00Z","error":{"code":"quota_exceeded"}}`)
	if p := c.Validate(base); len(p) != 0 {
		t.Fatalf("base message: %v", p)
	}
	tests := []struct {
		name, path string
		value      any // nil deletes the member
		problems   string
	}{
		{"missing sent_at", "sent_at", nil, "sent_at: missing"},
		{"missing id", "id", nil, "id: missing"},
		{"missing mark", "hook", nil, "hook: missing"},
		{"other mark", "hook", "2", `hook: must be "1", the mark of hook messages, got "2"`},
		{"mark a number", "hook", 1, `hook: must be "1", the mark of hook messages, got a number (1)`},
		{"unknown urgency", "urgency", "asap", "urgency: value must be one of 'low', 'normal', 'high', 'urgent'"},
		{"unknown act", "event", "shout", "event: value must be one of 'call', 'reply', 'error', 'reject', 'notify'"},
		{"negative ttl", "ttl_ms", -5, "ttl_ms: minimum: got -5, want 0"},
		{"ttl a string", "ttl_ms", "30", "ttl_ms: got string, want number"},
		{"text a number", "from", 7, "from: got number, want string"},
		{"error not an object", "error", "boom", "error: got string, want object"},
		{"code a number", "error.code", 7, "error.code: got number, want string"},
		{"raw anything", "data", []any{1, "two"}, ""},
		{"extra member", "signature", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var msg []byte
			var err error
			if tt.value == nil {
				msg, err = sjson.DeleteBytes(base, tt.path)
			} else {
				msg, err = sjson.SetBytes(base, tt.path, tt.value)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := problems(c.Validate(msg)); got != tt.problems {
				t.Errorf("%s:\n got %s\nwant %s", msg, got, tt.problems)
			}
		})
	}
	for _, bad := range []string{`[]`, `"hook"`, `{"hook":"1"`} {
		if len(c.Validate([]byte(bad))) == 0 {
			t.Errorf("Validate accepted %s", bad)
		}
	}
	if got := problems(c.Validate([]byte(`{}`))); got != "hook: missing; id: missing; event: missing; from: missing; sent_at: missing" {
		t.Errorf("empty object: %s", got)
	}
}
