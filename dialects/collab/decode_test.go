package collab_test

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

func sample(t *testing.T, name string) []byte { return dialecttest.ReadSample(t, name) }

func decode(t *testing.T, msg []byte) *canonical.Envelope {
	return dialecttest.MustDecode(t, codec(), msg)
}

func jsonEq(t *testing.T, what string, got canonical.JSON, want string) {
	t.Helper()
	if !dialecttest.JSONEqual([]byte(got), []byte(want)) {
		t.Errorf("%s = %s, want %s", what, got, want)
	}
}

func TestDecodeSamples(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		sample string
		check  func(t *testing.T, e *canonical.Envelope)
	}{
		{"spec_request_flat", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActRequest)
			want(t, e.Origin.Form, "flat")
			want(t, e.Operation.Name, "verify")
			jsonEq(t, "Arguments", e.Arguments, `{"content":"..."}`)
			want(t, e.Extra, []canonical.Field{{Dialect: "collab", Parent: "body", Key: "responseRequired", Value: "true"}})
		}},
		{"made_envelope_spec", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActRequest)
			want(t, e.Origin.Form, "")
			want(t, e.ID, "msg_uuid_123")
			want(t, e.CorrelationID, "corr_uuid_456")
			want(t, e.InReplyTo, "")
			want(t, e.Sender, canonical.Party{ID: "agent-analyzer"})
			want(t, e.Receiver, canonical.Address{Kind: canonical.AddressAgent, ID: "agent-planner"})
			want(t, e.Time, canonical.Timestamp("2026-01-10T14:30:00Z"))
			want(t, e.Priority, canonical.PriorityLow)
			want(t, e.TTL, canonical.Dur(30*time.Second))
			want(t, e.Trace, canonical.Trace{TraceID: "trace_123", SpanID: "span_456", ParentSpanID: "span_123"})
			want(t, e.Operation.Name, "analyze")
			jsonEq(t, "Context", e.Context, `{"sessionId":"sess_123","taskId":"task_456"}`)
			want(t, e.SessionID, "")
		}},
		{"made_request_context_trace", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Priority, canonical.PriorityHigh)
			want(t, e.TTL, canonical.Dur(15*time.Second))
			want(t, e.Trace.ParentSpanID, "b7ad6b7169203331")
			jsonEq(t, "Context", e.Context, `{"sessionId":"sess_123","taskId":"task_456","previousDecisions":["use JSONL","add indices"]}`)
		}},
		{"made_response_success_error_null", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActResult)
			want(t, e.Outcome, canonical.OutcomeSuccess)
			want(t, e.InReplyTo, "msg_7f3a9c21")
			want(t, e.CorrelationID, "")
			want(t, e.Error, (*canonical.Error)(nil))
			want(t, e.Origin.Form, "null-error")
			want(t, len(e.Extra), 0)
		}},
		{"made_response_error_timeout", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActFailure)
			want(t, e.Outcome, canonical.OutcomeFailure)
			want(t, e.Origin.Words.Get(canonical.KindOutcome), "ERROR")
			want(t, e.Error, &canonical.Error{Code: canonical.ErrTimeout, Message: "Agent did not respond within 30s", Retryable: &yes, RetryAfter: canonical.Dur(5 * time.Second)})
		}},
		{"made_response_status_timeout", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActFailure)
			want(t, e.Origin.Words.Get(canonical.KindOutcome), "TIMEOUT")
			want(t, e.Origin.Form, "null-result")
			want(t, e.Error.Code, canonical.ErrTimeout)
			jsonEq(t, "Error.Details", e.Error.Details, `{"agent":"agent-indexer","consecutiveTimeouts":2}`)
			want(t, e.Result, canonical.JSON(""))
		}},
		{"made_response_result_failed", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActResult)
			want(t, e.Outcome, canonical.OutcomeFailure)
			want(t, e.Origin.Words.Get(canonical.KindOutcome), "ERROR")
			want(t, e.Origin.Form, "")
			want(t, e.InReplyTo, "msg_5b07e2f3")
			want(t, e.Error, (*canonical.Error)(nil))
			jsonEq(t, "Result", e.Result, `{"suitesRun":3,"passed":0,"failed":3,"summary":"All three suites failed to start: fixture data for the orders table is missing"}`)
			jsonEq(t, "Context", e.Context, `{"sessionId":"sess_123","taskId":"task_789"}`)
			want(t, len(e.Extra), 0)
		}},
		{"made_response_rejected", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActRefuse)
			want(t, e.Outcome, canonical.OutcomeFailure)
			want(t, e.Error.Code, canonical.ErrRejected)
			want(t, e.Error.Retryable, &no)
			want(t, e.Origin.Words.Get(canonical.KindError), "REJECTED")
		}},
		{"made_response_flat", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActResult)
			want(t, e.Origin.Form, "flat+null-error")
			want(t, e.InReplyTo, "msg_7f3a9c21")
		}},
		{"made_response_top_correlation", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActResult)
			want(t, e.Origin.Form, "top-correlation")
			want(t, e.InReplyTo, "msg_2a6e4410")
			want(t, e.Priority, canonical.PriorityNormal)
			want(t, len(e.Extra), 0)
		}},
		{"made_publish_finding", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActEvent)
			want(t, e.Receiver, canonical.Address{Kind: canonical.AddressTopic, ID: "findings"})
			want(t, e.Operation.Name, "NewFinding")
			jsonEq(t, "Arguments", e.Arguments, `{"severity":"HIGH","description":"Index rebuild holds a write lock for the whole collection"}`)
			want(t, e.Trace.ParentSpanID, "")
		}},
		{"made_publish_flat", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActEvent)
			want(t, e.Origin.Form, "flat")
			want(t, e.Receiver, canonical.Address{Kind: canonical.AddressTopic, ID: "verification-complete"})
		}},
		{"made_broadcast_shutdown", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActEvent)
			want(t, e.Origin.Words.Get(canonical.KindAct), "BROADCAST")
			want(t, e.Receiver, canonical.Address{Kind: canonical.AddressBroadcast})
			want(t, e.Priority, canonical.PriorityCritical)
			want(t, e.Operation.Name, "SystemShutdown")
			want(t, e.Arguments, canonical.JSON(""))
			want(t, e.Extra, []canonical.Field{{Dialect: "collab", Parent: "body", Key: "countdown", Value: "30"}})
		}},
		{"made_registry_register", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActInformCapabilities)
			want(t, e.Sender, canonical.Party{ID: "agent-verifier", Name: "Verifier"})
			want(t, e.Operation, canonical.Operation{})
			want(t, e.Arguments, canonical.JSON(""))
			want(t, e.Capabilities.Dialect, "collab")
			want(t, e.Capabilities.Tools, []canonical.Tool{
				{Name: "verify", Capability: "verification"},
				{Name: "cross-check", Capability: "verification"},
				{Name: "summarize", Capability: "summarization"},
			})
		}},
		{"made_registry_find", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActQueryCapabilities)
			want(t, e.Operation, canonical.Operation{})
			jsonEq(t, "Arguments", e.Arguments, `{"capability":"verification","status":"READY"}`)
			want(t, e.TTL, canonical.Dur(2*time.Second))
		}},
		{"made_registry_find_response", func(t *testing.T, e *canonical.Envelope) {
			want(t, e.Act, canonical.ActResult)
			want(t, e.InReplyTo, "msg_a93e0f12")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.sample, func(t *testing.T) { tt.check(t, decode(t, sample(t, tt.sample))) })
	}
}

