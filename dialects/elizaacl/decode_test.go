package elizaacl_test

import (
	"errors"
	"strings"
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

func extra(env *canonical.Envelope, path string) string {
	for _, f := range env.Extra {
		if f.Path() == path {
			return string(f.Value)
		}
	}
	return ""
}

// TestDecodeActs checks the canonical values each performative decodes to.
func TestDecodeActs(t *testing.T) {
	tests := []struct {
		sample string
		check  func(t *testing.T, env *canonical.Envelope)
	}{
		{"realworld_01_Jules_bce1787_TASK_REQUEST_full", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActRequest)
			want(t, "version", env.Origin.Version, "0.1.0")
			want(t, "id", env.ID, "msg_eddy_to_jules_001")
			want(t, "sender", env.Sender.ID, "Eddy")
			want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressAgent, ID: "Jules"})
			want(t, "reply_with", env.ReplyWith, "task_reply_001")
			want(t, "language", env.Language, "application/json")
			want(t, "ontology", env.Ontology, "elizaos:ontology:code/python/debug_request")
			want(t, "time", env.Time, canonical.Timestamp("YYYY-MM-DDTHH:MM:SSZ"))
			want(t, "operation", env.Operation.Name, "debug_code")
			want(t, "priority", env.Priority, canonical.PriorityNormal)
			want(t, "arguments is the raw object", strings.HasPrefix(string(env.Arguments), "{") && strings.Contains(string(env.Arguments), `"error_log": "IndexError"`), true)
			want(t, "description", strings.HasPrefix(env.Description, "User {{user1}} needs help"), true)
			want(t, "form", env.Origin.Form, "")
		}},
		{"made_task_request_high_priority", func(t *testing.T, env *canonical.Envelope) {
			want(t, "priority", env.Priority, canonical.PriorityHigh)
		}},
		{"realworld_08_Jules_cfbfeec_TASK_REQUEST_full", func(t *testing.T, env *canonical.Envelope) {
			want(t, "@type kept", extra(env, "payload.@type"), `"type.googleapis.com/elizaos.mcp.TaskRequestPayload"`)
		}},
		{"realworld_04_Jules_bce1787_TASK_REQUEST_partial", func(t *testing.T, env *canonical.Envelope) {
			want(t, "operation", env.Operation.Name, "debug_code")
			want(t, "no id", env.ID, "")
			want(t, "no receiver", env.Receiver.Kind, canonical.AddressNone)
		}},
		{"made_task_accept_iso_duration", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActAccept)
			want(t, "in_reply_to", env.InReplyTo, "4b7d2c1e-9a3f-4e8b-b1d6-0c5f7a2e9d41")
			want(t, "task_id", env.TaskID, "jules_task_refactor_017")
			want(t, "ttl", env.TTL, canonical.Duration{D: 5 * time.Minute, Set: true, ISO: true, Text: "PT5M"})
			want(t, "description", env.Description, "Starting task now.")
			want(t, "status kept", extra(env, "payload.status"), `"accepted"`)
		}},
		{"made_task_accept_seconds", func(t *testing.T, env *canonical.Envelope) {
			want(t, "ttl", env.TTL, canonical.Dur(300*time.Second))
		}},
		{"realworld_05_Jules_bce1787_TASK_ACCEPT_partial", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActAccept)
			want(t, "form", env.Origin.Form, "no-payload")
		}},
		{"realworld_10_Jules_cfbfeec_INFORM_RESULT_full", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActResult)
			want(t, "outcome", env.Outcome, canonical.OutcomePartial)
			want(t, "spelling", env.Origin.Words.Get(canonical.KindOutcome), "PARTIAL_SUCCESS")
			want(t, "result", strings.Contains(string(env.Result), `"request_for_user"`), true)
			want(t, "description", strings.HasPrefix(env.Description, "Initial analysis"), true)
			want(t, "artifacts kept", extra(env, "payload.artifacts"), `[]`)
		}},
		{"realworld_03_Jules_bce1787_INFORM_RESULT_full", func(t *testing.T, env *canonical.Envelope) {
			want(t, "outcome", env.Outcome, canonical.OutcomePartial)
			want(t, "no spelling needed", env.Origin.Words.Get(canonical.KindOutcome), "")
		}},
		{"made_task_reject", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActRefuse)
			want(t, "code", env.Error.Code, canonical.ErrUnavailable)
			want(t, "message", strings.HasPrefix(env.Error.Message, "Jules is working"), true)
			want(t, "status kept", extra(env, "payload.status"), `"rejected"`)
		}},
		{"made_failure", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActFailure)
			want(t, "code", env.Error.Code, canonical.ErrInternal)
			want(t, "status kept", extra(env, "payload.status"), `"failure"`)
		}},
		{"made_not_understood", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActNotUnderstood)
			want(t, "code", env.Error.Code, canonical.ErrInvalidMessage)
			want(t, "spelling", env.Origin.Words.Get(canonical.KindError), "unknown_ontology")
		}},
		{"made_query_if", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActQueryIf)
			want(t, "arguments is the payload", strings.HasPrefix(string(env.Arguments), "{\n    \"condition\""), true)
			want(t, "no extras", len(env.Extra), 0)
		}},
		{"made_query_ref", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActQueryRef)
			want(t, "arguments", strings.Contains(string(env.Arguments), `"reference": "latest_commit_hash"`), true)
		}},
		{"realworld_06_Jules_cfbfeec_QUERY_CAPABILITIES_partial", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActQueryCapabilities)
			want(t, "arguments", strings.Contains(string(env.Arguments), `"query_type": "specific"`), true)
			want(t, "no capabilities", env.Capabilities == nil, true)
		}},
		{"made_inform_capabilities_summary", func(t *testing.T, env *canonical.Envelope) {
			want(t, "act", env.Act, canonical.ActInformCapabilities)
			want(t, "outcome", env.Outcome, canonical.OutcomeSuccess)
			c := env.Capabilities
			want(t, "dialect", c.Dialect, "elizaacl")
			want(t, "topics", strings.Join(c.Topics, ","), "Software Engineering,Debugging,Python,API Development")
			want(t, "tools", len(c.Tools), 1)
			want(t, "tool name", c.Tools[0].Name, "EXECUTE_DELEGATED_CODING_TASK")
			want(t, "tool description", strings.HasPrefix(c.Tools[0].Description, "Receives an MCP TASK_REQUEST"), true)
			want(t, "raw", strings.HasPrefix(string(c.Raw), "{\n    \"status\""), true)
		}},
		{"realworld_07_Jules_cfbfeec_INFORM_CAPABILITIES_partial", func(t *testing.T, env *canonical.Envelope) {
			want(t, "in_reply_to", env.InReplyTo, "(message_id of Eddy's query)")
			want(t, "topics", strings.Join(env.Capabilities.Topics, ","), "Python,API Development")
		}},
	}
	for _, tc := range tests {
		t.Run(tc.sample, func(t *testing.T) { tc.check(t, decode(t, sample(t, tc.sample))) })
	}
}

