package fuse_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestRoundTripValid checks valid messages beyond the samples (many found by
// the fuzzer) that must be written back as the same JSON value, with no loss
// reported: empty strings, layouts and members with no canonical value.
func TestRoundTripValid(t *testing.T) {
	cases := []struct{ name, msg string }{
		// Empty strings carry no canonical value: kept as extra members.
		{"empty id", `{"messageType":"response","id":"","content":{"requestId":"0","capabilities":[]}}`},
		{"empty version and timestamp", `{"version":"","timestamp":"","messageType":"event","content":{"eventType":"e"}}`},
		{"empty source agentId", `{"messageType":"event","source":{"agentId":""},"content":{"eventType":"e"}}`},
		{"empty source name", `{"messageType":"event","source":{"agentId":"a","name":""},"content":{"eventType":"e"}}`},
		{"empty target", `{"messageType":"request","target":{"agentId":"","name":""},"content":{"action":"a"}}`},
		{"empty capability", `{"messageType":"request","content":{"capability":"","action":"a","contextId":""}}`},
		{"empty action", `{"messageType":"request","content":{"capability":"c","action":""}}`},
		{"empty correlationId", `{"messageType":"event","content":{"eventType":"e"},"metadata":{"correlationId":""}}`},
		{"empty sessionId beside one", `{"messageType":"event","content":{"eventType":"e"},"metadata":{"correlationId":"c","sessionId":""}}`},
		// Where the requestId sits, for both content layouts.
		{"spec layout, requestId at the top", `{"messageType":"response","requestId":"r","content":{"status":"success","data":{"a":1}}}`},
		{"guide layout, requestId in content", `{"messageType":"response","content":{"success":true,"result":{"a":1},"requestId":"r"}}`},
		{"guide failure, requestId in content", `{"messageType":"response","content":{"success":false,"error":{"code":"TIMEOUT","message":"slow"},"requestId":"r"}}`},
		{"capabilities, requestId at the top", `{"messageType":"response","requestId":"r","content":{"capabilities":[]}}`},
		// Text with UTF-16 surrogate escapes that make no pair reads as
		// encoding/json reads it: each lone surrogate one U+FFFD.
		{"lone surrogates", `{"messageType":"event","id":"\udc00\ud800","content":{"eventType":"e"}}`},
		{"lone surrogate before an escape", `{"messageType":"event","\ud800\u0041":1,"content":{"eventType":"\ud800\u0041","x\udfff\u0042":2},"metadata":{"\ud800\u0041":1,"correlationId":"\udbff\u0043"}}`},
		{"lone surrogates in an error", `{"messageType":"response","requestId":"\ud800\u0041","content":{"success":false,"error":{"code":"\ud800\u0041","message":"\ud800\u0041","\ud800\u0041":0}}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := codec()
			if p := c.Validate([]byte(tc.msg)); len(p) != 0 {
				t.Fatalf("input does not validate: %v", p)
			}
			env := decode(t, []byte(tc.msg))
			ctx := dialecttest.EncodeContext()
			out, err := c.Encode(nil, env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(ctx.Losses) != 0 {
				t.Errorf("losses %v", ctx.Losses)
			}
			if !dialecttest.JSONEqual(out, []byte(tc.msg)) {
				t.Errorf("round trip\n got %s\nwant %s", out, tc.msg)
			}
			if p := c.Validate(out); len(p) != 0 {
				t.Errorf("output does not validate: %v\n%s", p, out)
			}
		})
	}
}
