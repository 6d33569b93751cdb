package route

import (
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// Tracer follows messages through the bridge as trace spans (package
// tracing implements it on OpenTelemetry). Spans are named by their
// canonical traces: each method takes the trace of the parent span and
// returns that of the span it starts, which the message carries from then
// on, so that what it causes is its child and its receiver can continue
// the trace. Without one (Options.Tracer nil) the bridge makes no spans,
// at the cost of a nil test.
type Tracer interface {
	// Received starts the span of a message read from a connection at
	// start, child of env.Trace; end closes it with the refusal the
	// message got, if any.
	Received(env *canonical.Envelope, dialect, transport string, start time.Time) (span canonical.Trace, end func(e *canonical.Error))
	// Request starts the span of a request delivered to the agent to,
	// child of parent, which end closes with its answer's error, if any.
	Request(parent canonical.Trace, env *canonical.Envelope, to string) (span canonical.Trace, end func(e *canonical.Error))
	// Deliver starts the span of env's delivery to the agent to (in
	// dialect), child of parent, which end closes once the connection took
	// it or the delivery failed.
	Deliver(parent canonical.Trace, env *canonical.Envelope, to, dialect string) (span canonical.Trace, end func(err error))
	// Translated records the translation of a message from one dialect
	// into another, from start until now, child of parent.
	Translated(parent canonical.Trace, from, to string, start time.Time, err error)
}
