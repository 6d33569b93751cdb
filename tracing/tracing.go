// Package tracing follows each message through the bridge as
// OpenTelemetry spans: its receipt, its translation and its delivery to
// each receiver, and each request until its answer. The spans' context is
// W3C trace context, read from and written into the messages' own trace
// fields (collab's trace, fuse's metadata.traceparent, HTTP's traceparent),
// so that one trace spans agents of different dialects. A Tracer is a
// subscriber of the bridge's event stream that fills its span slots;
// without tracing configured the bridge has none and makes no slots.
package tracing

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/config"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Name is the instrumentation scope of the bridge's spans.
const Name = "github.com/mcp-bridge/mcp-bridge"

// Provider returns the tracer provider c asks for, exporting through OTLP
// over HTTP (configured by the standard OTEL_EXPORTER_OTLP_* variables) or
// as JSON to stdout; nil when c turns tracing off. The resource is
// service.name mcp-bridge and service.version version, overridden by
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES.
func Provider(ctx context.Context, c config.Tracing, version string, stdout io.Writer) (*sdktrace.TracerProvider, error) {
	var exp sdktrace.SpanExporter
	var err error
	switch c.Exporter {
	case "", "none":
		return nil, nil
	case "otlp":
		exp, err = otlptracehttp.New(ctx)
	case "stdout":
		exp, err = stdouttrace.New(stdouttrace.WithWriter(stdout))
	default:
		return nil, fmt.Errorf("tracing.exporter: unknown exporter %q", c.Exporter)
	}
	if err != nil {
		return nil, fmt.Errorf("tracing: %s exporter: %w", c.Exporter, err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "mcp-bridge"), attribute.String("service.version", version)),
		resource.WithFromEnv())
	if err != nil {
		return nil, fmt.Errorf("tracing: resource: %w", err)
	}
	return sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.TraceIDRatioBased(c.SampleRatio))),
	), nil
}

// Tracer makes the bridge's spans with a trace.Tracer.
type Tracer struct {
	t trace.Tracer
}

// New returns a Tracer making spans with p's tracer.
func New(p trace.TracerProvider) *Tracer { return &Tracer{t: p.Tracer(Name)} }

// remote is the context of a parent span a message names: its W3C trace
// id and span. A trace id that is not W3C (collab's "trace_123") is
// replaced by one derived from it, so that the messages of one such trace
// still make one trace; a trace id with no span (bluelabel's trace_id
// alone) gets a parent span derived from it.
func remote(t canonical.Trace) (context.Context, string) {
	if t.TraceID == "" {
		return context.Background(), ""
	}
	id, span, foreign := t.TraceID, t.Span(), ""
	if !canonical.IsTraceID(id) {
		foreign = id
		id = derive(id)[:32]
		span = ""
	}
	if span == "" {
		span = derive(id + "/" + t.SpanID)[:16]
	}
	tid, err1 := trace.TraceIDFromHex(id)
	sid, err2 := trace.SpanIDFromHex(span)
	if err1 != nil || err2 != nil {
		return context.Background(), foreign
	}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, Remote: true})
	return trace.ContextWithRemoteSpanContext(context.Background(), sc), foreign
}

