package e2e

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/tidwall/gjson"
)

// TestAnswerJoinsRequest: an answer from an agent whose dialect carries no
// trace or priority (elizaacl) reaches a collab requester as a span of its
// own, child of the request's, at the request's priority; and the bridge's
// own errors say whether they are worth retrying.
func TestAnswerJoinsRequest(t *testing.T) {
	h := start(t, nil)
	h.runAgent("elizaacl", responder("elizaacl"))
	c := h.dial("collab", requester("collab"))

	req := request("collab", responder("elizaacl"), "echo", `{"text":"hi"}`, "m-1")
	req.Priority = canonical.PriorityHigh
	req.Trace = canonical.Trace{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}
	c.send(c.encode(req))
	ans := c.recv()
	tr := gjson.GetBytes(ans, "trace")
	if got := gjson.GetBytes(ans, "body.status").String(); got != "SUCCESS" {
		t.Fatalf("answer %s", ans)
	}
	if tr.Get("traceId").String() != req.Trace.TraceID || tr.Get("parentSpan").String() != req.Trace.SpanID ||
		!canonical.IsSpanID(tr.Get("spanId").String()) || tr.Get("spanId").String() == req.Trace.SpanID {
		t.Errorf("answer's trace %s: want trace %s, parent span %s, a span of its own", tr.Raw, req.Trace.TraceID, req.Trace.SpanID)
	}
	if p := gjson.GetBytes(ans, "header.priority").Int(); p != 3 {
		t.Errorf("answer's priority %d, want the request's 3 (HIGH): %s", p, ans)
	}

	// The bridge's own errors: nobody serves the operation, or no such
	// agent (not worth retrying), and no answer within the request's ttl
	// (worth it). collab has no not-found: it is written INTERNAL, which
	// by collab's 9.1 may go either way, so the flag tells.
	for _, tc := range []struct {
		name      string
		to, op    string
		args      string
		ttl       time.Duration
		code      string
		retryable bool
	}{
		{"no agent serves it", "", "no-such-tool", `{}`, 0, "INTERNAL", false},
		{"no such agent", "nobody-here", "echo", `{}`, 0, "INTERNAL", false},
		{"no answer in time", responder("elizaacl"), "sleep", `{"ms":2000}`, 100 * time.Millisecond, "TIMEOUT", true},
	} {
		env := request("collab", tc.to, tc.op, tc.args, "m-"+tc.name)
		if tc.to == "" {
			env.Receiver = canonical.Address{}
		}
		if tc.ttl > 0 {
			env.TTL = canonical.Duration{D: tc.ttl, Set: true}
		}
		c.send(c.encode(env))
		e := c.recv()
		r := gjson.GetBytes(e, "body.error.retryable")
		if gjson.GetBytes(e, "body.status").String() != "ERROR" || gjson.GetBytes(e, "body.error.code").String() != tc.code ||
			!r.Exists() || r.Bool() != tc.retryable {
			t.Errorf("%s: %s, want a %s error saying retryable %v", tc.name, e, tc.code, tc.retryable)
		}
	}
}
