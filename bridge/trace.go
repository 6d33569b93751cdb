package bridge

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/route"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Tracer follows messages through the bridge as trace spans (package
// tracing implements it on OpenTelemetry; route.Tracer says how).
type Tracer = route.Tracer

// traceReceived starts the span of env, read from the session at start: its parent
// is the trace env carries, or, for an answer that carries none, its
// request's. The span's trace replaces env's.
func (s *Session) traceReceived(t Tracer, env *canonical.Envelope, dialect string, start time.Time) func(*canonical.Error) {
	b := s.b
	if env.Trace.TraceID == "" && (env.Act.IsReply() || env.Act == canonical.ActNeedsInput || env.Act == canonical.ActEvent) {
		if a := s.Bound(); a != nil {
			if p := b.pending.Match(a, env, false); p != nil {
				env.Trace = p.Trace
			}
		}
	}
	var end func(*canonical.Error)
	env.Trace, end = t.Received(env, dialect, s.link.Transport(), start)
	return end
}