// derive is a hex digest of s, for ids made from foreign ones.
func derive(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// traceOf is the canonical trace of span s, child of parent; none when s
// is not sampled: the SDK gives a span sampled out ids of its own, and a
// message carrying them on would have the spans that follow it recorded
// (remote marks every parent sampled), under a parent nobody recorded.
func traceOf(s trace.Span, parent string) canonical.Trace {
	sc := s.SpanContext()
	if !sc.IsValid() || !sc.IsSampled() {
		return canonical.Trace{}
	}
	return canonical.Trace{TraceID: sc.TraceID().String(), SpanID: sc.SpanID().String(), ParentSpanID: parent}
}

// start starts a span child of the trace parent, returning it and its
// trace.
func (t *Tracer) start(parent canonical.Trace, name string, kind trace.SpanKind, at time.Time, attrs ...attribute.KeyValue) (trace.Span, canonical.Trace) {
	ctx, foreign := remote(parent)
	if foreign != "" {
		attrs = append(attrs, attribute.String("mcp_bridge.foreign_trace_id", foreign))
	}
	opts := []trace.SpanStartOption{trace.WithSpanKind(kind), trace.WithAttributes(attrs...)}
	if !at.IsZero() {
		opts = append(opts, trace.WithTimestamp(at))
	}
	_, s := t.t.Start(ctx, name, opts...)
	var parentSpan string
	if p := trace.SpanContextFromContext(ctx); p.IsValid() {
		parentSpan = p.SpanID().String()
	}
	return s, traceOf(s, parentSpan)
}

// keep returns the trace a message carries on: the span's, or the one it
// had when the span is not recorded (sampled out).
func keep(span, had canonical.Trace) canonical.Trace {
	if span.TraceID == "" {
		return had
	}
	return span
}

// ended returns the function that ends s with the outcome of an error.
func ended(s trace.Span) func(e *canonical.Error) {
	return func(e *canonical.Error) {
		if e != nil {
			s.SetStatus(codes.Error, e.Error())
			s.SetAttributes(attribute.String("mcp_bridge.error_code", string(e.Code)))
		}
		s.End()
	}
}

// Received is the span of a message read from a
// connection, from start, child of the trace the message carries.
func (t *Tracer) Received(env *canonical.Envelope, dialect, transport string, start time.Time) (canonical.Trace, func(*canonical.Error)) {
	s, tr := t.start(env.Trace, "receive "+string(env.Act), trace.SpanKindServer, start,
		attribute.String("mcp_bridge.dialect", dialect), attribute.String("mcp_bridge.transport", transport),
		attribute.String("mcp_bridge.act", string(env.Act)), attribute.String("mcp_bridge.sender", env.Sender.ID),
		attribute.String("mcp_bridge.receiver", env.Receiver.ID), attribute.String("mcp_bridge.message_id", env.ID))
	return keep(tr, env.Trace), ended(s)
}

// Request is the span of a request delivered to the
// agent to, until its answer.
func (t *Tracer) Request(parent canonical.Trace, env *canonical.Envelope, to string) (canonical.Trace, func(*canonical.Error)) {
	op := env.Operation.Name
	if env.Operation.Capability != "" {
		op = env.Operation.Capability + "/" + op
	}
	s, tr := t.start(parent, "request "+op, trace.SpanKindInternal, time.Time{},
		attribute.String("mcp_bridge.operation", op), attribute.String("mcp_bridge.sender", env.Sender.ID),
		attribute.String("mcp_bridge.receiver", to))
	return keep(tr, parent), ended(s)
}

// Deliver is the span of a message's delivery to
// the agent to, until its connection took it.
func (t *Tracer) Deliver(parent canonical.Trace, env *canonical.Envelope, to, dialect string) (canonical.Trace, func(error)) {
	s, tr := t.start(parent, "deliver "+string(env.Act), trace.SpanKindProducer, time.Time{},
		attribute.String("mcp_bridge.dialect", dialect), attribute.String("mcp_bridge.act", string(env.Act)),
		attribute.String("mcp_bridge.sender", env.Sender.ID), attribute.String("mcp_bridge.receiver", to))
	return keep(tr, parent), func(err error) {
		if err != nil {
			s.SetStatus(codes.Error, err.Error())
		}
		s.End()
	}
}

// Translated records the span of a message's
// translation from one dialect into another, from start until now.
func (t *Tracer) Translated(parent canonical.Trace, from, to string, start time.Time, err error) {
	if from == "" {
		from = "bridge" // a message the bridge wrote itself
	}
	s, _ := t.start(parent, "translate "+from+" -> "+to, trace.SpanKindInternal, start,
		attribute.String("mcp_bridge.from", from), attribute.String("mcp_bridge.to", to))
	if err != nil {
		s.SetStatus(codes.Error, err.Error())
	}
	s.End()
}

// Wants asks the bridge for the span slots of its events.
func (t *Tracer) Wants() event.Want { return event.Spans }

// Handle makes the bridge's spans from its events: the receipt of each
// frame read from a connection, each request until its answer, each
// delivery until the connection took the message, each translation.
// Each span's trace is written into the event's Trace slot, so that the
// message carries it on and its receiver can continue the trace.
func (t *Tracer) Handle(e event.Event) {
	sp := e.Span
	if sp == nil || sp.Trace == nil {
		return
	}
	switch e.Kind {
	case event.Received:
		if sp.End != nil {
			*sp.Trace, *sp.End = t.Received(e.Env, e.Dialect, e.Transport, e.When())
		}
	case event.Requested:
		if sp.End != nil {
			*sp.Trace, *sp.End = t.Request(*sp.Trace, e.Env, e.To)
		}
	case event.Delivering:
		if sp.EndDelivery != nil {
			to := e.Agent
			if to == "" {
				to = "anonymous"
			}
			*sp.Trace, *sp.EndDelivery = t.Deliver(*sp.Trace, e.Env, to, e.Dialect)
		}
	case event.Translated:
		t.Translated(*sp.Trace, e.From, e.Dialect, time.Now().Add(-e.Duration), nil)
	case event.Failed:
		t.Translated(*sp.Trace, e.From, e.Dialect, time.Now().Add(-e.Duration), e.Reason)
	}
}

// Kinds picks the events spans are made of.
func (t *Tracer) Kinds() event.Kinds {
	return event.KindsOf(event.Received, event.Requested, event.Delivering, event.Translated, event.Failed)
}