func want[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct{ msg, err string }{
		{`{}`, `collab: type: missing (want one of [REQUEST RESPONSE PUBLISH BROADCAST])`},
		{`{"header":{"source":"a"}}`, `collab: header.type: missing (want one of [REQUEST RESPONSE PUBLISH BROADCAST])`},
		{`{"header":{"type":"NOTIFY"}}`, `collab: header.type: unknown message type "NOTIFY" (want one of [REQUEST RESPONSE PUBLISH BROADCAST])`},
		{`{"type":"request"}`, `collab: type: unknown message type "request" (want one of [REQUEST RESPONSE PUBLISH BROADCAST])`},
		{`{"header":"REQUEST"}`, `collab: header: must be an object, got a string`},
		{`{"type":"REQUEST","body":[]}`, `collab: body: must be an object, got an array`},
		{`{"header":{"type":"REQUEST","priority":"high"}}`, `collab: header.priority: must be a whole number, got a string`},
		{`{"type":"REQUEST","priority":2.5}`, `collab: priority: must be a whole number, got a number (2.5)`},
		{`{"header":{"type":"REQUEST","priority":5}}`, `collab: header.priority: unknown priority 5 (want one of [0 1 2 3 4])`},
		{`{"header":{"type":"REQUEST","priority":-1}}`, `collab: header.priority: unknown priority -1 (want one of [0 1 2 3 4])`},
		{`{"header":{"type":"REQUEST","ttl":"30s"}}`, `collab: header.ttl: must be a number, got a string`},
		{`{"header":{"type":"REQUEST","ttl":1e20}}`, `collab: header.ttl: must be at most 9223372036854 milliseconds, got 1e20`},
		{`{"header":{"type":"REQUEST","destination":null}}`, `collab: header.destination: must be a string, got null`},
		{`{"header":{"type":"RESPONSE"},"correlationId":7}`, `collab: correlationId: must be a string, got a number (7)`},
		{`{"header":{"type":"REQUEST"},"trace":{"spanId":1}}`, `collab: trace.spanId: must be a string, got a number (1)`},
		{`{"type":"REQUEST","body":{"action":["a"]}}`, `collab: body.action: must be a string, got an array`},
		{`{"type":"RESPONSE","body":{"status":"DONE"}}`, `collab: body.status: unknown status "DONE" (want one of [SUCCESS ERROR TIMEOUT])`},
		{`{"type":"RESPONSE","body":{"status":"ERROR","error":"boom"}}`, `collab: body.error: must be an object, got a string`},
		{`{"type":"RESPONSE","body":{"status":"ERROR","error":{"code":500}}}`, `collab: body.error.code: must be a string, got a number (500)`},
		{`{"type":"RESPONSE","body":{"status":"ERROR","error":{"retryable":"yes"}}}`, `collab: body.error.retryable: must be true or false, got a string`},
		{`{"type":"RESPONSE","body":{"status":"ERROR","error":{"retryAfter":"5s"}}}`, `collab: body.error.retryAfter: must be a number, got a string`},
		{`{"type":"PUBLISH","body":{"event":{}}}`, `collab: body.event: must be a string, got an object`},
		{`{"type":"REQUEST","body":{"action":"registry.register","payload":[]}}`, `collab: body.payload: must be an object, got an array`},
		{`{"type":"REQUEST","body":{"action":"registry.register","payload":{"capabilities":{}}}}`, `collab: body.payload.capabilities: must be an array, got an object`},
		{`{"type":"REQUEST","body":{"action":"registry.register","payload":{"capabilities":[{"name":"x","actions":["a",2]}]}}}`, `collab: body.payload.capabilities.0.actions.1: must be a string, got a number (2)`},
		{`{"type":"REQUEST","body":{"action":"registry.register","payload":{"name":false}}}`, `collab: body.payload.name: must be a string, got a boolean`},
	}
	for _, tt := range tests {
		_, err := codec().Decode([]byte(tt.msg))
		var de *dialects.Error
		if !errors.As(err, &de) {
			t.Errorf("%s: error %v is not a *dialects.Error", tt.msg, err)
			continue
		}
		if err.Error() != tt.err {
			t.Errorf("%s:\n got %v\nwant %s", tt.msg, err, tt.err)
		}
	}
}

