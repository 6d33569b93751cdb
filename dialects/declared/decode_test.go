package declared_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestDecodeValues checks the canonical values each sample decodes to.
func TestDecodeValues(t *testing.T) {
	c := codec(t)
	tests := []struct {
		sample string
		check  func(t *testing.T, env *canonical.Envelope)
	}{
		{"call", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActRequest)
			want(t, "id", env.ID, "h-1001")
			want(t, "sender", env.Sender, canonical.Party{ID: "ci-bot", Name: "CI Bot"})
			want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressAgent, ID: "Jules"})
			want(t, "correlation", env.CorrelationID, "build-4711")
			want(t, "task", env.TaskID, "task-debug-17")
			want(t, "time", env.Time, canonical.Timestamp("2026-01-10T14:30:00Z"))
			want(t, "priority", env.Priority, canonical.PriorityHigh)
			want(t, "ttl", env.TTL, canonical.Dur(30*time.Second))
			want(t, "trace", env.Trace.TraceID, "4bf92f3577b34da6a3ce929d0e0e4736")
			want(t, "operation", env.Operation, canonical.Operation{Name: "debug_code"})
			want(t, "description", strings.HasPrefix(env.Description, "The nightly build"), true)
			want(t, "arguments", dialects.IsObject(env.Arguments), true)
			want(t, "context", env.Context, canonical.JSON(`{"pipeline": "nightly", "attempt": 2}`))
			want(t, "error", env.Error == nil, true)
			want(t, "extra", len(env.Extra), 0)
		}},
		{"reply_ok", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActResult)
			want(t, "in_reply_to", env.InReplyTo, "h-1001")
			want(t, "outcome", env.Outcome, canonical.OutcomeSuccess)
			want(t, "result", dialects.IsObject(env.Result), true)
		}},
		{"reply_partial", func(t *testing.T, env *canonical.Envelope) {
			want(t, "outcome", env.Outcome, canonical.OutcomePartial)
			want(t, "time", env.Time, canonical.Timestamp("2026-01-10T14:32:00+01:00"))
			want(t, "metadata", env.Metadata, canonical.JSON(`{"duration_ms": 5123, "host": "idx-2"}`))
		}},
		{"reply_failed", func(t *testing.T, env *canonical.Envelope) {
			want(t, "outcome", env.Outcome, canonical.OutcomeFailure)
			want(t, "result", env.Result, canonical.JSON(""))
			want(t, "error", *env.Error, canonical.Error{Message: "rollout paused: 2 of 5 pods crash-looping"})
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Key: "result", Value: "null"}})
		}},
		{"error", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActFailure)
			want(t, "code", env.Error.Code, canonical.ErrTimeout)
			want(t, "message", env.Error.Message, "the test suite did not finish within 30 s")
			want(t, "details", env.Error.Details, canonical.JSON(`{"elapsed_ms": 30000, "last_test": "TestParseNested"}`))
			want(t, "word", env.Origin.Words.Get(canonical.KindError), "timeout")
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Parent: "error", Key: "retry_hint", Value: `"raise ttl_ms"`}})
		}},
		{"error_unknown_code", func(t *testing.T, env *canonical.Envelope) {
			want(t, "code", env.Error.Code, canonical.ErrorCode(""))
			want(t, "word", env.Origin.Words.Get(canonical.KindError), "quota_exceeded")
			want(t, "has code", env.Has(canonical.CErrorCode), true)
			want(t, "details", env.Error.Details, canonical.JSON(`["minutes", 6000]`))
		}},
		{"reject", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActRefuse)
			want(t, "code", env.Error.Code, canonical.ErrUnauthorized)
			want(t, "in_reply_to", env.InReplyTo, "h-0999")
		}},
		{"notify_broadcast", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActEvent)
			want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressBroadcast})
			want(t, "priority", env.Priority, canonical.PriorityLow)
			want(t, "operation", env.Operation.Name, "maintenance_window")
		}},
		{"notify_topic", func(t *testing.T, env *canonical.Envelope) {
			want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressTopic, ID: "builds"})
			want(t, "priority", env.Priority, canonical.PriorityCritical)
			want(t, "ttl", env.TTL, canonical.Dur(1500500*time.Microsecond))
		}},
		{"extra_members", func(t *testing.T, env *canonical.Envelope) {
			want(t, "time", env.Time, canonical.Timestamp("YYYY-MM-DDTHH:MM:SSZ"))
			want(t, "arguments", env.Arguments, canonical.JSON(`"INC-2231"`))
			want(t, "description", env.Description, "")
			want(t, "extra", env.Extra, []canonical.Field{
				{Dialect: "hook", Key: "signature", Value: `"sha256=4f1c2a"`},
				{Dialect: "hook", Key: "retries", Value: "0"},
				{Dialect: "hook", Key: "labels", Value: `{"team": "sre"}`},
				{Dialect: "hook", Key: "text", Value: `""`},
			})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			env := dialecttest.MustDecode(t, c, dialecttest.ReadSample(t, tt.sample))
			want(t, "origin", env.Origin.Dialect, "hook")
			tt.check(t, env)
		})
	}
}

