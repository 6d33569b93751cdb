package msglog_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/msglog"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
)

// BenchmarkHandle logs a message received and the same message sent, as
// the bridge does for every message it carries, to serve's handler.
func BenchmarkHandle(b *testing.B) {
	l := msglog.New(slog.New(logjson.New(io.Discard, nil)), &redact.Redactor{})
	env := &canonical.Envelope{Act: canonical.ActRequest, ID: "bench-12345", CorrelationID: "corr-1b9e",
		Sender: canonical.Party{ID: "collab-req"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "swarm-agent"},
		Operation: canonical.Operation{Name: "build_report"}, Trace: canonical.Trace{TraceID: "4bf92f3577b34da6a3ce929d0e0e4736"}}
	frame := make([]byte, 812)
	received := event.Event{Kind: event.Received, Time: time.Now(), Env: env, Frame: frame, Size: len(frame),
		Agent: "collab-req", Dialect: "collab", Transport: "websocket"}
	sent := event.Event{Kind: event.Delivered, Seq: 1, Note: event.NoteOf(env), Frame: frame,
		Agent: "swarm-agent", Dialect: "swarm", Transport: "websocket"}
	b.ReportAllocs()
	for b.Loop() {
		received.Time = time.Now() // as the bridge stamps each frame's arrival
		l.Handle(received)
		l.Handle(sent)
	}
}
