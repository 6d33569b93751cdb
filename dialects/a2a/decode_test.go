package a2a_test

import (
	"errors"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// TestDecodeSamples checks what each sample means canonically: its act,
// its ids and its payload.
func TestDecodeSamples(t *testing.T) {
	type want struct {
		act                                    canonical.Act
		id, inReplyTo, taskID, correlation, op string
		receiver                               string
		args, result, description, inputs      canonical.JSON
		details                                canonical.JSON
		code                                   canonical.ErrorCode
		message, form                          string
	}
	cases := map[string]want{
		"sdk_send_message_data": {act: canonical.ActRequest, id: "req-1", op: "weather.forecast",
			args: `{"city": "Lisbon", "days": 3}`, form: "send"},
		"sdk_send_message_text": {act: canonical.ActRequest, id: "7", correlation: "ctx-123", op: "jokes",
			args: `{"text":"tell me a joke"}`, form: "send,id=number"},
		"made_send_streaming_continue": {act: canonical.ActRequest, id: "req-3", taskID: "task-123", correlation: "ctx-123",
			op: "travel.book", args: `{"date": "2026-12-01"}`, form: "send"},
		"made_send_to_receiver": {act: canonical.ActRequest, id: "req-9", op: "debug_code", receiver: "Jules",
			args: `{"code_to_debug": "print(1/0)"}`, form: "send"},
		"sdk_get_task":    {act: canonical.ActRequest, id: "123", taskID: "task-123", form: "get"},
		"sdk_cancel_task": {act: canonical.ActRequest, id: "req-5", taskID: "task-123", form: "cancel"},
		"sdk_result_task_submitted": {act: canonical.ActAccept, inReplyTo: "req-1", taskID: "task-123",
			correlation: "ctx-123", form: "task"},
		"made_result_task_completed": {act: canonical.ActResult, inReplyTo: "req-1", taskID: "task-123", correlation: "ctx-123",
			result: `{"days": ["sun", "sun", "sun"]}`, description: "three days of sun", form: "task"},
		"made_result_task_text_artifacts": {act: canonical.ActResult, inReplyTo: "req-2", taskID: "task-124", correlation: "ctx-123",
			result: `{"text":"Why did the gopher cross the road?\nTo get to the other side."}`, form: "task"},
		"sdk_result_message": {act: canonical.ActResult, inReplyTo: "req-1", result: `{"text":"Hello"}`, form: "message"},
		"made_result_message_data": {act: canonical.ActResult, inReplyTo: "req-1", taskID: "task-123",
			correlation: "ctx-123", result: `{"sum": 5}`, form: "message"},
		"made_result_task_failed": {act: canonical.ActFailure, inReplyTo: "req-1", taskID: "task-123", correlation: "ctx-123",
			message: "the forecast service is down", form: "task"},
		"made_result_task_failed_code": {act: canonical.ActFailure, inReplyTo: "req-1", taskID: "task-126", correlation: "ctx-123",
			code: canonical.ErrNotFound, message: "no skill horoscope", details: `{"skill": "horoscope"}`, form: "task"},
		"made_result_task_rejected": {act: canonical.ActRefuse, inReplyTo: "req-1", taskID: "task-125", correlation: "ctx-123",
			message: "no such skill: horoscope", form: "task"},
		"sdk_result_bare_task_canceled": {act: canonical.ActFailure, inReplyTo: "req-5", taskID: "task-123", correlation: "ctx-123",
			message: "canceled", form: "bare-task,canceled-implied"},
		"sdk_result_bare_task_completed": {act: canonical.ActResult, inReplyTo: "123", taskID: "task-123", correlation: "ctx-123",
			form: "bare-task"},
		"made_result_task_input_required": {act: canonical.ActNeedsInput, inReplyTo: "req-3", taskID: "task-123", correlation: "ctx-123",
			description: "which date?", inputs: `[{"id": "date", "type": "string", "description": "the travel date"}]`, form: "task"},
		"made_status_update_working": {act: canonical.ActAccept, inReplyTo: "req-3", taskID: "task-123", correlation: "ctx-123",
			description: "looking up flights", form: "status-update"},
		"sdk_error_task_not_found": {act: canonical.ActFailure, inReplyTo: "123", code: canonical.ErrNotFound,
			message: "task not found", form: "error", details: `[{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "domain": "a2a-protocol.org", "reason": "TASK_NOT_FOUND", "metadata": {"timestamp": "2026-11-28T10:15:00Z"}}]`},
		"sdk_error_parse": {act: canonical.ActNotUnderstood, code: canonical.ErrInvalidMessage,
			message: "parse error: invalid character '}' looking for beginning of value", form: "error,id=null"},
		"made_error_invalid_params": {act: canonical.ActNotUnderstood, inReplyTo: "7", code: canonical.ErrInvalidArguments,
			message: "invalid params: params.message.parts: must not be empty", form: "error,id=number",
			details: `[{"@type": "type.googleapis.com/google.protobuf.Struct", "field": "params.message.parts"}]`},
		"made_error_unknown_code": {act: canonical.ActFailure, inReplyTo: "req-9", message: "quota exceeded for this tenant", form: "error"},
	}
	c := codec()
	samples := dialecttest.Samples(t, dialecttest.SamplesDir)
	if len(samples) != len(cases) {
		t.Errorf("%d samples, %d cases: every sample needs its case", len(samples), len(cases))
	}
	for _, s := range samples {
		t.Run(s.Name, func(t *testing.T) {
			w, ok := cases[s.Name]
			if !ok {
				t.Fatal("no case")
			}
			e := dialecttest.MustDecode(t, c, s.Data)
			var code canonical.ErrorCode
			var message string
			var details canonical.JSON
			if e.Error != nil {
				code, message, details = e.Error.Code, e.Error.Message, e.Error.Details
			}
			got := want{act: e.Act, id: e.ID, inReplyTo: e.InReplyTo, taskID: e.TaskID, correlation: e.CorrelationID,
				op: e.Operation.Name, receiver: e.Receiver.ID, args: e.Arguments, result: e.Result, description: canonical.JSON(e.Description),
				inputs: e.Inputs, code: code, message: message, form: e.Origin.Form, details: details}
			if got != w {
				t.Errorf("got  %+v\nwant %+v", got, w)
			}
		})
	}
}

// TestDecodeErrors checks that what the codec cannot read is refused with
// the dialect, the path and the problem.
func TestDecodeErrors(t *testing.T) {
	cases := []struct {
		name, msg, path, problem string
	}{
		{"no kind", `{"jsonrpc":"2.0","id":"1"}`, "", "a frame has a method (a request), a result or an error"},
		{"other method", `{"jsonrpc":"2.0","id":"1","method":"ListTasks","params":{}}`, "method",
			`"ListTasks" is not a method the a2a dialect translates (want SendMessage, SendStreamingMessage, GetTask or CancelTask)`},
		{"id object", `{"jsonrpc":"2.0","id":{},"method":"GetTask","params":{"id":"t"}}`, "id", "must be a string, a number or null, got an object"},
		{"part text", `{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"1","role":"ROLE_USER","parts":[{"text":1}]}}}`,
			"params.message.parts.0.text", "must be a string, got a number (1)"},
		{"skill", `{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"1","role":"ROLE_USER","parts":[{"data":{}}],"metadata":{"skill":2}}}}`,
			"params.message.metadata.skill", "must be a string, got a number (2)"},
		{"receiver", `{"jsonrpc":"2.0","id":"1","method":"SendMessage","params":{"message":{"messageId":"1","role":"ROLE_USER","parts":[{"data":{}}],"metadata":{"skill":"s","receiver":[]}}}}`,
			"params.message.metadata.receiver", "must be a string, got an array"},
		{"no state", `{"jsonrpc":"2.0","id":"1","result":{"task":{"id":"t","contextId":"c","status":{}}}}`,
			"result.task.status.state", "missing: a task's state says what the answer is"},
		{"unknown state", `{"jsonrpc":"2.0","id":"1","result":{"statusUpdate":{"taskId":"t","contextId":"c","status":{"state":"TASK_STATE_UNSPECIFIED"}}}}`,
			"result.statusUpdate.status.state", `unknown task state "TASK_STATE_UNSPECIFIED"`},
		{"artifact update", `{"jsonrpc":"2.0","id":"1","result":{"artifactUpdate":{}}}`, "result.artifactUpdate",
			"an artifact update is not an answer the a2a dialect translates (a task, a message or a status update is)"},
		{"code", `{"jsonrpc":"2.0","id":"1","error":{"code":"x","message":"m"}}`, "error.code", "must be a whole number, got a string"},
	}
	c := codec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := c.Decode([]byte(tc.msg))
			var de *dialects.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v, want a *dialects.Error", err)
			}
			if de.Dialect != "a2a" || de.Path != tc.path || len(de.Problem) < len(tc.problem) || de.Problem[:len(tc.problem)] != tc.problem {
				t.Errorf("got %q\nwant a2a: %s: %s", err, tc.path, tc.problem)
			}
		})
	}
}
