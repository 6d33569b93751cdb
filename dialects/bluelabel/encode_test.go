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

func jsonEqual(a, b []byte) bool { return dialecttest.JSONEqual(a, b) }

// foreign returns an envelope as another dialect (swarm) would decode it.
func foreign(act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		Origin:   canonical.Origin{Dialect: "swarm", Version: "0.1.0", Words: canonical.Words{"request"}},
		ID:       "00000000-0000-4000-8000-000000000002",
		Act:      act,
		Sender:   canonical.Party{ID: "agent-1"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "agent-2"},
		Time:     "2024-01-11T10:00:00.123456",
		TaskID:   "TASK-9",
	}
}

// encode encodes env, checks that the output validates, and returns the
// output (parsed) and the losses.
func encode(t *testing.T, env *canonical.Envelope) (gjson.Result, []dialects.Loss) {
	t.Helper()
	ctx := dialecttest.EncodeContext()
	out, err := codec().Encode(nil, env, ctx)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	if p := codec().Validate(out); len(p) != 0 {
		t.Errorf("output does not validate: %v\n%s", p, out)
	}
	return gjson.ParseBytes(out), ctx.Losses
}

// loss returns the first loss of concept c, if any.
func loss(losses []dialects.Loss, c canonical.Concept) (dialects.Loss, bool) {
	for _, l := range losses {
		if l.Concept == c {
			return l, true
		}
	}
	return dialects.Loss{}, false
}

func TestEncodeForeignEnvelope(t *testing.T) {
	env := foreign(canonical.ActRequest)
	env.Operation = canonical.Operation{Name: "search"}
	env.Arguments = `{"q":"go"}`
	env.Priority = canonical.PriorityNormal
	env.TTL = canonical.Dur(30 * time.Second)
	out, losses := encode(t, env)
	want := map[string]string{
		"type":                         "task_assignment",
		"protocol_version":             "1.0",
		"sender_id":                    "AGENT-1",
		"recipient_id":                 "AGENT-2",
		"timestamp":                    "2024-01-11T10:00:00.123456Z",
		"task_id":                      "TASK-9",
		"payload.type":                 "task_assignment",
		"payload.content.task_id":      "TASK-9",
		"payload.content.action":       "search",
		"payload.content.description":  "search",
		"payload.content.priority":     "medium",
		"payload.content.timeout":      "30",
		"payload.content.parameters.q": "go",
	}
	for path, w := range want {
		if got := out.Get(path).String(); got != w {
			t.Errorf("%s = %q, want %q", path, got, w)
		}
	}
	if out.Get("message_id").Exists() || strings.Contains(out.Raw, "00000000-0000-4000-8000-000000000002") {
		t.Errorf("the message id was written: %s", out.Raw)
	}
	if l, ok := loss(losses, canonical.CID); !ok || l.Kind != dialects.Dropped {
		t.Errorf("id loss = %v, %v", l, ok)
	}
	for _, c := range []canonical.Concept{canonical.CSender, canonical.CReceiver} {
		l, ok := loss(losses, c)
		if !ok || l.Kind != dialects.Approximated {
			t.Errorf("%s: loss %v, %v", c, l, ok)
		}
	}
	if l, _ := loss(losses, canonical.CSender); !strings.Contains(l.String(), `sender_id: "agent-1"`) || !strings.Contains(l.Message(), `"AGENT-1"`) {
		t.Errorf("sender loss does not name the field and both values: %v", l)
	}
	if _, ok := loss(losses, canonical.CTime); ok {
		t.Errorf("a zone-less time written with Z was reported: %v", losses)
	}
	if l, ok := loss(losses, canonical.CDescription); !ok || l.Kind != dialects.Filled {
		t.Errorf("description fill = %v, %v", l, ok)
	}
}

