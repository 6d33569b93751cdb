package bluelabel_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/tidwall/gjson"
)

func sample(t *testing.T, name string) []byte { return dialecttest.ReadSample(t, name) }

func decode(t *testing.T, msg []byte) *canonical.Envelope {
	return dialecttest.MustDecode(t, codec(), msg)
}

func extra(env *canonical.Envelope, path string) (canonical.JSON, bool) {
	for _, f := range env.Extra {
		if f.Path() == path {
			return f.Value, true
		}
	}
	return "", false
}

func TestDecodeAssignment(t *testing.T) {
	env := decode(t, sample(t, "made_task_assignment"))
	want := map[string]any{
		"act":          canonical.ActRequest,
		"id":           "",
		"version":      "1.3",
		"form":         "",
		"sender":       "ARCH",
		"receiver":     canonical.Address{Kind: canonical.AddressAgent, ID: "CA"},
		"time":         canonical.Timestamp("2025-05-22T09:00:00Z"),
		"task":         "TASK-075A",
		"trace":        "assign-075a-001",
		"operation":    canonical.Operation{Name: "generate_report"},
		"description":  "Generate the weekly data quality report from the processed datasets",
		"priority":     canonical.PriorityHigh,
		"deadline":     canonical.Timestamp("2025-05-22T17:00:00Z"),
		"ttl":          canonical.Dur(30 * time.Minute),
		"priorityWord": "high",
	}
	got := map[string]any{
		"act":          env.Act,
		"id":           env.ID,
		"version":      env.Origin.Version,
		"form":         env.Origin.Form,
		"sender":       env.Sender.ID,
		"receiver":     env.Receiver,
		"time":         env.Time,
		"task":         env.TaskID,
		"trace":        env.Trace.TraceID,
		"operation":    env.Operation,
		"description":  env.Description,
		"priority":     env.Priority,
		"deadline":     env.Deadline,
		"ttl":          env.TTL,
		"priorityWord": env.Origin.Words.Get(canonical.KindPriority),
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s = %#v, want %#v", k, got[k], w)
		}
	}
	if !strings.Contains(string(env.Arguments), `"report_type": "data_quality"`) {
		t.Errorf("Arguments = %s", env.Arguments)
	}
	// metadata.context is the Context; the other members stay together.
	if md := gjson.Parse(string(env.Metadata)); md.Get("sprint").Str != "2025-21" || md.Get("context").Exists() {
		t.Errorf("Metadata = %s", env.Metadata)
	}
	if !strings.Contains(string(env.Context), `"pipeline_id": "pipe-075A"`) {
		t.Errorf("Context = %s", env.Context)
	}
	for _, p := range []string{"retry_count", "payload.content.requirements", "payload.content.input_files",
		"payload.content.output_files", "payload.content.dependencies", "payload.content.conditions"} {
		if _, ok := extra(env, p); !ok {
			t.Errorf("no Extra %s in %v", p, env.Extra)
		}
	}
	// content.task_id equals the envelope's: not kept twice.
	if _, ok := extra(env, "payload.content.task_id"); ok {
		t.Errorf("content.task_id kept as Extra though it matches task_id")
	}
}

func TestDecodeAssignmentTaskIDMismatch(t *testing.T) {
	msg := strings.Replace(string(sample(t, "made_task_assignment")), `"task_id": "TASK-075A",
      "description"`, `"task_id": "TASK-OTHER",
      "description"`, 1)
	env := decode(t, []byte(msg))
	if v, ok := extra(env, "payload.content.task_id"); !ok || v != `"TASK-OTHER"` {
		t.Fatalf("content.task_id Extra = %q, %v", v, ok)
	}
	p := codec().Validate([]byte(msg))
	if len(p) != 1 || p[0].Path != "payload.content.task_id" || !strings.Contains(p[0].Message, `must match the envelope task_id "TASK-075A"`) {
		t.Errorf("Validate = %v", p)
	}
}

