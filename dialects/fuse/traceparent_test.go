package fuse

import (
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// TestTraceparent: metadata.traceparent gives the message's trace; written
// back unchanged while the trace is the same (flags and all), anew when
// the trace changed, and added for a trace from another dialect.
func TestTraceparent(t *testing.T) {
	c := New(dialects.DefaultMappings().Vocabulary(Name))
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	msg := `{"version":"1.0","messageType":"event","id":"e-1","source":{"agentId":"a"},"content":{"eventType":"x","data":{}},` +
		`"metadata":{"traceparent":"00-` + tid + `-00f067aa0ba902b7-00","region":"eu"}}`
	env, err := c.Decode([]byte(msg))
	if err != nil {
		t.Fatal(err)
	}
	if env.Trace.TraceID != tid || env.Trace.SpanID != "00f067aa0ba902b7" {
		t.Fatalf("trace %+v", env.Trace)
	}
	out, err := c.Encode(nil, env, &dialects.EncodeContext{})
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "metadata.traceparent").String(); got != "00-"+tid+"-00f067aa0ba902b7-00" {
		t.Errorf("round trip wrote %q", got)
	}
	env.Trace.SpanID = "b7ad6b7169203331" // the bridge's span
	out, _ = c.Encode(nil, env, &dialects.EncodeContext{})
	if got := gjson.GetBytes(out, "metadata.traceparent").String(); got != "00-"+tid+"-b7ad6b7169203331-00" {
		t.Errorf("a new span wrote %q", got)
	}
	other := &canonical.Envelope{Act: canonical.ActEvent, Sender: canonical.Party{ID: "a"}, Operation: canonical.Operation{Name: "x"},
		Arguments: "{}", Trace: canonical.Trace{TraceID: tid, SpanID: "a1c3e5f7b9d0e2f4"}}
	ctx := &dialects.EncodeContext{}
	out, _ = c.Encode(nil, other, ctx)
	if got := gjson.GetBytes(out, "metadata.traceparent").String(); got != "00-"+tid+"-a1c3e5f7b9d0e2f4-01" {
		t.Errorf("a trace from elsewhere wrote %q", got)
	}
	for _, l := range ctx.Losses {
		if l.Concept == canonical.CTraceID || l.Concept == canonical.CSpanID {
			t.Errorf("a W3C trace reported lost: %v", l)
		}
	}
	other.Trace = canonical.Trace{TraceID: "trace_123", SpanID: "span_456"}
	ctx = &dialects.EncodeContext{}
	out, _ = c.Encode(nil, other, ctx)
	if gjson.GetBytes(out, "metadata.traceparent").Exists() || !lostConcept(ctx, canonical.CTraceID) {
		t.Errorf("a trace that is not W3C: %s, losses %v", out, ctx.Losses)
	}
}

func lostConcept(ctx *dialects.EncodeContext, cn canonical.Concept) bool {
	for _, l := range ctx.Losses {
		if l.Concept == cn {
			return true
		}
	}
	return false
}