func TestEncodeTaskIDFallback(t *testing.T) {
	tests := []struct {
		name string
		set  func(*canonical.Envelope)
		want string
	}{
		{"task id", func(e *canonical.Envelope) { e.TaskID = "task.7" }, "TASK_7"},
		{"in reply to", func(e *canonical.Envelope) { e.InReplyTo = "req-1"; e.CorrelationID = "c-1" }, "REQ-1"},
		{"correlation", func(e *canonical.Envelope) { e.CorrelationID = "c-1" }, "C-1"},
		{"message id", func(e *canonical.Envelope) { e.ID = "m-1" }, "M-1"},
		{"none", func(e *canonical.Envelope) {}, "UNKNOWN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := foreign(canonical.ActResult)
			env.TaskID, env.ID = "", ""
			env.Result = `{"output":"ok"}`
			tt.set(env)
			out, losses := encode(t, env)
			if got := out.Get("task_id").Str; got != tt.want {
				t.Errorf("task_id = %q, want %q", got, tt.want)
			}
			l, ok := loss(losses, canonical.CTaskID)
			if !ok {
				t.Fatalf("no task_id loss: %v", losses)
			}
			wantKind := dialects.Filled
			if env.TaskID != "" {
				wantKind = dialects.Approximated
			}
			if l.Kind != wantKind {
				t.Errorf("task_id loss %v, want %s", l, wantKind)
			}
		})
	}
}

func TestEncodeReceivers(t *testing.T) {
	tests := []struct {
		name string
		addr canonical.Address
		want string
		kind dialects.LossKind
	}{
		{"topic", canonical.Address{Kind: canonical.AddressTopic, ID: "alerts.db"}, "ALERTS_DB", dialects.Approximated},
		{"broadcast", canonical.Address{Kind: canonical.AddressBroadcast}, "BROADCAST", dialects.Approximated},
		{"none", canonical.Address{}, "UNKNOWN", dialects.Filled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := foreign(canonical.ActFailure)
			env.Receiver = tt.addr
			env.Sender = canonical.Party{}
			out, losses := encode(t, env)
			if got := out.Get("recipient_id").Str; got != tt.want {
				t.Errorf("recipient_id = %q, want %q", got, tt.want)
			}
			if l, ok := loss(losses, canonical.CReceiver); !ok || l.Kind != tt.kind {
				t.Errorf("receiver loss %v, %v", l, ok)
			}
			if got := out.Get("sender_id").Str; got != "UNKNOWN" {
				t.Errorf("sender_id = %q", got)
			}
		})
	}
}

func TestEncodeTimes(t *testing.T) {
	tests := []struct {
		in, want string
		lost     bool
	}{
		{"2025-05-21T20:00:00Z", "2025-05-21T20:00:00Z", false},
		{"2025-05-21T22:00:00+02:00", "2025-05-21T22:00:00+02:00", false},
		{"2024-01-11T10:00:00.000000", "2024-01-11T10:00:00Z", false},
		{"YYYY-MM-DDTHH:MM:SSZ", "2026-01-02T03:04:05Z", true},
		{"", "2026-01-02T03:04:05Z", false},
	}
	for _, tt := range tests {
		env := foreign(canonical.ActFailure)
		env.Time = canonical.Timestamp(tt.in)
		out, losses := encode(t, env)
		if got := out.Get("timestamp").Str; got != tt.want {
			t.Errorf("%q: timestamp = %q, want %q", tt.in, got, tt.want)
		}
		if l, ok := loss(losses, canonical.CTime); ok != tt.lost || ok && l.Kind != dialects.Approximated {
			t.Errorf("%q: time loss %v, %v", tt.in, l, ok)
		}
	}
}

func TestEncodeResult(t *testing.T) {
	tests := []struct {
		name        string
		result      canonical.JSON
		desc        string
		outcome     canonical.Outcome
		wantResult  string
		wantStatus  string
		wantVersion string
		loss        dialects.LossKind
		lost        bool
	}{
		{"object with output", `{"output":"done","n":1}`, "", canonical.OutcomeSuccess, `{"output":"done","n":1}`, "success", "1.0", 0, false},
		{"object without output", `{"n":1}`, "counted", canonical.OutcomePartial, `{"output":"counted","data":{"n":1}}`, "partial_success", "1.3", dialects.Approximated, true},
		{"array", `[1,2]`, "", canonical.OutcomeFailure, `{"output":"result in data","data":[1,2]}`, "failed", "1.0", dialects.Approximated, true},
		{"none", "", "all good", canonical.OutcomeSuccess, `{"output":"all good"}`, "success", "1.3", dialects.Filled, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := foreign(canonical.ActResult)
			env.Result, env.Description, env.Outcome = tt.result, tt.desc, tt.outcome
			out, losses := encode(t, env)
			if got := out.Get("payload.result").Raw; !jsonEqual([]byte(got), []byte(tt.wantResult)) {
				t.Errorf("result = %s, want %s", got, tt.wantResult)
			}
			if got := out.Get("payload.status").Str; got != tt.wantStatus {
				t.Errorf("status = %q, want %q", got, tt.wantStatus)
			}
			if got := out.Get("protocol_version").Str; got != tt.wantVersion {
				t.Errorf("protocol_version = %q, want %q", got, tt.wantVersion)
			}
			if got := out.Get("payload.notes").Str; got != tt.desc {
				t.Errorf("notes = %q, want %q", got, tt.desc)
			}
			l, ok := loss(losses, canonical.CResult)
			if ok != tt.lost || ok && l.Kind != tt.loss {
				t.Errorf("result loss %v, %v", l, ok)
			}
		})
	}
}

