package canonical

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// W3C trace context (https://www.w3.org/TR/trace-context/): the
// traceparent header, version-traceid-parentid-flags, which HTTP carries
// and dialects with metadata carry as metadata.traceparent.

// ParseTraceparent reads a traceparent: its trace id, the span id of its
// parent, and its flags; ok is false for anything malformed.
func ParseTraceparent(h string) (traceID, parentID, flags string, ok bool) {
	parts := strings.Split(strings.TrimSpace(h), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || !isHex(parts[0], 2) ||
		!IsTraceID(parts[1]) || !IsSpanID(parts[2]) || !isHex(parts[3], 2) {
		return "", "", "", false
	}
	if parts[0] == "00" && len(parts) != 4 {
		return "", "", "", false
	}
	return parts[1], parts[2], parts[3], true
}

// FormatTraceparent writes a version 00 traceparent; flags "" is "01"
// (sampled).
func FormatTraceparent(traceID, spanID, flags string) string {
	if flags == "" {
		flags = "01"
	}
	return "00-" + traceID + "-" + spanID + "-" + flags
}

// TraceparentFor returns the traceparent that carries t where old was
// written ("" for none): old itself while it names t's trace and span, else
// one written anew with old's flags. It is "" when t has no W3C span.
func (t Trace) TraceparentFor(old string) string {
	span := t.Span()
	if span == "" {
		return ""
	}
	id, parent, flags, ok := ParseTraceparent(old)
	if ok && id == t.TraceID && parent == span {
		return old
	}
	return FormatTraceparent(t.TraceID, span, flags)
}

// IsTraceID reports whether s is a W3C trace id: 32 lower-case hex digits,
// not all zero.
func IsTraceID(s string) bool { return isHex(s, 32) && s != strings.Repeat("0", 32) }

// IsSpanID reports whether s is a W3C span id: 16 lower-case hex digits,
// not all zero.
func IsSpanID(s string) bool { return isHex(s, 16) && s != strings.Repeat("0", 16) }

// Span returns the span a traceparent written for t names as the parent
// of what follows: t's span, else t's parent span; "" when t has no W3C
// trace id or neither is a W3C span id.
func (t Trace) Span() string {
	switch {
	case !IsTraceID(t.TraceID):
		return ""
	case IsSpanID(t.SpanID):
		return t.SpanID
	case IsSpanID(t.ParentSpanID):
		return t.ParentSpanID
	}
	return ""
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NewSpanID returns a random W3C span id (16 lower-case hex digits, not all
// zero), for a message that starts a span of its own. It is unique, not
// secret.
func NewSpanID() string {
	n := rand.Uint64() | 1<<60 // 16 digits, never all zero
	return strconv.FormatUint(n, 16)
}
