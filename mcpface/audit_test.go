package mcpface

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
)

// TestAuditLine: the audit line of a tools/call (here of a client with no
// scope: stdio) has the same fields
// whether serve's handler (logjson, which takes the line's parts) or
// another slog handler writes it, and none below the logger's level.
func TestAuditLine(t *testing.T) {
	for _, tc := range []struct {
		name, tool, agent, outcome string
		d                          time.Duration
		want                       map[string]any
	}{
		{"success", "calc__add", "calc", outcomeSuccess, 1234567 * time.Nanosecond,
			map[string]any{"level": "INFO", "msg": "mcp: tools/call", "subject": "stdio", "client": "", "tool": "calc__add", "agent": "calc", "outcome": "success", "latency_ms": 1.234}},
		{"unknown tool", "nope", "", outcomeUnknown, 0,
			map[string]any{"level": "INFO", "msg": "mcp: tools/call", "subject": "stdio", "client": "", "tool": "nope", "agent": "", "outcome": "unknown_tool", "latency_ms": 0.0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, h := range []struct {
				name string
				make func(*bytes.Buffer) slog.Handler
			}{
				{"logjson", func(b *bytes.Buffer) slog.Handler { return logjson.New(b, nil) }},
				{"slog", func(b *bytes.Buffer) slog.Handler { return slog.NewJSONHandler(b, nil) }},
			} {
				var buf bytes.Buffer
				f := &Face{log: slog.New(h.make(&buf))}
				f.audit(context.Background(), tc.tool, tc.agent, tc.outcome, tc.d)
				var got map[string]any
				if err := json.Unmarshal(buf.Bytes(), &got); err != nil {
					t.Fatalf("%s: %v: %q", h.name, err, buf.String())
				}
				if _, ok := got["time"].(string); !ok {
					t.Errorf("%s: no time in %v", h.name, got)
				}
				delete(got, "time")
				if !reflect.DeepEqual(got, tc.want) {
					t.Errorf("%s: got %v, want %v", h.name, got, tc.want)
				}
				buf.Reset()
				f = &Face{log: slog.New(logjson.New(&buf, &slog.HandlerOptions{Level: slog.LevelWarn}))}
				f.audit(context.Background(), tc.tool, tc.agent, tc.outcome, tc.d)
				if buf.Len() != 0 {
					t.Errorf("%s: a line below the level: %s", h.name, buf.String())
				}
			}
		})
	}
}

// BenchmarkAudit is the audit line of one tools/call through serve's
// handler (logjson) into io.Discard.
func BenchmarkAudit(b *testing.B) {
	f := &Face{log: slog.New(logjson.New(io.Discard, nil))}
	ctx := context.Background()
	for b.Loop() {
		f.audit(ctx, "adder__add", "adder", outcomeSuccess, 287*time.Microsecond)
	}
}