func TestDecodeResults(t *testing.T) {
	tests := []struct {
		sample  string
		outcome canonical.Outcome
		form    string
		desc    string
		extras  []string
	}{
		{"realworld_task_result", canonical.OutcomeSuccess, "", "", []string{"retry_count", "payload.metrics"}},
		{"realworld_task_result_scored", canonical.OutcomeSuccess, "",
			"Task completed with high confidence. All validations passed.",
			[]string{"payload.success", "payload.score", "payload.duration_sec", "payload.metrics"}},
		{"made_task_result_partial", canonical.OutcomePartial, "", "", []string{"payload.metrics"}},
		{"made_task_result_failed_v13", canonical.OutcomeFailure, "",
			"All three test suites failed to start: missing fixture database.",
			[]string{"payload.success", "payload.score", "payload.duration_sec"}},
		{"made_task_result_nested_v13", canonical.OutcomeSuccess, "nested",
			"Report generated; two datasets had late-arriving records that were excluded.",
			[]string{"payload.payload.success", "payload.payload.score", "payload.payload.duration_sec", "payload.payload.metrics"}},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			env := decode(t, sample(t, tt.sample))
			if env.Act != canonical.ActResult || env.Outcome != tt.outcome || env.Origin.Form != tt.form || env.Description != tt.desc {
				t.Errorf("act %s outcome %s form %q description %q", env.Act, env.Outcome, env.Origin.Form, env.Description)
			}
			if !dialects.IsObject(env.Result) || !strings.Contains(string(env.Result), `"output"`) {
				t.Errorf("Result = %s", env.Result)
			}
			if env.ID != "" || env.InReplyTo != "" {
				t.Errorf("ID %q InReplyTo %q: bluelabel has no message ids", env.ID, env.InReplyTo)
			}
			for _, p := range tt.extras {
				if _, ok := extra(env, p); !ok {
					t.Errorf("no Extra %s in %v", p, env.Extra)
				}
			}
		})
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		sample    string
		act       canonical.Act
		code      canonical.ErrorCode
		retryable bool
	}{
		{"realworld_error", canonical.ActFailure, canonical.ErrUnavailable, true},
		{"made_error_rejected", canonical.ActRefuse, canonical.ErrRejected, false},
		{"made_error_validation", canonical.ActNotUnderstood, canonical.ErrInvalidMessage, true},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) {
			env := decode(t, sample(t, tt.sample))
			e := env.Error
			if env.Act != tt.act || e == nil || e.Code != tt.code || e.Retryable == nil || *e.Retryable != tt.retryable {
				t.Fatalf("act %s error %+v", env.Act, e)
			}
			if e.Message == "" || !dialects.IsObject(e.Details) || !dialects.IsArray(e.SuggestedActions) {
				t.Errorf("error %+v", e)
			}
		})
	}
	env := decode(t, sample(t, "realworld_error"))
	if v, ok := extra(env, "payload.documentation"); !ok || !strings.Contains(string(v), "docs.example.com") {
		t.Errorf("documentation Extra = %s, %v", v, ok)
	}
}

func TestDecodeUnknownErrorCode(t *testing.T) {
	msg := strings.Replace(string(sample(t, "realworld_error")), `"code": "RESOURCE_UNAVAILABLE"`, `"code": "QUOTA_EXCEEDED"`, 1)
	env := decode(t, []byte(msg))
	if env.Act != canonical.ActFailure || env.Error.Code != "" || env.Origin.Words.Get(canonical.KindError) != "QUOTA_EXCEEDED" {
		t.Fatalf("act %s code %q words %v", env.Act, env.Error.Code, env.Origin.Words)
	}
	ctx := &dialects.EncodeContext{}
	out, err := codec().Encode(nil, env, ctx)
	if err != nil || !strings.Contains(string(out), `"code":"QUOTA_EXCEEDED"`) || len(ctx.Losses) != 0 {
		t.Errorf("Encode = %s, %v, losses %v", out, err, ctx.Losses)
	}
}

func TestDecodeNeedsInput(t *testing.T) {
	for _, name := range []string{"realworld_needs_input", "made_needs_input_nested_v13"} {
		env := decode(t, sample(t, name))
		if env.Act != canonical.ActNeedsInput || !dialects.IsArray(env.Inputs) || env.Description == "" || !env.TTL.Set {
			t.Errorf("%s: act %s inputs %q description %q ttl %v", name, env.Act, env.Inputs, env.Description, env.TTL)
		}
	}
	env := decode(t, sample(t, "realworld_needs_input"))
	if env.TTL.D != 300*time.Second || env.Receiver.ID != "USER" {
		t.Errorf("ttl %v receiver %v", env.TTL, env.Receiver)
	}
	if _, ok := extra(env, "payload.actions"); !ok {
		t.Errorf("no Extra payload.actions")
	}
}