// TestDecodeShapes checks members that carry no value and objects along
// declared paths.
func TestDecodeShapes(t *testing.T) {
	c := codec(t)
	tests := []struct {
		name, msg string
		check     func(t *testing.T, env *canonical.Envelope)
	}{
		{"null and empty are kept", `{"hook":"1","event":"call","id":"","to":null,"urgency":"","data":null}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "present", env.Present(), []canonical.Concept{canonical.CAct, canonical.CExtra})
			want(t, "extra", len(env.Extra), 4)
		}},
		{"empty error object is kept", `{"hook":"1","event":"error","error":{}}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "error", env.Error == nil, true)
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Key: "error", Value: "{}"}})
		}},
		{"error object of extras only", `{"hook":"1","event":"error","error":{"trace":"x","code":""}}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "error", env.Error == nil, true)
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Parent: "error", Key: "trace", Value: `"x"`}, {Dialect: "hook", Parent: "error", Key: "code", Value: `""`}})
		}},
		{"mark of another value", `{"hook":"2","event":"call"}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "form", env.Origin.Form, "hook")
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Key: "hook", Value: `"2"`}})
		}},
		{"no mark", `{"event":"call"}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "form", env.Origin.Form, "hook")
		}},
		{"dotted key is not a path", `{"hook":"1","event":"call","error.code":"timeout"}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "error", env.Error == nil, true)
			want(t, "extra", env.Extra, []canonical.Field{{Dialect: "hook", Key: "error.code", Value: `"timeout"`}})
		}},
		{"escaped key", `{"hook":"1","\u0065vent":"notify","to":"topic:"}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActEvent)
			want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressTopic})
		}},
		{"ttl zero and fractions", `{"hook":"1","event":"call","ttl_ms":0.000001}`, func(t *testing.T, env *canonical.Envelope) {
			want(t, "ttl", env.TTL, canonical.Dur(time.Nanosecond))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := dialecttest.MustDecode(t, c, []byte(tt.msg))
			tt.check(t, env)
			out, err := c.Encode(nil, env, dialecttest.EncodeContext())
			if err != nil {
				t.Fatal(err)
			}
			if !dialecttest.JSONEqual(out, []byte(tt.msg)) {
				t.Errorf("round trip changed the message:\n got %s\nwant %s", out, tt.msg)
			}
		})
	}
}

// TestDecodeErrors checks the texts of decode errors: dialect, path,
// problem.
func TestDecodeErrors(t *testing.T) {
	c := codec(t)
	tests := []struct{ msg, path, err string }{
		{`{"hook":"1","event":"call","ttl_ms":"30"}`, "ttl_ms", `hook: ttl_ms: must be a number, got a string`},
		{`{"hook":"1","event":"call","ttl_ms":-1}`, "ttl_ms", `hook: ttl_ms: must be a number of milliseconds from 0 to 9223372036854, whole nanoseconds, got -1`},
		{`{"hook":"1","event":"call","ttl_ms":1e300}`, "ttl_ms", `hook: ttl_ms: must be a number of milliseconds from 0 to 9223372036854, whole nanoseconds, got 1e300`},
		{`{"hook":"1","event":"call","ttl_ms":0.0000001}`, "ttl_ms", `hook: ttl_ms: must be a number of milliseconds from 0 to 9223372036854, whole nanoseconds, got 0.0000001`},
		{`{"hook":"1","event":"shout"}`, "event", `hook: event: unknown act "shout" (want one of call, reply, error, reject, notify)`},
		{`{"hook":"1","event":""}`, "event", `hook: event: unknown act "" (want one of call, reply, error, reject, notify)`},
		{`{"hook":"1","event":null}`, "event", `hook: event: must be a string, got null`},
		{`{"hook":"1","event":7}`, "event", `hook: event: must be a string, got a number (7)`},
		{`{"hook":"1","id":"x"}`, "event", `hook: event: missing`},
		{`{"hook":"1","event":"call","urgency":"asap"}`, "urgency", `hook: urgency: unknown priority "asap" (want one of low, normal, high, urgent)`},
		{`{"hook":"1","event":"reply","status":"meh"}`, "status", `hook: status: unknown outcome "meh" (want one of ok, partial, failed)`},
		{`{"hook":"1","event":"call","from":["a"]}`, "from", `hook: from: must be a string, got an array`},
		{`{"hook":"1","event":"error","error":"boom"}`, "error", `hook: error: must be an object, got a string`},
		{`{"hook":"1","event":"error","error":{"code":404}}`, "error.code", `hook: error.code: must be a string, got a number (404)`},
		{`{"hook":"1","event":"error","error":{"message":false}}`, "error.message", `hook: error.message: must be a string, got a boolean`},
		{`{"hook":"1","event":"call"`, "", `hook: not valid JSON: unexpected end of JSON input at byte 26`},
		{`{"hook":"1","event"x}`, "", `hook: not valid JSON: invalid character 'x' after object key at byte 19`},
		{"{\"hook\":\"1\",\"data\":{\"a\":[\"ok\",\"b\xffd\"]}}", "data.a.1", `hook: data.a.1: not valid UTF-8: 0xff at byte 32`},
		{`[{"hook":"1"}]`, "", `hook: a message must be a JSON object, got an array`},
	}
	for _, tt := range tests {
		_, err := c.Decode([]byte(tt.msg))
		var de *dialects.Error
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v is not a *dialects.Error", tt.msg, err)
			continue
		}
		if de.Path != tt.path || err.Error() != tt.err {
			t.Errorf("%s:\n got %q (path %q)\nwant %q (path %q)", tt.msg, err, de.Path, tt.err, tt.path)
		}
	}
}

// want fails t when got is not w.
func want[T any](t *testing.T, what string, got, w T) {
	t.Helper()
	if !equal(got, w) {
		t.Errorf("%s = %#v, want %#v", what, got, w)
	}
}
