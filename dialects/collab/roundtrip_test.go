package collab_test

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestRoundTripFuzzFound checks valid messages that a round trip once
// changed (found by the fuzzer, and by review of what it found): each must
// validate, and come back as the same JSON value with no loss reported.
func TestRoundTripFuzzFound(t *testing.T) {
	tests := []struct {
		name, msg string
	}{
		{"empty trace", `{"header":{"messageId":"00000000000","type":"PUBLISH","source":"00000000000000","destination":"00000000000000","000000000":"00000000000000000000","0000000000000000":0},"0000":{"00000":"0000000000","0000":{"00000000":"0000","00000000000":"000000000000000000000000000000000000000000000000000000000"     }},"trace":{}}`},
		{"empty trace ids", `{"type":"REQUEST","trace":{"traceId":"","spanId":"","parentSpan":""}}`},
		{"empty trace, flat response", `{"type":"RESPONSE","correlationId":"r","body":{"status":"SUCCESS"},"trace":{}}`},
		{"lone surrogates in read strings", `{"type":"REQUEST","messageId":"\ud800\u0041","source":"\udc00\ud800x","destination":"topic:\ud800\u0074","body":{"action":"\ud83d\ude00\ud83d\u0041"}}`},
		{"lone surrogates in an error", `{"header":{"messageId":"m","type":"RESPONSE","source":"a","destination":"b","correlationId":"\udbff\u005a"},"body":{"status":"ERROR","error":{"code":"E\ud800\u0041","message":"\udfff\u0041"}}}`},
		{"lone surrogates in kept names", `{"type":"REQUEST","\ud800\u0041":1,"body":{"x\udc00\u0041y":{}},"trace":{"\ud800\u0074raceId":"t"}}`},
	}
	c := codec()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if p := c.Validate([]byte(tt.msg)); len(p) != 0 {
				t.Fatalf("input does not validate: %v", p)
			}
			env, err := c.Decode([]byte(tt.msg))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			ctx := dialecttest.EncodeContext()
			out, err := c.Encode(nil, env, ctx)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !dialecttest.JSONEqual([]byte(tt.msg), out) {
				t.Errorf("round trip changed the message:\n got %s\nwant %s", out, tt.msg)
			}
			if p := c.Validate(out); len(p) != 0 {
				t.Errorf("output does not validate: %v\n%s", p, out)
			}
			if len(ctx.Losses) != 0 {
				t.Errorf("losses %v", ctx.Losses)
			}
		})
	}
}
