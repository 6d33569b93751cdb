package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// ParseTraceparent reads a W3C traceparent header
// (version-traceid-parentid-flags); ok is false for anything malformed.
func ParseTraceparent(h string) (canonical.Trace, bool) {
	parts := strings.Split(strings.TrimSpace(h), "-")
	if len(parts) < 4 || len(parts[0]) != 2 || parts[0] == "ff" || !isHex(parts[1], 32) || !isHex(parts[2], 16) || !isHex(parts[3], 2) {
		return canonical.Trace{}, false
	}
	if parts[0] == "00" && len(parts) != 4 {
		return canonical.Trace{}, false
	}
	if parts[1] == strings.Repeat("0", 32) || parts[2] == strings.Repeat("0", 16) {
		return canonical.Trace{}, false
	}
	return canonical.Trace{TraceID: parts[1], ParentSpanID: parts[2]}, true
}

// Traceparent writes a traceparent header for t: a new span of t's trace,
// child of t's span. It is empty when t's trace id is not a W3C one (32
// lower-case hex digits).
func Traceparent(t canonical.Trace) string {
	if !isHex(t.TraceID, 32) {
		return ""
	}
	var span [8]byte
	_, _ = rand.Read(span[:])
	return "00-" + t.TraceID + "-" + hex.EncodeToString(span[:]) + "-01"
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
