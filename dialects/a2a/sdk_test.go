package a2a_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/errordetails"
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
)

// The SDK's JSON-RPC frame types are internal to it: these are the
// frames of JSON-RPC 2.0 with the SDK's types inside.
type (
	sdkRequest struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	sdkResponse struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      any             `json:"id"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *sdkError       `json:"error,omitempty"`
	}
	sdkError struct {
		Code    int                   `json:"code"`
		Message string                `json:"message"`
		Data    []*errordetails.Typed `json:"data,omitempty"`
	}
)

// meaning is what a frame says, read with the SDK's types: what the
// codec's envelope must say too.
type meaning struct {
	act                      canonical.Act
	id, inReplyTo            string
	skill, taskID, contextID string
	payload                  string // arguments or result, compact JSON
	text                     string // description or error message
	code                     int
}

// sdkMeaning reads frame with the SDK's types.
func sdkMeaning(t *testing.T, frame []byte) meaning {
	t.Helper()
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(frame, &probe); err != nil {
		t.Fatalf("not a JSON object: %v", err)
	}
	if _, ok := probe["method"]; ok {
		return sdkRequestMeaning(t, frame)
	}
	var resp sdkResponse
	if err := json.Unmarshal(frame, &resp); err != nil {
		t.Fatalf("the SDK's types do not read the response: %v", err)
	}
	m := meaning{inReplyTo: idText(resp.ID)}
	if resp.Error != nil {
		m.code, m.text = resp.Error.Code, resp.Error.Message
		return m
	}
	var task *a2a.Task
	var members map[string]json.RawMessage
	if err := json.Unmarshal(resp.Result, &members); err != nil {
		t.Fatalf("result: %v", err)
	}
	_, wrapped := members["task"]
	_, isMessage := members["message"]
	_, isUpdate := members["statusUpdate"]
	if !wrapped && !isMessage && !isUpdate {
		task = &a2a.Task{}
		if err := json.Unmarshal(resp.Result, task); err != nil {
			t.Fatalf("the SDK's Task does not read the result: %v", err)
		}
	} else {
		var ev a2a.StreamResponse
		if err := json.Unmarshal(resp.Result, &ev); err != nil {
			t.Fatalf("the SDK's StreamResponse does not read the result: %v", err)
		}
		switch e := ev.Event.(type) {
		case *a2a.Task:
			task = e
		case *a2a.Message:
			m.act, m.id, m.taskID, m.contextID = canonical.ActResult, e.ID, string(e.TaskID), e.ContextID
			m.payload = partsPayload(t, e.Parts)
			return m
		case *a2a.TaskStatusUpdateEvent:
			m.taskID, m.contextID = string(e.TaskID), e.ContextID
			statusMeaning(t, &m, e.Status)
			return m
		default:
			t.Fatalf("unexpected event %T", e)
		}
	}
	m.taskID, m.contextID = string(task.ID), task.ContextID
	statusMeaning(t, &m, task.Status)
	if m.act == canonical.ActResult {
		var parts a2a.ContentParts
		for _, a := range task.Artifacts {
			parts = append(parts, a.Parts...)
		}
		m.payload = partsPayload(t, parts)
	}
	return m
}

func sdkRequestMeaning(t *testing.T, frame []byte) meaning {
	var req sdkRequest
	if err := json.Unmarshal(frame, &req); err != nil {
		t.Fatalf("the SDK's types do not read the request: %v", err)
	}
	m := meaning{id: idText(req.ID)}
	switch req.Method {
	case "SendMessage", "SendStreamingMessage":
		var p a2a.SendMessageRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatalf("the SDK's SendMessageRequest does not read params: %v", err)
		}
		if p.Message.Role != a2a.MessageRoleUser {
			t.Errorf("role %s, want %s", p.Message.Role, a2a.MessageRoleUser)
		}
		m.act, m.taskID, m.contextID = canonical.ActRequest, string(p.Message.TaskID), p.Message.ContextID
		m.skill, _ = p.Message.Metadata["skill"].(string)
		m.payload = partsPayload(t, p.Message.Parts)
	case "GetTask":
		var p a2a.GetTaskRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatal(err)
		}
		m.act, m.taskID = canonical.ActRequest, string(p.ID)
	case "CancelTask":
		var p a2a.CancelTaskRequest
		if err := json.Unmarshal(req.Params, &p); err != nil {
			t.Fatal(err)
		}
		m.act, m.taskID = canonical.ActRequest, string(p.ID)
	default:
		t.Fatalf("method %q", req.Method)
	}
	return m
}

// statusMeaning reads a task status: its state's act and its message's text.
func statusMeaning(t *testing.T, m *meaning, s a2a.TaskStatus) {
	acts := map[a2a.TaskState]canonical.Act{
		a2a.TaskStateSubmitted: canonical.ActAccept, a2a.TaskStateWorking: canonical.ActAccept,
		a2a.TaskStateCompleted: canonical.ActResult, a2a.TaskStateFailed: canonical.ActFailure,
		a2a.TaskStateCanceled: canonical.ActFailure, a2a.TaskStateRejected: canonical.ActRefuse,
		a2a.TaskStateInputRequired: canonical.ActNeedsInput, a2a.TaskStateAuthRequired: canonical.ActNeedsInput,
	}
	act, ok := acts[s.State]
	if !ok {
		t.Fatalf("state %q", s.State)
	}
	m.act = act
	if s.Message != nil {
		var texts []string
		for _, p := range s.Message.Parts {
			if _, ok := p.Content.(a2a.Text); ok {
				texts = append(texts, p.Text())
			}
		}
		m.text = strings.Join(texts, "\n")
	}
	if m.text == "" && s.State == a2a.TaskStateCanceled {
		m.text = "canceled"
	}
}

// partsPayload is the value of a list of parts: its first data part, else
// {"text": ...} of its text parts joined.
func partsPayload(t *testing.T, parts a2a.ContentParts) string {
	var texts []string
	for _, p := range parts {
		switch c := p.Content.(type) {
		case a2a.Data:
			b, err := json.Marshal(c.Value)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		case a2a.Text:
			texts = append(texts, string(c))
		}
	}
	if len(texts) == 0 {
		return ""
	}
	b, _ := json.Marshal(map[string]string{"text": strings.Join(texts, "\n")})
	return string(b)
}

func idText(id any) string {
	switch v := id.(type) {
	case string:
		return v
	case float64:
		b, _ := json.Marshal(v)
		return string(b)
	}
	return ""
}

// envMeaning is what the codec's envelope says, in the same terms.
func envMeaning(env *canonical.Envelope) meaning {
	m := meaning{act: env.Act, id: env.ID, inReplyTo: env.InReplyTo, skill: env.Operation.Name,
		taskID: env.TaskID, contextID: env.CorrelationID}
	switch {
	case env.Act == canonical.ActRequest:
		m.payload = compact(env.Arguments)
	case env.Act == canonical.ActResult:
		m.payload = compact(env.Result)
		m.text = env.Description
	case env.Act.IsError() && env.Error != nil:
		m.text = env.Error.Message
		if strings.HasPrefix(env.Origin.Form, "error") {
			m.code, _ = strconv.Atoi(env.Origin.Words.Get(canonical.KindError))
		}
	default:
		m.text = env.Description
	}
	return m
}

func compact(raw canonical.JSON) string {
	if raw == "" {
		return ""
	}
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// same compares what the SDK read with what the codec decoded; a field
// the frame's kind does not have on one side is not compared.
func same(t *testing.T, sdk, env meaning) {
	t.Helper()
	if sdk.code != 0 {
		env.act, env.id, env.skill, env.taskID, env.contextID, env.payload = "", "", "", "", "", ""
	}
	if sdk.act != canonical.ActRequest {
		sdk.id = "" // an answer's message id is not the envelope's: in_reply_to names it
	}
	if sdk.act != canonical.ActResult && sdk.act != canonical.ActRequest {
		env.payload = ""
	}
	if sdk.act == canonical.ActResult && env.text != "" && sdk.text == "" {
		sdk.text = env.text // a Message answer's text is its result
	}
	if sdk != env {
		t.Errorf("the SDK reads\n  %+v\nthe codec decoded\n  %+v", sdk, env)
	}
}

// TestSamplesAsSDKReadsThem checks that the codec decodes every sample
// into what the SDK's types read in it.
func TestSamplesAsSDKReadsThem(t *testing.T) {
	c := codec()
	for _, s := range dialecttest.Samples(t, dialecttest.SamplesDir) {
		t.Run(s.Name, func(t *testing.T) {
			env := dialecttest.MustDecode(t, c, s.Data)
			same(t, sdkMeaning(t, s.Data), envMeaning(env))
		})
	}
}

// TestEncodedAsSDKReadsThem checks that every frame the codec writes for
// an envelope from another dialect is read by the SDK's types as what it
// meant.
func TestEncodedAsSDKReadsThem(t *testing.T) {
	c := codec()
	for _, act := range canonical.Acts {
		env := dialecttest.FullEnvelope(act)
		out, err := c.Encode(nil, env, dialecttest.EncodeContext())
		if err != nil {
			continue // a2a cannot say it
		}
		t.Run(string(act), func(t *testing.T) {
			if p := c.Validate(out); len(p) != 0 {
				t.Errorf("invalid: %v\n%s", p, out)
			}
			back := dialecttest.MustDecode(t, c, out)
			same(t, sdkMeaning(t, out), envMeaning(back))
			// What the SDK reads is what the other dialect's envelope said.
			sent := *env
			sent.Act = back.Act // query-if and query-ref are sent as requests
			want := envMeaning(&sent)
			if back.Act == canonical.ActRequest {
				want.inReplyTo = ""
			} else {
				want.id, want.skill = "", ""
			}
			if act == canonical.ActNotUnderstood {
				want.code = -32600 // timeout has no JSON-RPC code for a request not taken
			}
			same(t, sdkMeaning(t, out), want)
		})
	}
}

// TestSDKFramesDecode checks that frames the SDK's types marshal validate
// and decode into what they mean.
func TestSDKFramesDecode(t *testing.T) {
	c := codec()
	at := time.Date(2026, 11, 28, 10, 15, 0, 123456789, time.UTC)
	task := &a2a.Task{ID: "task-1", ContextID: "ctx-1", Status: a2a.TaskStatus{State: a2a.TaskStateCompleted, Timestamp: &at},
		Artifacts: []*a2a.Artifact{{ID: "art-1", Parts: a2a.ContentParts{a2a.NewDataPart(map[string]any{"sum": 5})}}}}
	msg := a2a.NewMessage(a2a.MessageRoleUser, a2a.NewDataPart(map[string]any{"a": 2, "b": 3}))
	msg.ID, msg.ContextID = "msg-1", "ctx-1"
	msg.SetMeta("skill", "math.add")
	agentMsg := a2a.NewMessageForTask(a2a.MessageRoleAgent, task, a2a.NewTextPart("which b?"), a2a.NewDataPart([]any{"b"}))
	agentMsg.ID = "msg-2"
	update := a2a.NewStatusUpdateEvent(task, a2a.TaskStateInputRequired, agentMsg)
	update.Status.Timestamp = &at
	frames := map[string]any{
		"send": sdkRequest{JSONRPC: "2.0", ID: "req-1", Method: "SendMessage",
			Params: mustJSON(t, a2a.SendMessageRequest{Message: msg, Config: &a2a.SendMessageConfig{AcceptedOutputModes: []string{"application/json"}}})},
		"get":    sdkRequest{JSONRPC: "2.0", ID: 4, Method: "GetTask", Params: mustJSON(t, a2a.GetTaskRequest{ID: "task-1"})},
		"cancel": sdkRequest{JSONRPC: "2.0", ID: "req-2", Method: "CancelTask", Params: mustJSON(t, a2a.CancelTaskRequest{ID: "task-1"})},
		"task":   sdkResponse{JSONRPC: "2.0", ID: "req-1", Result: mustJSON(t, a2a.StreamResponse{Event: task})},
		"bare":   sdkResponse{JSONRPC: "2.0", ID: "req-2", Result: mustJSON(t, task)},
		"message": sdkResponse{JSONRPC: "2.0", ID: "req-1",
			Result: mustJSON(t, a2a.StreamResponse{Event: a2a.NewMessage(a2a.MessageRoleAgent, a2a.NewTextPart("5"))})},
		"update": sdkResponse{JSONRPC: "2.0", ID: "req-1", Result: mustJSON(t, a2a.StreamResponse{Event: update})},
		"error": sdkResponse{JSONRPC: "2.0", ID: "req-2", Error: &sdkError{Code: -32002, Message: "task cannot be canceled",
			Data: []*errordetails.Typed{errordetails.NewErrorInfo("TASK_NOT_CANCELABLE", a2a.ProtocolDomain, map[string]string{"timestamp": "2026-11-28T10:15:00Z"})}}},
	}
	acts := map[string]canonical.Act{"send": canonical.ActRequest, "get": canonical.ActRequest, "cancel": canonical.ActRequest,
		"task": canonical.ActResult, "bare": canonical.ActResult, "message": canonical.ActResult,
		"update": canonical.ActNeedsInput, "error": canonical.ActRefuse}
	for name, f := range frames {
		t.Run(name, func(t *testing.T) {
			frame := mustJSON(t, f)
			if p := c.Validate(frame); len(p) != 0 {
				t.Errorf("the schema refuses the SDK's frame: %v\n%s", p, frame)
			}
			env := dialecttest.MustDecode(t, c, frame)
			if env.Act != acts[name] {
				t.Errorf("act %s, want %s", env.Act, acts[name])
			}
			same(t, sdkMeaning(t, frame), envMeaning(env))
			out, err := c.Encode(nil, env, dialecttest.EncodeContext())
			if err != nil || !dialecttest.JSONEqual(frame, out) {
				t.Errorf("round trip: %v\n got %s\nwant %s", err, out, frame)
			}
		})
	}
}

func mustJSON(t *testing.T, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
