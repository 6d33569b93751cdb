package httpapi

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestTraceparent(t *testing.T) {
	const tid = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, tc := range []struct {
		h  string
		ok bool
	}{
		{"00-" + tid + "-00f067aa0ba902b7-01", true},
		{"01-" + tid + "-00f067aa0ba902b7-01-future", true},
		{"00-" + tid + "-00f067aa0ba902b7-01-extra", false},
		{"ff-" + tid + "-00f067aa0ba902b7-01", false},
		{"00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01", false},
		{"00-" + tid + "-0000000000000000-01", false},
		{"00-" + strings.ToUpper(tid) + "-00f067aa0ba902b7-01", false},
		{"garbage", false},
	} {
		tr, ok := ParseTraceparent(tc.h)
		if ok != tc.ok || (ok && (tr.TraceID != tid || tr.ParentSpanID != "00f067aa0ba902b7")) {
			t.Errorf("%q: %+v %v", tc.h, tr, ok)
		}
	}
	out := Traceparent(canonical.Trace{TraceID: tid})
	back, ok := ParseTraceparent(out)
	if !ok || back.TraceID != tid {
		t.Errorf("Traceparent wrote %q", out)
	}
	if Traceparent(canonical.Trace{TraceID: "not-w3c"}) != "" {
		t.Error("a non-W3C trace id became a traceparent")
	}
}
