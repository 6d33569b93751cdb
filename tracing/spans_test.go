package tracing

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// The W3C ids of the messages in these tests.
const (
	traceID  = "4bf92f3577b34da6a3ce929d0e0e4736"
	spanID   = "00f067aa0ba902b7"
	parentID = "b7ad6b7169203331"
)

// recorder returns a Tracer whose spans, once ended, are in the recorder.
func recorder(t *testing.T, opts ...sdktrace.TracerProviderOption) (*Tracer, *tracetest.SpanRecorder) {
	t.Helper()
	sr := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{sdktrace.WithSpanProcessor(sr)}, opts...)...)
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	return New(tp), sr
}

// only returns the one span the recorder holds.
func only(t *testing.T, sr *tracetest.SpanRecorder) sdktrace.ReadOnlySpan {
	t.Helper()
	ended := sr.Ended()
	if len(ended) != 1 {
		t.Fatalf("%d spans ended, want 1", len(ended))
	}
	return ended[0]
}

// attrs returns a span's attributes by key.
func attrs(s sdktrace.ReadOnlySpan) map[attribute.Key]string {
	out := map[attribute.Key]string{}
	for _, kv := range s.Attributes() {
		out[kv.Key] = kv.Value.String()
	}
	return out
}

// TestReceivedParent: the span of a message received is a child of the
// trace the message carries, read as W3C trace context; a trace id that is
// not W3C is replaced by one derived from it (the same for every message of
// that trace) and kept as an attribute; the trace the message carries on is
// the span's, its parent the span the message named.
func TestReceivedParent(t *testing.T) {
	for _, tc := range []struct {
		name       string
		in         canonical.Trace
		wantTrace  string // "" : a new one
		wantParent string // "" : none (a root)
		foreign    string
	}{
		{"no trace: a root", canonical.Trace{}, "", "", ""},
		{"W3C trace and span", canonical.Trace{TraceID: traceID, SpanID: spanID}, traceID, spanID, ""},
		{"W3C trace and parent span only", canonical.Trace{TraceID: traceID, ParentSpanID: parentID}, traceID, parentID, ""},
		{"W3C trace without a span", canonical.Trace{TraceID: traceID}, traceID, derive(traceID + "/")[:16], ""},
		{"W3C trace, span not W3C", canonical.Trace{TraceID: traceID, SpanID: "span-1"}, traceID, derive(traceID + "/span-1")[:16], ""},
		{"foreign trace id", canonical.Trace{TraceID: "trace_123", SpanID: spanID},
			derive("trace_123")[:32], derive(derive("trace_123")[:32] + "/" + spanID)[:16], "trace_123"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, sr := recorder(t)
			env := &canonical.Envelope{ID: "m-1", Act: canonical.ActRequest, Sender: canonical.Party{ID: "alice"},
				Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "bob"}, Trace: tc.in}
			start := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
			got, end := tr.Received(env, "swarm", "websocket", start)
			end(nil)
			s := only(t, sr)
			if s.Name() != "receive request" || s.SpanKind() != trace.SpanKindServer || !s.StartTime().Equal(start) {
				t.Errorf("span %q, kind %v, start %v", s.Name(), s.SpanKind(), s.StartTime())
			}
			sc := s.SpanContext()
			if got.TraceID != sc.TraceID().String() || got.SpanID != sc.SpanID().String() || got.ParentSpanID != tc.wantParent {
				t.Errorf("the message carries %+v on; the span is %s/%s, want parent %q", got, sc.TraceID(), sc.SpanID(), tc.wantParent)
			}
			if tc.wantTrace != "" && sc.TraceID().String() != tc.wantTrace {
				t.Errorf("trace %s, want %s", sc.TraceID(), tc.wantTrace)
			}
			if p := s.Parent(); tc.wantParent == "" {
				if p.IsValid() {
					t.Errorf("a root has the parent %s", p.SpanID())
				}
			} else if p.SpanID().String() != tc.wantParent || !p.IsRemote() || p.TraceID() != sc.TraceID() {
				t.Errorf("parent %s (remote %v) in trace %s, want %s in the span's trace", p.SpanID(), p.IsRemote(), p.TraceID(), tc.wantParent)
			}
			want := map[attribute.Key]string{"mcp_bridge.dialect": "swarm", "mcp_bridge.transport": "websocket",
				"mcp_bridge.act": "request", "mcp_bridge.sender": "alice", "mcp_bridge.receiver": "bob", "mcp_bridge.message_id": "m-1"}
			if tc.foreign != "" {
				want["mcp_bridge.foreign_trace_id"] = tc.foreign
			}
			if a := attrs(s); !mapsEqual(a, want) {
				t.Errorf("attributes %v, want %v", a, want)
			}
			if s.Status().Code != codes.Unset {
				t.Errorf("status %v on success", s.Status())
			}
		})
	}
}

