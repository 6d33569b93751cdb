package e2e

import (
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/server"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestTraceAcrossDialects: an elizaacl agent asks a collab agent, which
// asks a swarm agent before it answers; the collab agent only passes the
// trace context it was given on. The bridge's spans (exported to the
// SDK's in-memory exporter) make one trace: each message's receipt, the
// requests until their answers, each delivery and translation, each the
// child of what caused it, and the trace ids the collab agent saw are the
// bridge's spans.
func TestTraceAcrossDialects(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	h := startWith(t, nil, nil, server.WithTracerProvider(tp))
	h.runAgent("swarm", "swarm-agent")
	middle := h.dial("collab", "collab-agent")
	eliza := h.dial("elizaacl", "elizaacl-req")
	exp.Reset() // the handshakes so far are traces of their own

	eliza.send(eliza.encode(request("elizaacl", "collab-agent", "relay", `{"a":1,"b":2}`, "trace-1")))
	asked := middle.decode(middle.recv())
	if !canonical.IsTraceID(asked.Trace.TraceID) || !canonical.IsSpanID(asked.Trace.SpanID) {
		t.Fatalf("the collab agent got no W3C trace: %+v", asked.Trace)
	}
	// The collab agent asks swarm-agent, passing its context on.
	onward := request("collab", "swarm-agent", "add", `{"a":1,"b":2}`, "trace-2")
	onward.Sender.ID = "collab-agent"
	onward.Trace = canonical.Trace{TraceID: asked.Trace.TraceID, SpanID: asked.Trace.SpanID}
	middle.send(middle.encode(onward))
	sum := middle.decode(middle.recv())
	if sum.Error != nil || sum.Trace.TraceID != asked.Trace.TraceID {
		t.Fatalf("the swarm agent's answer: %+v", sum)
	}
	middle.send(middle.encode(&canonical.Envelope{Act: canonical.ActResult, Sender: canonical.Party{ID: "collab-agent"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: asked.Sender.ID}, InReplyTo: asked.ID, CorrelationID: asked.ID, Outcome: canonical.OutcomeSuccess,
		Result: sum.Result, Trace: onward.Trace}))
	for {
		env := eliza.decode(eliza.recv())
		if env.Act == canonical.ActResult {
			break
		}
	}

	// A delivery's span ends once its connection took the message, a
	// request's once its answer is on its way: wait for them all.
	var spans tracetest.SpanStubs
	deadline := time.Now().Add(wait)
	for {
		spans = exp.GetSpans()
		if len(named(spans, "deliver result")) >= 2 && len(named(spans, "deliver request")) >= 2 &&
			len(named(spans, "request relay")) == 1 && len(named(spans, "request add")) == 1 || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	byID := map[string]tracetest.SpanStub{}
	for _, s := range spans {
		byID[s.SpanContext.SpanID().String()] = s
		if s.SpanContext.TraceID().String() != asked.Trace.TraceID {
			t.Errorf("span %q is in trace %s, not %s", s.Name, s.SpanContext.TraceID(), asked.Trace.TraceID)
		}
	}
	parentOf := func(s tracetest.SpanStub) (tracetest.SpanStub, bool) {
		p, ok := byID[s.Parent.SpanID().String()]
		return p, ok
	}
	attr := func(s tracetest.SpanStub, key string) string {
		for _, a := range s.Attributes {
			if string(a.Key) == key {
				return a.Value.AsString()
			}
		}
		return ""
	}
	// The root: the elizaacl request's receipt (elizaacl carries no trace).
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if !s.Parent.IsValid() {
			roots = append(roots, s)
		}
	}
	if len(roots) != 1 || roots[0].Name != "receive request" || attr(roots[0], "mcp_bridge.dialect") != "elizaacl" {
		t.Fatalf("roots: %v", names(roots))
	}
	// The delivery to the collab agent is the span the collab agent saw,
	// child of the request, child of the receipt.
	toCollab, ok := byID[asked.Trace.SpanID]
	if !ok || toCollab.Name != "deliver request" || attr(toCollab, "mcp_bridge.receiver") != "collab-agent" {
		t.Fatalf("the collab agent's span %s is not the delivery to it: %+v", asked.Trace.SpanID, toCollab.Name)
	}
	req1, _ := parentOf(toCollab)
	if req1.Name != "request relay" || req1.Parent.SpanID() != roots[0].SpanContext.SpanID() {
		t.Errorf("the delivery's parent: %q", req1.Name)
	}
	// The collab agent's request continues from the delivery to it; its
	// delivery to swarm-agent is the child of its request span, and the
	// swarm answer (which carries no trace) the child of that request too.
	var fromCollab, req2, toSwarm, swarmAnswer tracetest.SpanStub
	for _, s := range spans {
		switch {
		case s.Name == "receive request" && attr(s, "mcp_bridge.dialect") == "collab":
			fromCollab = s
		case s.Name == "request add":
			req2 = s
		case s.Name == "deliver request" && attr(s, "mcp_bridge.receiver") == "swarm-agent":
			toSwarm = s
		case s.Name == "receive result" && attr(s, "mcp_bridge.dialect") == "swarm":
			swarmAnswer = s
		}
	}
	if fromCollab.Parent.SpanID().String() != asked.Trace.SpanID {
		t.Errorf("the collab agent's request is not the child of the delivery to it")
	}
	if req2.Parent.SpanID() != fromCollab.SpanContext.SpanID() || toSwarm.Parent.SpanID() != req2.SpanContext.SpanID() {
		t.Errorf("request add / deliver to swarm-agent are not nested: %v", names(spans))
	}
	if swarmAnswer.Parent.SpanID() != req2.SpanContext.SpanID() {
		t.Errorf("the swarm answer's receipt is not the child of its request")
	}
	// Each delivery translated its message, in a child span.
	translations := 0
	for _, s := range named(spans, "translate collab -> swarm") {
		if p, _ := parentOf(s); p.SpanContext.SpanID() == toSwarm.SpanContext.SpanID() {
			translations++
		}
	}
	if translations != 1 {
		t.Errorf("the translation into swarm is not the delivery's child: %v", names(spans))
	}
	for _, s := range spans {
		if s.EndTime.IsZero() {
			t.Errorf("span %q never ended", s.Name)
		}
	}
}

func named(spans tracetest.SpanStubs, name string) []tracetest.SpanStub {
	var out []tracetest.SpanStub
	for _, s := range spans {
		if s.Name == name {
			out = append(out, s)
		}
	}
	return out
}

func names(spans []tracetest.SpanStub) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name + " <- " + s.Parent.SpanID().String()
	}
	return out
}