// TestDecodeResponseActs covers how body.status and body.error decide a
// RESPONSE's act.
func TestDecodeResponseActs(t *testing.T) {
	tests := []struct {
		body    string
		act     canonical.Act
		outcome canonical.Outcome
		code    canonical.ErrorCode
		word    string // Origin.Words[error]
	}{
		{`{"status":"SUCCESS","result":1}`, canonical.ActResult, canonical.OutcomeSuccess, "", ""},
		{`{"result":1}`, canonical.ActResult, "", "", ""},
		{`{"status":"ERROR","error":{"code":"INTERNAL","message":"crashed"}}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrInternal, "INTERNAL"},
		{`{"status":"ERROR","error":{"code":"UNAVAILABLE","message":"offline"}}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrUnavailable, "UNAVAILABLE"},
		{`{"status":"ERROR","error":{"code":"REJECTED","message":"no"}}`, canonical.ActRefuse, canonical.OutcomeFailure, canonical.ErrRejected, "REJECTED"},
		{`{"status":"ERROR","error":{"code":"QUOTA_EXCEEDED","message":"later"}}`, canonical.ActFailure, canonical.OutcomeFailure, "", "QUOTA_EXCEEDED"},
		{`{"status":"ERROR"}`, canonical.ActFailure, canonical.OutcomeFailure, "", ""},
		{`{"status":"TIMEOUT"}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrTimeout, ""},
		{`{"status":"TIMEOUT","error":{"message":"slow"}}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrTimeout, ""},
		{`{"status":"TIMEOUT","error":{"code":"UNAVAILABLE","message":"gone"}}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrUnavailable, "UNAVAILABLE"},
		{`{"error":{"code":"REJECTED","message":"no"}}`, canonical.ActRefuse, "", canonical.ErrRejected, "REJECTED"},
		// Failed results: an error status, a result, no error object.
		{`{"status":"ERROR","result":{"passed":0}}`, canonical.ActResult, canonical.OutcomeFailure, "", ""},
		{`{"status":"TIMEOUT","result":{"passed":2}}`, canonical.ActResult, canonical.OutcomeFailure, "", ""},
		{`{"status":"ERROR","result":"no match","error":null}`, canonical.ActResult, canonical.OutcomeFailure, "", ""},
		// With an error object, or without a (non-null) result, a failure.
		{`{"status":"ERROR","result":{"passed":0},"error":{"code":"INTERNAL","message":"crashed"}}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrInternal, "INTERNAL"},
		{`{"status":"ERROR","result":{"passed":0},"error":{"code":"REJECTED","message":"no"}}`, canonical.ActRefuse, canonical.OutcomeFailure, canonical.ErrRejected, "REJECTED"},
		{`{"status":"ERROR","result":{"passed":0},"error":{}}`, canonical.ActFailure, canonical.OutcomeFailure, "", ""},
		{`{"status":"ERROR","result":null}`, canonical.ActFailure, canonical.OutcomeFailure, "", ""},
		{`{"status":"TIMEOUT","result":null,"error":null}`, canonical.ActFailure, canonical.OutcomeFailure, canonical.ErrTimeout, ""},
	}
	for _, tt := range tests {
		e := decode(t, []byte(`{"type":"RESPONSE","correlationId":"r-1","body":`+tt.body+`}`))
		if e.Act != tt.act || e.Outcome != tt.outcome || e.Origin.Words.Get(canonical.KindError) != tt.word {
			t.Errorf("%s: act %s outcome %q word %q, want %s %q %q", tt.body, e.Act, e.Outcome, e.Origin.Words.Get(canonical.KindError), tt.act, tt.outcome, tt.word)
		}
		var code canonical.ErrorCode
		if e.Error != nil {
			code = e.Error.Code
		}
		if code != tt.code {
			t.Errorf("%s: error code %q, want %q", tt.body, code, tt.code)
		}
		if e.InReplyTo != "r-1" {
			t.Errorf("%s: InReplyTo %q", tt.body, e.InReplyTo)
		}
	}
}

