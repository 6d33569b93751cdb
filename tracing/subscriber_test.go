package tracing_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/tracing"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestSubscriber: as a subscriber of a bridge's events, the tracer makes
// one trace of a request and its answer (collab carries traces both ways): the receipt of each, the
// request until its answer, each delivery and each translation, each
// span the child of the one before it; and the frames delivered carry
// the trace on.
func TestSubscriber(t *testing.T) {
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(sr))
	b, _ := bridgetest.New(t, bridge.Options{Tracer: tracing.New(tp)})
	responder := bridgetest.Attach(t, b, "collab", "responder", nil)
	asker := bridgetest.Attach(t, b, "collab", "asker", nil)
	asker.Say(&canonical.Envelope{ID: "m-1", Act: canonical.ActRequest, Sender: canonical.Party{ID: "asker"},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "responder"},
		Operation: canonical.Operation{Name: "echo"}, Arguments: `{}`})
	req := <-responder.Got
	if req.Trace.TraceID == "" || req.Trace.SpanID == "" {
		t.Fatalf("the request reached its receiver without a trace: %+v", req.Trace)
	}
	answer := bridgetest.Reply(req, canonical.ActResult)
	answer.Outcome, answer.Result = canonical.OutcomeSuccess, `{}`
	responder.Say(answer)
	got := <-asker.Got
	if got.Trace.TraceID != req.Trace.TraceID {
		t.Errorf("the answer is in trace %q, its request in %q", got.Trace.TraceID, req.Trace.TraceID)
	}

	want := []string{"receive request", "request echo", "deliver request", "translate collab -> collab",
		"receive result", "deliver result", "translate collab -> collab"}
	deadline := time.Now().Add(5 * time.Second)
	var names []string
	for {
		names = names[:0]
		for _, s := range sr.Ended() {
			names = append(names, s.Name())
		}
		if len(names) >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("no span %q among %q", w, names)
		}
	}
	byID := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		byID[s.SpanContext().SpanID().String()] = s
		if s.SpanContext().TraceID().String() != req.Trace.TraceID {
			t.Errorf("span %q is in trace %s, not the request's", s.Name(), s.SpanContext().TraceID())
		}
	}
	parentOf := func(name string) string {
		for _, s := range sr.Ended() {
			if s.Name() == name {
				if p, ok := byID[s.Parent().SpanID().String()]; ok {
					return p.Name()
				}
				return ""
			}
		}
		return fmt.Sprintf("(no %s)", name)
	}
	for child, parent := range map[string]string{
		"request echo":    "receive request",
		"deliver request": "request echo",

		"deliver result": "receive result",
	} {
		if got := parentOf(child); got != parent {
			t.Errorf("%s is the child of %q, want %q", child, got, parent)
		}
	}
	// The responder's answer carries no trace of its own: its receipt is
	// the child of its request's span.
	if got := parentOf("receive result"); got != "request echo" {
		t.Errorf("the answer's receipt is the child of %q, want its request's", got)
	}
}
