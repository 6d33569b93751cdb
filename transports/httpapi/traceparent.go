package httpapi

import (
	"crypto/rand"
	"encoding/hex"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// ParseTraceparent reads a W3C traceparent header
// (version-traceid-parentid-flags); ok is false for anything malformed.
// The header's span is the parent of what the request starts.
func ParseTraceparent(h string) (canonical.Trace, bool) {
	traceID, parent, _, ok := canonical.ParseTraceparent(h)
	if !ok {
		return canonical.Trace{}, false
	}
	return canonical.Trace{TraceID: traceID, ParentSpanID: parent}, true
}

// Traceparent writes a traceparent header for t: its span (the bridge's
// delivery span when tracing is on) as the parent, or a new span of t's
// trace when t names none. It is empty when t's trace id is not a W3C one
// (32 lower-case hex digits).
func Traceparent(t canonical.Trace) string {
	if !canonical.IsTraceID(t.TraceID) {
		return ""
	}
	span := t.Span()
	if span == "" {
		var b [8]byte
		_, _ = rand.Read(b[:])
		span = hex.EncodeToString(b[:])
	}
	return canonical.FormatTraceparent(t.TraceID, span, "")
}