// TestDecodeEmptyStrings: an empty string means absent in the envelope, so
// it is kept as an Extra and the message still round-trips.
func TestDecodeEmptyStrings(t *testing.T) {
	msg := []byte(`{"type":"error","protocol_version":"1.0","sender_id":"CA","recipient_id":"ARCH","timestamp":"2025-05-21T20:05:30Z","task_id":"T-1","trace_id":"","payload":{"code":"","message":""}}`)
	env := decode(t, msg)
	if env.Error.Code != "" || env.Error.Message != "" || env.Trace.TraceID != "" {
		t.Errorf("error %+v trace %q", env.Error, env.Trace.TraceID)
	}
	for _, p := range []string{"trace_id", "payload.code", "payload.message"} {
		if _, ok := extra(env, p); !ok {
			t.Errorf("no Extra %s", p)
		}
	}
	ctx := &dialects.EncodeContext{}
	out, err := codec().Encode(nil, env, ctx)
	if err != nil || len(ctx.Losses) != 0 || !jsonEqual(out, msg) {
		t.Errorf("round trip: %s, %v, %v", out, err, ctx.Losses)
	}
}

func TestDecodeTimeouts(t *testing.T) {
	base := `{"type":"needs_input","payload":{"requested_inputs":[],"timeout_seconds":%s}}`
	tests := []struct {
		raw   string
		ttl   canonical.Duration
		extra bool
	}{
		{"30", canonical.Dur(30 * time.Second), false},
		{"1.5", canonical.Dur(1500 * time.Millisecond), false},
		{"0", canonical.Dur(0), false},
		{"1e300", canonical.Duration{}, true},
	}
	for _, tt := range tests {
		msg := []byte(strings.Replace(base, "%s", tt.raw, 1))
		env := decode(t, msg)
		_, isExtra := extra(env, "payload.timeout_seconds")
		if env.TTL != tt.ttl || isExtra != tt.extra {
			t.Errorf("%s: ttl %v extra %v", tt.raw, env.TTL, isExtra)
		}
		out, err := codec().Encode(nil, env, &dialects.EncodeContext{})
		if err != nil || !jsonEqual(out, msg) {
			t.Errorf("%s: round trip %s, %v", tt.raw, out, err)
		}
	}
}

func TestDecodeMetadataOutsideAssignment(t *testing.T) {
	msg := []byte(`{"type":"task_result","metadata":{"a":1},"payload":{"status":"success","result":{"output":"x"}}}`)
	env := decode(t, msg)
	if env.Metadata != "" {
		t.Errorf("Metadata = %s on a task_result", env.Metadata)
	}
	if _, ok := extra(env, "metadata"); !ok {
		t.Errorf("metadata not kept as Extra")
	}
}

// TestDecodeAssignmentContext: a task assignment's context is its
// metadata.context (its schema refuses a top-level one). A top-level
// context there is kept as written and refused by Validate, in plain words.
func TestDecodeAssignmentContext(t *testing.T) {
	const head = `{"type":"task_assignment","protocol_version":"1.0","sender_id":"ARCH","recipient_id":"CA","timestamp":"2025-05-22T09:00:00Z","task_id":"T-1","payload":{"type":"task_assignment","content":{"task_id":"T-1","description":"d","action":"a"}}`

	env := decode(t, []byte(head+`,"metadata":{"context":{"k":1}}}`))
	if env.Context != `{"k":1}` || env.Metadata != "" {
		t.Errorf("Context = %s, Metadata = %s", env.Context, env.Metadata)
	}

	top := []byte(head + `,"context":{"k":1}}`)
	env = decode(t, top)
	if env.Context != "" {
		t.Errorf("a top-level context became the Context: %s", env.Context)
	}
	if v, ok := extra(env, "context"); !ok || v != `{"k":1}` {
		t.Errorf("top-level context not kept as Extra: %v", env.Extra)
	}
	if out, err := codec().Encode(nil, env, &dialects.EncodeContext{}); err != nil || !jsonEqual(out, top) {
		t.Errorf("round trip %s, %v", out, err)
	}
	p := codec().Validate(top)
	if len(p) != 1 || p[0].Path != "context" || !strings.Contains(p[0].Message, "metadata.context") {
		t.Errorf("Validate = %v, want one plain problem at context", p)
	}

	_, err := codec().Decode([]byte(head + `,"metadata":{"context":1,"context":2}}`))
	var de *dialects.Error
	if !errors.As(err, &de) || de.Path != "metadata.context" {
		t.Errorf("a repeated metadata.context: %v", err)
	}
}

