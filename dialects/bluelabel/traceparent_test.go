package bluelabel_test

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// TestTraceparent: a task assignment's metadata.traceparent gives the span
// its trace_id continues; it is written back unchanged while the trace is
// the same (flags and all), anew when the span changed, and added for a
// W3C trace from another dialect, so that one trace spans bluelabel agents.
func TestTraceparent(t *testing.T) {
	c := codec()
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	msg := `{"type":"task_assignment","sender_id":"A","recipient_id":"B","timestamp":"2026-11-25T10:00:00Z","task_id":"T1","trace_id":"` + tid + `",` +
		`"payload":{"task_type":"x","content":{"description":"d"}},"metadata":{"traceparent":"00-` + tid + `-00f067aa0ba902b7-00","team":"blue"}}`
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
	if got := gjson.GetBytes(out, "metadata.traceparent").Str; got != "00-"+tid+"-00f067aa0ba902b7-00" {
		t.Errorf("round trip: traceparent %q", got)
	}
	env.Trace.SpanID = "1111111111111111"
	out, _ = c.Encode(nil, env, &dialects.EncodeContext{})
	if got := gjson.GetBytes(out, "metadata.traceparent").Str; got != "00-"+tid+"-1111111111111111-00" {
		t.Errorf("a new span: traceparent %q", got)
	}
	if gjson.GetBytes(out, "metadata.team").Str != "blue" {
		t.Errorf("the other metadata members: %s", out)
	}
	other := &canonical.Envelope{Act: canonical.ActRequest, Sender: canonical.Party{ID: "A"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "B"},
		TaskID: "T2", Operation: canonical.Operation{Name: "x"}, Description: "d", Arguments: `{}`,
		Trace: canonical.Trace{TraceID: tid, SpanID: "2222222222222222"}}
	ctx := &dialects.EncodeContext{}
	out, err = c.Encode(nil, other, ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := gjson.GetBytes(out, "metadata.traceparent").Str; got != "00-"+tid+"-2222222222222222-01" {
		t.Errorf("from another dialect: traceparent %q in %s", got, out)
	}
	for _, l := range ctx.Losses {
		if strings.Contains(l.Message(), "span_id") {
			t.Errorf("the span is carried, yet reported: %s", l.Message())
		}
	}
	if p := c.Validate(out); len(p) > 0 {
		t.Errorf("invalid: %v\n%s", p, out)
	}
}