func TestEncodeResultNoOutcome(t *testing.T) {
	env := foreign(canonical.ActResult)
	env.Result = `{"output":"x"}`
	out, losses := encode(t, env)
	if out.Get("payload.status").Str != "success" {
		t.Errorf("status = %s", out.Get("payload.status").Raw)
	}
	if l, ok := loss(losses, canonical.COutcome); !ok || l.Kind != dialects.Filled {
		t.Errorf("outcome loss %v, %v", l, ok)
	}
}

func TestEncodeLongTexts(t *testing.T) {
	env := foreign(canonical.ActRequest)
	env.Operation.Name = "write"
	env.Description = strings.Repeat("é", 600)
	env.TaskID = strings.Repeat("a", 80)
	out, losses := encode(t, env)
	if n := len([]rune(out.Get("payload.content.description").Str)); n != 500 {
		t.Errorf("description has %d characters, want 500", n)
	}
	if n := len(out.Get("task_id").Str); n != 64 || out.Get("payload.content.task_id").Str != out.Get("task_id").Str {
		t.Errorf("task_id %q (%d characters)", out.Get("task_id").Str, n)
	}
	if l, ok := loss(losses, canonical.CDescription); !ok || l.Kind != dialects.Approximated {
		t.Errorf("description loss %v, %v", l, ok)
	}

	env = foreign(canonical.ActResult)
	env.Result = `{"output":"x"}`
	env.Description = strings.Repeat("n", 1200)
	out, losses = encode(t, env)
	if n := len([]rune(out.Get("payload.notes").Str)); n != 1000 {
		t.Errorf("notes has %d characters, want 1000", n)
	}
	if l, ok := loss(losses, canonical.CDescription); !ok || l.Kind != dialects.Approximated {
		t.Errorf("notes loss %v, %v", l, ok)
	}
}