// TestForeignTraceIsOne: the messages of one foreign trace make one trace
// of spans; another foreign trace makes another.
func TestForeignTraceIsOne(t *testing.T) {
	tr, sr := recorder(t)
	for _, id := range []string{"trace_123", "trace_123", "trace_456"} {
		_, end := tr.Received(&canonical.Envelope{Act: canonical.ActEvent, Trace: canonical.Trace{TraceID: id}}, "collab", "http", time.Time{})
		end(nil)
	}
	s := sr.Ended()
	if s[0].SpanContext().TraceID() != s[1].SpanContext().TraceID() || s[0].SpanContext().TraceID() == s[2].SpanContext().TraceID() {
		t.Errorf("traces %s %s %s: want the first two one trace, the third another",
			s[0].SpanContext().TraceID(), s[1].SpanContext().TraceID(), s[2].SpanContext().TraceID())
	}
}

// TestSpanChain: a request's spans nest as the bridge makes them: its
// receipt, the request to its receiver under it, its delivery and its
// translation under that, all in the trace of the message.
func TestSpanChain(t *testing.T) {
	tr, sr := recorder(t)
	env := &canonical.Envelope{ID: "m-1", Act: canonical.ActRequest, Sender: canonical.Party{ID: "alice"},
		Operation: canonical.Operation{Capability: "math", Name: "add"}, Trace: canonical.Trace{TraceID: traceID, SpanID: spanID}}
	recv, endRecv := tr.Received(env, "fuse", "websocket", time.Now())
	req, endReq := tr.Request(recv, env, "bob")
	del, endDel := tr.Deliver(req, env, "bob", "swarm")
	tr.Translated(req, "fuse", "swarm", time.Now(), nil)
	endDel(nil)
	endReq(nil)
	endRecv(nil)
	if req.TraceID != traceID || del.TraceID != traceID {
		t.Errorf("traces %s, %s: want the message's %s", req.TraceID, del.TraceID, traceID)
	}
	if req.ParentSpanID != recv.SpanID || del.ParentSpanID != req.SpanID {
		t.Errorf("request's parent %s, want the receipt's %s; delivery's %s, want the request's %s",
			req.ParentSpanID, recv.SpanID, del.ParentSpanID, req.SpanID)
	}
	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range sr.Ended() {
		byName[s.Name()] = s
	}
	for _, tc := range []struct {
		name, parent string
		kind         trace.SpanKind
		attrs        map[attribute.Key]string
	}{
		{"request math/add", "receive request", trace.SpanKindInternal,
			map[attribute.Key]string{"mcp_bridge.operation": "math/add", "mcp_bridge.sender": "alice", "mcp_bridge.receiver": "bob"}},
		{"deliver request", "request math/add", trace.SpanKindProducer,
			map[attribute.Key]string{"mcp_bridge.dialect": "swarm", "mcp_bridge.act": "request", "mcp_bridge.sender": "alice", "mcp_bridge.receiver": "bob"}},
		{"translate fuse -> swarm", "request math/add", trace.SpanKindInternal,
			map[attribute.Key]string{"mcp_bridge.from": "fuse", "mcp_bridge.to": "swarm"}},
	} {
		s, p := byName[tc.name], byName[tc.parent]
		if s == nil || p == nil {
			t.Fatalf("no span %q or %q among %d", tc.name, tc.parent, len(sr.Ended()))
		}
		if s.Parent().SpanID() != p.SpanContext().SpanID() || s.SpanContext().TraceID() != p.SpanContext().TraceID() {
			t.Errorf("%s: parent %s, want %s's %s", tc.name, s.Parent().SpanID(), tc.parent, p.SpanContext().SpanID())
		}
		if s.SpanKind() != tc.kind {
			t.Errorf("%s: kind %v, want %v", tc.name, s.SpanKind(), tc.kind)
		}
		if a := attrs(s); !mapsEqual(a, tc.attrs) {
			t.Errorf("%s: attributes %v, want %v", tc.name, a, tc.attrs)
		}
	}
}