// TestDecodeLayouts covers where header members may sit.
func TestDecodeLayouts(t *testing.T) {
	// Both correlationIds: the header's counts, the top-level one is kept.
	e := decode(t, []byte(`{"header":{"messageId":"m","type":"RESPONSE","source":"a","destination":"b","correlationId":"h"},"correlationId":"t","body":{"status":"SUCCESS"}}`))
	want(t, e.InReplyTo, "h")
	want(t, e.Origin.Form, "")
	want(t, e.Extra, []canonical.Field{{Dialect: "collab", Parent: "", Key: "correlationId", Value: `"t"`}})

	// Header members at the top level of a header-layout message are not
	// read as the header (nor type-checked).
	e = decode(t, []byte(`{"header":{"type":"REQUEST"},"source":42,"priority":"high"}`))
	want(t, e.Sender.ID, "")
	want(t, e.Priority, canonical.Priority(0))
	want(t, len(e.Extra), 2)

	// A flat message without a body.
	e = decode(t, []byte(`{"type":"BROADCAST","destination":"*"}`))
	want(t, e.Origin.Form, "flat+no-body")
	want(t, e.Receiver.Kind, canonical.AddressBroadcast)

	// A REQUEST's correlationId is a correlation, not a reply.
	e = decode(t, []byte(`{"type":"REQUEST","correlationId":"c"}`))
	want(t, e.CorrelationID, "c")
	want(t, e.InReplyTo, "")

	// A registration's correlationId answers the message that asked for it.
	e = decode(t, []byte(`{"type":"REQUEST","correlationId":"c","body":{"action":"registry.register"}}`))
	want(t, e.Act, canonical.ActInformCapabilities)
	want(t, e.InReplyTo, "c")
	want(t, e.Capabilities, (*canonical.Capabilities)(nil))

	// Destinations.
	for d, a := range map[string]canonical.Address{
		"*":            {Kind: canonical.AddressBroadcast},
		"topic:alerts": {Kind: canonical.AddressTopic, ID: "alerts"},
		"agent-b":      {Kind: canonical.AddressAgent, ID: "agent-b"},
	} {
		e = decode(t, []byte(`{"type":"PUBLISH","destination":"`+d+`"}`))
		want(t, e.Receiver, a)
	}
}