func TestDecodeErrorTexts(t *testing.T) {
	ok := `{"type":"task_result","protocol_version":"1.0","sender_id":"CA","recipient_id":"ARCH","timestamp":"2025-05-21T20:00:00Z","task_id":"T-1","payload":{"status":"success","result":{"output":"x"}}}`
	tests := []struct {
		name, msg, want string
	}{
		{"missing type", `{"payload":{}}`, "bluelabel: type: missing"},
		{"unknown type", strings.Replace(ok, `"task_result"`, `"task_request"`, 1),
			`bluelabel: type: unknown message type "task_request" (want one of [task_assignment task_result error needs_input])`},
		{"type not a string", strings.Replace(ok, `"type":"task_result"`, `"type":7`, 1), "bluelabel: type: must be a string, got a number (7)"},
		{"sender not a string", strings.Replace(ok, `"sender_id":"CA"`, `"sender_id":null`, 1), "bluelabel: sender_id: must be a string, got null"},
		{"payload not an object", strings.Replace(ok, `"payload":{"status":"success","result":{"output":"x"}}`, `"payload":[1]`, 1),
			"bluelabel: payload: must be an object, got an array"},
		{"unknown status", strings.Replace(ok, `"success"`, `"done"`, 1),
			`bluelabel: payload.status: unknown status "done" (want one of [success partial_success failed])`},
		{"status not a string", strings.Replace(ok, `"status":"success"`, `"status":true`, 1),
			"bluelabel: payload.status: must be a string, got a boolean"},
		{"notes not a string", strings.Replace(ok, `"status":"success"`, `"status":"success","notes":3`, 1),
			"bluelabel: payload.notes: must be a string, got a number (3)"},
		{"duplicate member", strings.Replace(ok, `"status":"success"`, `"status":"success","status":"failed"`, 1),
			"bluelabel: payload.status: appears twice"},
		{"nested status", `{"type":"task_result","payload":{"type":"task_result","payload":{"status":1}}}`,
			"bluelabel: payload.payload.status: must be a string, got a number (1)"},
		{"nested type mismatch", `{"type":"task_result","payload":{"type":"error","payload":{}}}`,
			`bluelabel: payload.type: payload type "error" does not match the message type "task_result"`},
		{"nested payload not an object", `{"type":"error","payload":{"type":"error","payload":"x"}}`,
			"bluelabel: payload.payload: must be an object, got a string"},
		{"retryable not a bool", `{"type":"error","payload":{"code":"TIMEOUT","retryable":"yes"}}`,
			"bluelabel: payload.retryable: must be true or false, got a string"},
		{"unknown priority", `{"type":"task_assignment","payload":{"type":"task_assignment","content":{"priority":"urgent"}}}`,
			`bluelabel: payload.content.priority: unknown priority "urgent" (want one of [low medium high critical])`},
		{"timeout not a number", `{"type":"task_assignment","payload":{"type":"task_assignment","content":{"timeout":"60"}}}`,
			"bluelabel: payload.content.timeout: must be a number, got a string"},
		{"content not an object", `{"type":"task_assignment","payload":{"type":"task_assignment","content":[]}}`,
			"bluelabel: payload.content: must be an object, got an array"},
		{"assignment payload type", `{"type":"task_assignment","payload":{"type":"task_result","content":{}}}`,
			`bluelabel: payload.type: payload type "task_result" does not match the message type "task_assignment"`},
		{"needs_input context", `{"type":"needs_input","payload":{"requested_inputs":[],"context":{}}}`,
			"bluelabel: payload.context: must be a string, got an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := codec().Decode([]byte(tt.msg))
			var de *dialects.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *dialects.Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("error = %q\n want %q", err, tt.want)
			}
		})
	}
}

// TestDecodeFragments: partial messages decode (Validate, not Decode,
// requires members) and are written back as they were.
func TestDecodeFragments(t *testing.T) {
	for _, msg := range []string{
		`{"type":"task_result"}`,
		`{"type":"error","task_id":"T-1"}`,
		`{"type":"error","payload":{}}`,
		`{"type":"task_result","payload":{"type":"task_result","payload":{}}}`,
		`{"type":"needs_input","payload":{"context":"which one?"}}`,
		`{"type":"task_assignment","payload":{"type":"task_assignment","content":{"action":"build"}}}`,
	} {
		env := decode(t, []byte(msg))
		ctx := &dialects.EncodeContext{}
		out, err := codec().Encode(nil, env, ctx)
		if err != nil || len(ctx.Losses) != 0 || !jsonEqual(out, []byte(msg)) {
			t.Errorf("%s: round trip %s, %v, %v", msg, out, err, ctx.Losses)
		}
		if len(codec().Validate([]byte(msg))) == 0 {
			t.Errorf("%s: a fragment validates", msg)
		}
	}
}