// TestSpanNames: operations without a capability, and messages the bridge
// wrote itself, are named as such.
func TestSpanNames(t *testing.T) {
	tr, sr := recorder(t)
	_, end := tr.Request(canonical.Trace{}, &canonical.Envelope{Operation: canonical.Operation{Name: "echo"}}, "bob")
	end(nil)
	tr.Translated(canonical.Trace{}, "", "collab", time.Time{}, nil)
	_, endDel := tr.Deliver(canonical.Trace{}, &canonical.Envelope{Act: canonical.ActEvent}, "bob", "collab")
	endDel(nil)
	var names []string
	for _, s := range sr.Ended() {
		names = append(names, s.Name())
	}
	if want := []string{"request echo", "translate bridge -> collab", "deliver event"}; !slices.Equal(names, want) {
		t.Errorf("names %q, want %q", names, want)
	}
	if a := attrs(sr.Ended()[1]); a["mcp_bridge.from"] != "bridge" {
		t.Errorf("from %q, want bridge", a["mcp_bridge.from"])
	}
}

// TestSpanErrors: a span ended by a failure has the error status, and a
// request's its canonical error code.
func TestSpanErrors(t *testing.T) {
	tr, sr := recorder(t)
	fail := &canonical.Error{Code: canonical.ErrTimeout, Message: "no answer in 30s"}
	_, endRecv := tr.Received(&canonical.Envelope{Act: canonical.ActRequest}, "swarm", "websocket", time.Time{})
	endRecv(fail)
	_, endReq := tr.Request(canonical.Trace{}, &canonical.Envelope{Operation: canonical.Operation{Name: "x"}}, "bob")
	endReq(&canonical.Error{Code: canonical.ErrUnavailable, Message: "gone"})
	_, endDel := tr.Deliver(canonical.Trace{}, &canonical.Envelope{Act: canonical.ActRequest}, "bob", "swarm")
	endDel(errors.New("write: broken pipe"))
	tr.Translated(canonical.Trace{}, "swarm", "fuse", time.Time{}, errors.New("fuse cannot carry it"))
	for i, want := range []struct {
		desc, code string
	}{
		{fail.Error(), "timeout"},
		{(&canonical.Error{Code: canonical.ErrUnavailable, Message: "gone"}).Error(), "unavailable"},
		{"write: broken pipe", ""},
		{"fuse cannot carry it", ""},
	} {
		s := sr.Ended()[i]
		if s.Status().Code != codes.Error || s.Status().Description != want.desc {
			t.Errorf("%s: status %v, want error %q", s.Name(), s.Status(), want.desc)
		}
		if got := attrs(s)["mcp_bridge.error_code"]; got != want.code {
			t.Errorf("%s: error code %q, want %q", s.Name(), got, want.code)
		}
	}
}

// TestSampledOut: a message whose span is not recorded carries on the
// trace it had, so that the spans that follow it are not recorded either
// (tracing.sample_ratio bounds the traces the bridge starts, not only their
// first span); and a message that names a parent is recorded even when the
// bridge's own traces are not (parent based sampling).
func TestSampledOut(t *testing.T) {
	tr, sr := recorder(t, sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample())))
	env := &canonical.Envelope{Act: canonical.ActRequest, Operation: canonical.Operation{Name: "echo"}}
	got, end := tr.Received(env, "swarm", "websocket", time.Time{})
	if got != (canonical.Trace{}) {
		t.Errorf("a message whose span is sampled out carries %+v on, want the trace it had (none)", got)
	}
	req, endReq := tr.Request(got, env, "bob")
	_, endDel := tr.Deliver(req, env, "bob", "fuse")
	tr.Translated(req, "swarm", "fuse", time.Time{}, nil)
	endDel(nil)
	endReq(nil)
	end(nil)
	if n := len(sr.Ended()); n != 0 {
		t.Errorf("%d spans recorded under a receipt sampled out, want none", n)
	}
	in := canonical.Trace{TraceID: traceID, SpanID: spanID}
	got, end = tr.Received(&canonical.Envelope{Act: canonical.ActEvent, Trace: in}, "swarm", "websocket", time.Time{})
	end(nil)
	if got.TraceID != traceID || got.ParentSpanID != spanID || len(sr.Ended()) != 1 {
		t.Errorf("a message with a parent: %+v, %d spans recorded", got, len(sr.Ended()))
	}
}

// TestKeep: the trace a message carries on.
func TestKeep(t *testing.T) {
	had := canonical.Trace{TraceID: "trace_1"}
	span := canonical.Trace{TraceID: traceID, SpanID: spanID}
	if got := keep(span, had); got != span {
		t.Errorf("a recorded span: %+v", got)
	}
	if got := keep(canonical.Trace{}, had); got != had {
		t.Errorf("no span: %+v, want %+v", got, had)
	}
}

func mapsEqual(a, b map[attribute.Key]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
