package msglog_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/bridge/bridgetest"
	"github.com/mcp-bridge/mcp-bridge/bridge/event"
	"github.com/mcp-bridge/mcp-bridge/bridge/msglog"
	"github.com/mcp-bridge/mcp-bridge/bridge/redact"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/internal/logjson"
)

// lines decodes the JSON log lines in buf.
func lines(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		out = append(out, m)
	}
	return out
}

// find returns the first line whose msg is msg.
func find(t *testing.T, ls []map[string]any, msg string) map[string]any {
	t.Helper()
	return findID(t, ls, msg, "")
}

// findID returns the first line whose msg is msg about the message id
// ("": any).
func findID(t *testing.T, ls []map[string]any, msg, id string) map[string]any {
	t.Helper()
	for _, l := range ls {
		if l["msg"] == msg && (id == "" || l["id"] == id) {
			return l
		}
	}
	t.Fatalf("no %q line of %q among %v", msg, id, ls)
	return nil
}

// TestMessageLog: a message received and sent is logged once each way,
// with its connection's dialect and transport, its ids and its size; at
// debug level the message itself is logged with its secrets redacted,
// and a refusal is a warning naming the problem.
func TestMessageLog(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		t.Run(level.String(), func(t *testing.T) {
			var buf bytes.Buffer
			b, _ := bridgetest.New(t, bridge.Options{Logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level}))})
			keeper := bridgetest.Attach(t, b, "collab", "keeper", nil)
			sender := bridgetest.Attach(t, b, "swarm", "asker", nil)
			frame := `{"message_id":"m-1","message_type":"notification","sender_id":"asker","receiver_id":"keeper","timestamp":"2026-01-10T14:30:00Z","payload":{"event_type":"login","data":{"token":"s3cret"}}}`
			if r := sender.Session.Receive([]byte(frame)); r.Err != nil {
				t.Fatal(r.Err)
			}
			<-keeper.Got
			sender.Session.Receive([]byte(`{"message_id":"m-2","message_type":"request","sender_id":"asker","receiver_id":"nobody","timestamp":"2026-01-10T14:30:00Z","payload":{"tool_name":"x","arguments":{}}}`))
			b.Shutdown(t.Context())
			ls := lines(t, &buf)

			in := find(t, ls, "received")
			for k, v := range map[string]any{"dialect": "swarm", "transport": "test", "sender": "asker", "act": string(canonical.ActEvent), "id": "m-1", "bytes": float64(len(frame))} {
				if in[k] != v {
					t.Errorf("received line: %s = %v, want %v (%v)", k, in[k], v, in)
				}
			}
			// The agent may have the frame before its "sent" line is
			// written, and the shutdown notice's line may come first.
			out := findID(t, ls, "sent", "m-1")
			for k, v := range map[string]any{"dialect": "collab", "receiver": "keeper", "sender": "asker", "id": "m-1"} {
				if out[k] != v {
					t.Errorf("sent line: %s = %v, want %v (%v)", k, out[k], v, out)
				}
			}
			msg, shown := in["message"].(string)
			if shown != (level == slog.LevelDebug) {
				t.Errorf("at %s the message is shown: %v", level, shown)
			}
			if strings.Contains(msg, "s3cret") || shown && !strings.Contains(msg, "[REDACTED]") {
				t.Errorf("the message logged shows its token: %s", msg)
			}
			refused := find(t, ls, "refused")
			if refused["level"] != "WARN" || refused["code"] != string(canonical.ErrNotFound) || refused["in_reply_to"] != "m-2" ||
				!strings.Contains(refused["problem"].(string), "nobody") {
				t.Errorf("refused line: %v", refused)
			}
			if l := find(t, ls, "agent status"); l["agent"] == "" || l["status"] == "" {
				t.Errorf("status line: %v", l)
			}
		})
	}
}

// TestLinesAsLibrary: the lines of messages received and sent, which serve's
// handler writes member by member, are the bytes the library's JSON handler
// writes for them, whatever their strings hold; at debug level too.
func TestLinesAsLibrary(t *testing.T) {
	at := time.Date(2026, 11, 29, 1, 2, 3, 456000000, time.UTC)
	odd := []string{"", "plain", `quote " and \ back`, "line\u2028separator", "bad \xff utf-8", "tab\tand\nnewline", "ünïcode"}
	var events []event.Event
	for i, s := range odd {
		env := &canonical.Envelope{Act: canonical.ActRequest, ID: s, CorrelationID: odd[(i+1)%len(odd)], TaskID: odd[(i+2)%len(odd)],
			Sender: canonical.Party{ID: s + "-sender"}, Operation: canonical.Operation{Name: odd[(i+3)%len(odd)]}}
		frame := []byte(`{"id":"` + strconv.Itoa(i) + `"}`)
		events = append(events,
			event.Event{Kind: event.Received, Time: at, Env: env, Frame: frame, Size: len(frame), Agent: s, Dialect: "collab" + s, Transport: "websocket"},
			event.Event{Kind: event.Delivered, Time: at, Note: event.NoteOf(env), Frame: frame, Agent: s, Dialect: "swarm", Transport: s})
	}
	for _, level := range []slog.Level{slog.LevelInfo, slog.LevelDebug} {
		var fast, lib bytes.Buffer
		opts := &slog.HandlerOptions{Level: level}
		fl := msglog.New(slog.New(logjson.New(&fast, opts)), &redact.Redactor{})
		ll := msglog.New(slog.New(slog.NewJSONHandler(&lib, opts)), &redact.Redactor{})
		for i, e := range events {
			fast.Reset()
			lib.Reset()
			fl.Handle(e)
			ll.Handle(e)
			if fast.Len() == 0 || !bytes.Equal(fast.Bytes(), lib.Bytes()) {
				t.Errorf("%s, event %d: lines differ:\n fast    %q\n library %q", level, i, fast.Bytes(), lib.Bytes())
			}
		}
	}
}
