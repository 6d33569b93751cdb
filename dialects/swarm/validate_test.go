package swarm

import (
	"testing"

	"github.com/tidwall/gjson"
)

// membersCases are messages whose members membersOf reads: in every order,
// repeated, missing, escaped, of other types.
var membersCases = []string{
	`{"message_type":"response","sender_id":"a","receiver_id":"b","correlation_id":"c","payload":{"result":1}}`,
	`{"payload":{"timeout":5},"message_type":"request","receiver_id":"b"}`,
	`{"message_type":"request","receiver_id":"b","correlation_id":"c","payload":{"timeout":0.5}}`,
	`{"message_type":"request","receiver_id":"b","correlation_id":"c"}`,
	`{"message_type":"notification","payload":{"timeout":5}}`,
	`{"message_type":"response","receiver_id":null,"correlation_id":"","message_type":"request","receiver_id":"x","correlation_id":"y","payload":{"timeout":1},"payload":2}`,
	`{"message_\u0074ype":"request","receiver_id":"b","payload":{"timeout":99999}}`,
	`{"message_type":7,"receiver_id":{"id":1},"correlation_id":[1],"payload":"p"}`,
	`{"message_type":"request","receiver_id":"b","payload":[{"timeout":1}]}`,
	`{}`,
}

// TestMembersOf: membersOf finds what root.Get finds, the first member of
// each name, wherever it stops.
func TestMembersOf(t *testing.T) {
	for _, msg := range membersCases {
		root := gjson.Parse(msg)
		m := membersOf(nil, root)
		for _, f := range []struct {
			path      string
			got, want gjson.Result
		}{
			{"message_type", m.messageType, root.Get("message_type")},
			{"receiver_id", m.receiver, root.Get("receiver_id")},
			{"correlation_id", m.correlation, root.Get("correlation_id")},
		} {
			if f.got.Raw != f.want.Raw || f.got.Type != f.want.Type {
				t.Errorf("%s: %s is %q, root.Get finds %q", msg, f.path, f.got.Raw, f.want.Raw)
			}
		}
		if m.messageType.Str == typeRequest {
			if got, want := m.payload.Get("timeout"), root.Get("payload.timeout"); got.Raw != want.Raw {
				t.Errorf("%s: payload.timeout is %q, root.Get finds %q", msg, got.Raw, want.Raw)
			}
		}
	}
}

// FuzzMembersOf holds membersOf to root.Get on any JSON object.
func FuzzMembersOf(f *testing.F) {
	for _, msg := range membersCases {
		f.Add(msg)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		root := gjson.Parse(msg)
		if !root.IsObject() || !gjson.Valid(msg) {
			return
		}
		m := membersOf(nil, root)
		if got, want := m.messageType, root.Get("message_type"); got.Raw != want.Raw {
			t.Fatalf("%s: message_type %q, root.Get %q", msg, got.Raw, want.Raw)
		}
		if got, want := m.receiver, root.Get("receiver_id"); got.Raw != want.Raw {
			t.Fatalf("%s: receiver_id %q, root.Get %q", msg, got.Raw, want.Raw)
		}
		if got, want := m.correlation, root.Get("correlation_id"); got.Raw != want.Raw {
			t.Fatalf("%s: correlation_id %q, root.Get %q", msg, got.Raw, want.Raw)
		}
		if m.messageType.Str == typeRequest {
			if got, want := m.payload.Get("timeout"), root.Get("payload.timeout"); got.Raw != want.Raw {
				t.Fatalf("%s: payload.timeout %q, root.Get %q", msg, got.Raw, want.Raw)
			}
		}
	})
}

// BenchmarkMembersOf times membersOf against a root.Get for each member,
// on a response as agents write them.
func BenchmarkMembersOf(b *testing.B) {
	root := gjson.Parse(`{"message_id":"r-bench-12","message_type":"response","sender_id":"swarm-agent","receiver_id":"collab-req","timestamp":"2026-11-21T10:00:00Z","correlation_id":"tok-abcdef0123","payload":{"success":true,"result":{"report_url":"https://example.com/r/1","pages":3},"execution_time":0.01,"error":null}}`)
	b.Run("get", func(b *testing.B) {
		for b.Loop() {
			_ = root.Get("message_type")
			_ = root.Get("receiver_id")
			_ = root.Get("correlation_id")
		}
	})
	b.Run("membersOf", func(b *testing.B) {
		for b.Loop() {
			_ = membersOf(nil, root)
		}
	})
}