func want[T comparable](t *testing.T, what string, got, w T) {
	t.Helper()
	if got != w {
		t.Errorf("%s = %v, want %v", what, got, w)
	}
}

// TestDecodeErrors checks that wrong types, unknown words and repeated
// members are refused with errors naming the dialect and the path.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name, msg, path, err string
	}{
		{"missing performative", `{"mcp_version":"0.1.0"}`, "performative",
			`elizaacl: performative: missing`},
		{"performative type", `{"performative":42}`, "performative",
			`elizaacl: performative: must be a string, got a number (42)`},
		{"unknown performative", `{"performative":"REQUEST"}`, "performative",
			`elizaacl: performative: unknown performative "REQUEST" (want one of [TASK_REQUEST TASK_ACCEPT TASK_REJECT INFORM_RESULT FAILURE NOT_UNDERSTOOD QUERY_IF QUERY_REF QUERY_CAPABILITIES INFORM_CAPABILITIES])`},
		{"repeated performative", `{"performative":"TASK_REQUEST","performative":"QUERY_IF"}`, "performative",
			`elizaacl: performative: repeated member (a message gives it once)`},
		{"sender type", `{"performative":"TASK_REQUEST","sender":"Eddy"}`, "sender",
			`elizaacl: sender: must be an object, got a string`},
		{"agent_id type", `{"performative":"TASK_REQUEST","receiver":{"agent_id":7}}`, "receiver.agent_id",
			`elizaacl: receiver.agent_id: must be a string, got a number (7)`},
		{"timestamp type", `{"performative":"TASK_REQUEST","timestamp":1718000000}`, "timestamp",
			`elizaacl: timestamp: must be a string, got a number (1718000000)`},
		{"payload type", `{"performative":"TASK_REQUEST","payload":[]}`, "payload",
			`elizaacl: payload: must be an object, got an array`},
		{"unknown priority", `{"performative":"TASK_REQUEST","payload":{"task_type":"x","priority":"urgent"}}`, "payload.priority",
			`elizaacl: payload.priority: unknown priority "urgent" (want one of [low medium high])`},
		{"task_type type", `{"performative":"TASK_REQUEST","payload":{"task_type":["x"]}}`, "payload.task_type",
			`elizaacl: payload.task_type: must be a string, got an array`},
		{"repeated task_type", `{"performative":"TASK_REQUEST","payload":{"task_type":"a","task_type":"b"}}`, "payload.task_type",
			`elizaacl: payload.task_type: repeated member (a message gives it once)`},
		{"eta text", `{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"soon"}}`, "payload.estimated_completion_time",
			`elizaacl: payload.estimated_completion_time: must be a number of seconds or an ISO 8601 duration like "PT5M", got "soon"`},
		{"eta negative", `{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":-5}}`, "payload.estimated_completion_time",
			`elizaacl: payload.estimated_completion_time: must be between 0 and 9223372036 seconds, got -5`},
		{"eta type", `{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":true}}`, "payload.estimated_completion_time",
			`elizaacl: payload.estimated_completion_time: must be a number of seconds or an ISO 8601 duration string, got a boolean`},
		{"unknown task_status", `{"performative":"INFORM_RESULT","payload":{"task_status":"done"}}`, "payload.task_status",
			`elizaacl: payload.task_status: unknown task_status "done" (want one of [success partial_success failure])`},
		{"reason_code type", `{"performative":"TASK_REJECT","payload":{"reason_code":404}}`, "payload.reason_code",
			`elizaacl: payload.reason_code: must be a string, got a number (404)`},
		{"error_text type", `{"performative":"FAILURE","payload":{"error_text":{}}}`, "payload.error_text",
			`elizaacl: payload.error_text: must be a string, got an object`},
		{"capabilities status", `{"performative":"INFORM_CAPABILITIES","payload":{"status":"ok"}}`, "payload.status",
			`elizaacl: payload.status: unknown status "ok" (want one of [success partial_success failure])`},
		{"capabilities type", `{"performative":"INFORM_CAPABILITIES","payload":{"capabilities":[]}}`, "payload.capabilities",
			`elizaacl: payload.capabilities: must be an object, got an array`},
		{"topic type", `{"performative":"INFORM_CAPABILITIES","payload":{"capabilities":{"topics":["Python",1]}}}`, "payload.capabilities.topics.1",
			`elizaacl: payload.capabilities.topics.1: must be a string, got a number (1)`},
		{"action name type", `{"performative":"INFORM_CAPABILITIES","payload":{"capabilities":{"actions":[{"name":null}]}}}`, "payload.capabilities.actions.0.name",
			`elizaacl: payload.capabilities.actions.0.name: must be a string, got null`},
		{"matched type", `{"performative":"INFORM_CAPABILITIES","payload":{"matched_capabilities":"python"}}`, "payload.matched_capabilities",
			`elizaacl: payload.matched_capabilities: must be an array, got a string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := codec().Decode([]byte(tc.msg))
			if err == nil {
				t.Fatalf("Decode accepted %s", tc.msg)
			}
			var de *dialects.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %T is not a *dialects.Error: %v", err, err)
			}
			if de.Dialect != "elizaacl" || de.Path != tc.path {
				t.Errorf("error names %s at %q, want elizaacl at %q", de.Dialect, de.Path, tc.path)
			}
			if err.Error() != tc.err {
				t.Errorf("error:\n got %s\nwant %s", err, tc.err)
			}
		})
	}
}

// TestDecodeLenient checks what Decode accepts that the spec leaves open.
func TestDecodeLenient(t *testing.T) {
	env := decode(t, []byte(`{"performative":"INFORM_RESULT","payload":{"task_status":"Success"}}`))
	want(t, "mixed-case outcome", env.Outcome, canonical.OutcomeSuccess)
	want(t, "spelling", env.Origin.Words.Get(canonical.KindOutcome), "Success")

	env = decode(t, []byte(`{"performative":"TASK_REJECT","payload":{"reason_code":"quota_exhausted"}}`))
	want(t, "open vocabulary: no code", env.Error.Code, canonical.ErrorCode(""))
	want(t, "open vocabulary: word kept", env.Origin.Words.Get(canonical.KindError), "quota_exhausted")

	env = decode(t, []byte(`{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":1.5}}`))
	want(t, "fractional seconds", env.TTL, canonical.Dur(1500*time.Millisecond))

	env = decode(t, []byte(`{"performative":"TASK_ACCEPT","in_reply_to":null,"payload":{"comments":""}}`))
	want(t, "null in_reply_to is absent", env.InReplyTo, "")
	want(t, "null kept", extra(env, "in_reply_to"), "null")
	want(t, "empty comments kept", extra(env, "payload.comments"), `""`)

	env = decode(t, []byte(`{"performative":"QUERY_REF","sender":{"agent_id":"Eddy","role":"coordinator"},"x-trace":"abc"}`))
	want(t, "sender member kept", extra(env, "sender.role"), `"coordinator"`)
	want(t, "top member kept", extra(env, "x-trace"), `"abc"`)
}