// TestDecodeFailedResult covers a RESPONSE with an error status, a result
// and no error object: a result whose outcome is failure, the status word
// kept, the result read, no error.
func TestDecodeFailedResult(t *testing.T) {
	tests := []struct{ body, status, result, form string }{
		{`{"status":"ERROR","result":{"passed":0}}`, "ERROR", `{"passed":0}`, "flat"},
		{`{"status":"TIMEOUT","result":[1,2]}`, "TIMEOUT", `[1,2]`, "flat"},
		{`{"status":"ERROR","result":false,"error":null}`, "ERROR", `false`, "flat+null-error"},
	}
	for _, tt := range tests {
		e := decode(t, []byte(`{"type":"RESPONSE","correlationId":"r-1","body":`+tt.body+`}`))
		want(t, e.Act, canonical.ActResult)
		want(t, e.Outcome, canonical.OutcomeFailure)
		want(t, e.Origin.Words.Get(canonical.KindOutcome), tt.status)
		want(t, e.Origin.Form, tt.form)
		want(t, e.Error, (*canonical.Error)(nil))
		jsonEq(t, "Result", e.Result, tt.result)
		want(t, e.InReplyTo, "r-1")
		want(t, len(e.Extra), 0)
	}
}

// TestDecodeUnknownCode checks that an error code collab has no meaning for
// is kept as the sender's word, with no canonical code.
func TestDecodeUnknownCode(t *testing.T) {
	e := decode(t, []byte(`{"type":"RESPONSE","correlationId":"r-1","body":{"status":"ERROR","error":{"code":"API_ERROR","message":"upstream said no"}}}`))
	want(t, e.Act, canonical.ActFailure)
	want(t, e.Error.Code, canonical.ErrorCode(""))
	want(t, e.Error.Message, "upstream said no")
	want(t, e.Origin.Words.Get(canonical.KindError), "API_ERROR")
}
