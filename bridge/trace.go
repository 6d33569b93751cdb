package bridge

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// traceParent gives env, read from the session, the trace of its
// request when it is an answer (or progress) that carries none: the span
// of its receipt is then a child of its request's.
func (s *Session) traceParent(env *canonical.Envelope) {
	if env.Trace.TraceID != "" || !(env.Act.IsReply() || env.Act == canonical.ActNeedsInput || env.Act == canonical.ActEvent) {
		return
	}
	if a := s.Bound(); a != nil {
		if p := s.b.pending.Match(a, env, false); p != nil {
			env.Trace = p.Trace
		}
	}
}