func TestEncodeErrorActs(t *testing.T) {
	tests := []struct {
		name      string
		act       canonical.Act
		code      canonical.ErrorCode
		retryable *bool
		wantCode  string
		wantRetry string
		back      canonical.Act
		lost      []canonical.Concept
	}{
		{"refuse", canonical.ActRefuse, "", nil, "REJECTED", "false", canonical.ActRefuse, nil},
		{"refuse rejected", canonical.ActRefuse, canonical.ErrRejected, nil, "REJECTED", "false", canonical.ActRefuse, nil},
		{"refuse unauthorized", canonical.ActRefuse, canonical.ErrUnauthorized, nil, "REJECTED", "false", canonical.ActRefuse, []canonical.Concept{canonical.CErrorCode}},
		{"refuse retryable", canonical.ActRefuse, "", ptr(true), "REJECTED", "true", canonical.ActRefuse, nil},
		{"not-understood", canonical.ActNotUnderstood, "", nil, "VALIDATION_ERROR", "", canonical.ActNotUnderstood, nil},
		{"not-understood invalid arguments", canonical.ActNotUnderstood, canonical.ErrInvalidArguments, nil, "VALIDATION_ERROR", "", canonical.ActNotUnderstood, []canonical.Concept{canonical.CErrorCode}},
		{"failure", canonical.ActFailure, "", nil, "EXECUTION_FAILED", "", canonical.ActFailure, nil},
		{"failure timeout", canonical.ActFailure, canonical.ErrTimeout, ptr(true), "TIMEOUT", "true", canonical.ActFailure, nil},
		{"failure rejected", canonical.ActFailure, canonical.ErrRejected, nil, "REJECTED", "", canonical.ActRefuse, []canonical.Concept{canonical.CAct}},
		{"failure invalid arguments", canonical.ActFailure, canonical.ErrInvalidArguments, nil, "VALIDATION_ERROR", "", canonical.ActNotUnderstood, []canonical.Concept{canonical.CErrorCode, canonical.CAct}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := foreign(tt.act)
			env.Error = &canonical.Error{Code: tt.code, Message: "no", Retryable: tt.retryable}
			out, losses := encode(t, env)
			if out.Get("type").Str != "error" || out.Get("payload.code").Str != tt.wantCode || out.Get("payload.retryable").Raw != tt.wantRetry {
				t.Errorf("type %s code %s retryable %s", out.Get("type").Raw, out.Get("payload.code").Raw, out.Get("payload.retryable").Raw)
			}
			back := decode(t, []byte(out.Raw))
			if back.Act != tt.back {
				t.Errorf("decodes back as %s, want %s", back.Act, tt.back)
			}
			for _, c := range []canonical.Concept{canonical.CAct, canonical.CErrorCode} {
				_, got := loss(losses, c)
				want := false
				for _, w := range tt.lost {
					want = want || w == c
				}
				if got != want {
					t.Errorf("%s loss reported %v, want %v: %v", c, got, want, losses)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestEncodeErrorPayloadShapes(t *testing.T) {
	env := foreign(canonical.ActFailure)
	env.Error = &canonical.Error{Code: canonical.ErrNotFound, Details: `"no such tool"`, SuggestedActions: `["retry",{"do":"x"}]`}
	out, losses := encode(t, env)
	if got := out.Get("payload.details").Raw; got != `{"value":"no such tool"}` {
		t.Errorf("details = %s", got)
	}
	if got := out.Get("payload.suggested_actions").Raw; got != `["retry","{\"do\":\"x\"}"]` {
		t.Errorf("suggested_actions = %s", got)
	}
	if got := out.Get("payload.message").Str; got != "NOT_FOUND" {
		t.Errorf("message = %q", got)
	}
	for c, k := range map[canonical.Concept]dialects.LossKind{
		canonical.CErrorDetails:     dialects.Approximated,
		canonical.CErrorSuggestions: dialects.Approximated,
		canonical.CErrorMessage:     dialects.Filled,
	} {
		if l, ok := loss(losses, c); !ok || l.Kind != k {
			t.Errorf("%s loss %v, %v", c, l, ok)
		}
	}
}

func TestEncodeNeedsInput(t *testing.T) {
	env := foreign(canonical.ActNeedsInput)
	env.Inputs = `[{"id":"branch","type":"string","description":"Target branch"},{"id":"n","type":"integer","sensitive":"no"},"why?"]`
	env.Description = "need more"
	env.TTL = canonical.Dur(90 * time.Second)
	out, losses := encode(t, env)
	want := `[{"id":"branch","type":"string","description":"Target branch"},{"id":"n","type":"string","description":"n"},{"id":"input_3","type":"string","description":"why?"}]`
	if got := out.Get("payload.requested_inputs").Raw; !jsonEqual([]byte(got), []byte(want)) {
		t.Errorf("requested_inputs = %s\nwant %s", got, want)
	}
	if out.Get("payload.context").Str != "need more" || out.Get("payload.timeout_seconds").Raw != "90" {
		t.Errorf("payload = %s", out.Get("payload").Raw)
	}
	if l, ok := loss(losses, canonical.CInputs); !ok || l.Kind != dialects.Approximated {
		t.Errorf("inputs loss %v, %v", l, ok)
	}

	env.Inputs = ""
	out, losses = encode(t, env)
	if out.Get("payload.requested_inputs").Raw != "[]" {
		t.Errorf("requested_inputs = %s", out.Get("payload.requested_inputs").Raw)
	}
	if l, ok := loss(losses, canonical.CInputs); !ok || l.Kind != dialects.Filled {
		t.Errorf("inputs loss %v, %v", l, ok)
	}
}

func TestEncodeRequestShapes(t *testing.T) {
	env := foreign(canonical.ActRequest)
	env.Operation = canonical.Operation{Capability: "files"}
	env.Arguments = `[1]`
	env.Metadata = `"m"`
	env.Context = `{"k":1}`
	env.Deadline = "soon"
	env.TTL = canonical.Dur(0)
	env.Priority = canonical.PriorityBatch
	out, losses := encode(t, env)
	checks := map[string]string{
		"payload.content.action":     `"files"`,
		"payload.content.parameters": `{"value":[1]}`,
		"payload.content.timeout":    `1`,
		"payload.content.priority":   `"low"`,
		"metadata":                   `{"context":{"k":1},"value":"m"}`,
		"context":                    ``,
	}
	for p, w := range checks {
		if got := out.Get(p).Raw; got != w {
			t.Errorf("%s = %s, want %s", p, got, w)
		}
	}
	if out.Get("payload.content.deadline").Exists() {
		t.Errorf("an unparseable deadline was written")
	}
	for _, c := range []canonical.Concept{canonical.COperation, canonical.CArguments, canonical.CMetadata,
		canonical.CDeadline, canonical.CTTL, canonical.CPriority, canonical.CCapability} {
		if _, ok := loss(losses, c); !ok {
			t.Errorf("no %s loss: %v", c, losses)
		}
	}
}

// TestEncodeAssignmentContext: the task assignment schema refuses a
// top-level context, so a request's context goes in metadata.context, and
// decodes back from there.
func TestEncodeAssignmentContext(t *testing.T) {
	cases := []struct {
		name, metadata string
		wantMetadata   string // the metadata written
		dropped        bool   // context reported dropped
	}{
		{"no metadata", "", `{"context":{"k":1}}`, false},
		{"metadata", `{"m":1,"n":[2]}`, `{"context":{"k":1},"m":1,"n":[2]}`, false},
		{"empty metadata", `{}`, `{"context":{"k":1}}`, false},
		{"metadata with a context", `{"context":"mine"}`, `{"context":"mine"}`, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := foreign(canonical.ActRequest)
			env.Context = `{"k":1}`
			env.Metadata = canonical.JSON(tc.metadata)
			ctx := dialecttest.EncodeContext()
			msg, err := codec().Encode(nil, env, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if p := codec().Validate(msg); len(p) != 0 {
				t.Fatalf("output does not validate: %v\n%s", p, msg)
			}
			out := gjson.ParseBytes(msg)
			if out.Get("context").Exists() {
				t.Errorf("a top-level context was written: %s", msg)
			}
			if got := out.Get("metadata").Raw; got != tc.wantMetadata {
				t.Errorf("metadata = %s, want %s", got, tc.wantMetadata)
			}
			if l, ok := loss(ctx.Losses, canonical.CContext); ok != tc.dropped || ok && l.Kind != dialects.Dropped {
				t.Errorf("context loss %v, %v; want dropped %v", l, ok, tc.dropped)
			}
			back := decode(t, msg)
			if tc.dropped {
				return
			}
			if back.Context != env.Context {
				t.Errorf("Context decodes back as %s", back.Context)
			}
			// An empty remainder is no metadata, as in fuse.
			if want := strings.TrimPrefix(tc.metadata, "{}"); string(back.Metadata) != want {
				t.Errorf("Metadata decodes back as %s, want %s", back.Metadata, want)
			}
		})
	}

	// Another dialect's metadata member context, with no context beside
	// it, reads back as the context: that is reported.
	env := foreign(canonical.ActRequest)
	env.Metadata = `{"context":{"k":1}}`
	out, losses := encode(t, env)
	if out.Get("metadata").Raw != `{"context":{"k":1}}` {
		t.Errorf("metadata = %s", out.Get("metadata").Raw)
	}
	if l, ok := loss(losses, canonical.CMetadata); !ok || l.Kind != dialects.Approximated {
		t.Errorf("metadata loss %v, %v", l, ok)
	}
}

func TestEncodeRefusesActs(t *testing.T) {
	for _, act := range []canonical.Act{canonical.ActAccept, canonical.ActQueryIf, canonical.ActQueryRef,
		canonical.ActQueryCapabilities, canonical.ActInformCapabilities, canonical.ActEvent} {
		_, err := codec().Encode(nil, foreign(act), dialecttest.EncodeContext())
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != "bluelabel" || !strings.Contains(err.Error(), string(act)) {
			t.Errorf("%s: error %v", act, err)
		}
	}
}

// TestEncodeHeldConceptsSurvive: what holds lists for an act is written and
// read back; everything else the envelope has is reported.
func TestEncodeHeldConceptsSurvive(t *testing.T) {
	for _, act := range []canonical.Act{canonical.ActRequest, canonical.ActResult, canonical.ActFailure,
		canonical.ActRefuse, canonical.ActNotUnderstood, canonical.ActNeedsInput} {
		env := full(act)
		ctx := dialecttest.EncodeContext()
		out, err := codec().Encode(nil, env, ctx)
		if err != nil {
			t.Fatalf("%s: %v", act, err)
		}
		back := decode(t, out)
		reported := map[canonical.Concept]bool{}
		for _, l := range ctx.Losses {
			if l.Kind == dialects.Dropped {
				reported[l.Concept] = true
			}
		}
		for _, c := range env.Present() {
			if c == canonical.CExtra {
				continue
			}
			if back.Has(c) == reported[c] {
				t.Errorf("%s: %s read back %v, reported dropped %v", act, c, back.Has(c), reported[c])
			}
		}
	}
}

// full returns an envelope of act holding every concept, with values
// bluelabel can write exactly.
func full(act canonical.Act) *canonical.Envelope {
	env := foreign(act)
	env.Sender.ID, env.Receiver.ID = "AGENT-1", "AGENT-2"
	env.Sender.Name, env.Receiver.Name = "One", "Two"
	env.Time = "2024-01-11T10:00:00Z"
	env.InReplyTo, env.ReplyWith, env.CorrelationID = "R-0", "R-1", "C-1"
	env.ConversationID, env.SessionID = "conv", "sess"
	env.Priority, env.Deadline, env.TTL = canonical.PriorityHigh, "2024-01-12T00:00:00Z", canonical.Dur(time.Minute)
	env.Trace = canonical.Trace{TraceID: "t", SpanID: "s", ParentSpanID: "p"}
	env.Language, env.Ontology = "application/json", "onto"
	env.Operation = canonical.Operation{Capability: "cap", Name: "op"}
	env.Description = "text"
	env.Arguments, env.Result, env.Outcome = `{"a":1}`, `{"output":"o"}`, canonical.OutcomePartial
	env.Error = &canonical.Error{Code: canonical.DefaultErrorCode(act), Message: "m", Retryable: ptr(false),
		RetryAfter: canonical.Dur(time.Second), Details: `{"d":1}`, SuggestedActions: `["x"]`}
	env.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{{Name: "op"}}}
	env.Inputs = `[{"id":"i","type":"string","description":"d"}]`
	env.Context, env.Metadata, env.Authentication, env.Extensions = `{"c":1}`, `{"m":1}`, `{"token":"x"}`, `{"e":1}`
	return env
}

// TestEncodeForeignUnknownCode: bluelabel's codes are open, so another
// dialect's word with no canonical meaning is written as it is.
func TestEncodeForeignUnknownCode(t *testing.T) {
	env := foreign(canonical.ActFailure)
	env.Origin.SetWord(canonical.KindError, "API_ERROR")
	env.Error = &canonical.Error{Message: "API call failed"}
	out, losses := encode(t, env)
	if got := out.Get("payload.code").Str; got != "API_ERROR" {
		t.Errorf("code = %q", got)
	}
	if _, ok := loss(losses, canonical.CErrorCode); ok {
		t.Errorf("code reported: %v", losses)
	}
	back := decode(t, []byte(out.Raw))
	if back.Act != canonical.ActFailure || back.Origin.Words.Get(canonical.KindError) != "API_ERROR" {
		t.Errorf("back: act %s words %v", back.Act, back.Origin.Words)
	}

	env.Act = canonical.ActRefuse
	out, losses = encode(t, env)
	if got := out.Get("payload.code").Str; got != "REJECTED" {
		t.Errorf("refuse code = %q", got)
	}
	if l, ok := loss(losses, canonical.CErrorCode); !ok || !strings.Contains(l.Message(), "API_ERROR") {
		t.Errorf("code loss %v, %v", l, ok)
	}
}
