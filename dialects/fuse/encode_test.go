package fuse_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/mcp-bridge/mcp-bridge/dialects/fuse"
	"github.com/tidwall/gjson"
)

// foreign returns an envelope as another dialect would give it.
func foreign(act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		Origin:   canonical.Origin{Dialect: "swarm", Form: fuse.FormGuide},
		ID:       "m-1",
		Act:      act,
		Sender:   canonical.Party{ID: "agent-a"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "agent-b"},
		Time:     "2026-01-02T03:04:05Z",
	}
}

type lossWant struct {
	kind    dialects.LossKind
	concept canonical.Concept
}

func encodeForeign(t *testing.T, env *canonical.Envelope) (gjson.Result, []dialects.Loss) {
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

func hasLoss(losses []dialects.Loss, w lossWant) bool {
	for _, l := range losses {
		if l.Concept == w.concept && (l.Kind == w.kind || (w.kind == dialects.Approximated && strings.Contains(l.Message(), "wrote"))) {
			return true
		}
	}
	return false
}

// TestEncodeForeign checks what is written, filled and approximated for
// envelopes of other dialects.
func TestEncodeForeign(t *testing.T) {
	cases := []struct {
		name   string
		env    func() *canonical.Envelope
		want   map[string]string // gjson path -> raw JSON value ("" = absent)
		losses []lossWant
	}{
		{"bare request", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.ID, e.Time, e.Sender = "", "", canonical.Party{}
			return e
		}, map[string]string{
			"version": `"1.0"`, "messageType": `"request"`, "id": `"00000000-0000-4000-8000-00000000000b"`,
			"timestamp": `"2026-01-02T03:04:05Z"`, "source": `{"agentId":"unknown"}`, "target": `{"agentId":"agent-b"}`,
			"content": `{"action":"request"}`, "requestId": ``,
		}, []lossWant{{dialects.Filled, canonical.CSender}, {dialects.Filled, canonical.COperation}}},
		{"request", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.Sender.Name = "Agent A"
			e.Operation = canonical.Operation{Capability: "math", Name: "calculate"}
			e.Arguments = `{"expression":"2 + 2"}`
			e.ConversationID, e.CorrelationID, e.SessionID = "conv-1", "corr-1", "sess-1"
			e.Metadata = `{"origin":"ide"}`
			e.Authentication = `{"type":"jwt","token":"t"}`
			e.Extensions = `[{"name":"streaming-response"}]`
			return e
		}, map[string]string{
			"source":         `{"agentId":"agent-a","name":"Agent A"}`,
			"content":        `{"capability":"math","action":"calculate","parameters":{"expression":"2 + 2"},"contextId":"conv-1"}`,
			"metadata":       `{"origin":"ide","correlationId":"corr-1","sessionId":"sess-1"}`,
			"authentication": `{"type":"jwt","token":"t"}`, "extensions": `[{"name":"streaming-response"}]`,
		}, nil},
		{"query-if", func() *canonical.Envelope {
			e := foreign(canonical.ActQueryIf)
			e.Operation.Name = "is-ready"
			return e
		}, map[string]string{"messageType": `"request"`, "content": `{"action":"is-ready"}`}, []lossWant{{dialects.Approximated, canonical.CAct}}},
		{"wrapped values", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.Operation.Name = "echo"
			e.Arguments, e.Metadata, e.Authentication, e.Extensions = `[1,2]`, `"m"`, `"token-1"`, `{"name":"x"}`
			return e
		}, map[string]string{
			"content.parameters": `{"value":[1,2]}`, "metadata": `{"value":"m"}`,
			"authentication": `{"value":"token-1"}`, "extensions": `[{"name":"x"}]`,
		}, []lossWant{{dialects.Approximated, canonical.CArguments}, {dialects.Approximated, canonical.CMetadata}, {dialects.Approximated, canonical.CAuthentication}, {dialects.Approximated, canonical.CExtensions}}},
		{"event to a topic", func() *canonical.Envelope {
			e := foreign(canonical.ActEvent)
			e.Receiver = canonical.Address{Kind: canonical.AddressTopic, ID: "builds"}
			e.Operation.Name = "build-finished"
			e.Arguments = `{"ok":true}`
			return e
		}, map[string]string{"target": ``, "content": `{"eventType":"build-finished","data":{"ok":true}}`}, []lossWant{{dialects.Approximated, canonical.CReceiver}}},
		{"broadcast event", func() *canonical.Envelope {
			e := foreign(canonical.ActEvent)
			e.Receiver = canonical.Address{Kind: canonical.AddressBroadcast}
			return e
		}, map[string]string{"target": ``, "content": `{"eventType":"event"}`}, []lossWant{{dialects.Filled, canonical.COperation}}},
		{"request to a topic", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.Receiver = canonical.Address{Kind: canonical.AddressTopic, ID: "workers", Name: "Workers"}
			e.Operation.Name = "x"
			return e
		}, map[string]string{"target": ``}, []lossWant{{dialects.Approximated, canonical.CReceiver}, {dialects.Dropped, canonical.CReceiverName}}},
		{"result", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.InReplyTo, e.Outcome, e.Result = "req-1", canonical.OutcomeSuccess, `{"result":4}`
			return e
		}, map[string]string{"requestId": ``, "content": `{"status":"success","data":{"result":4},"requestId":"req-1"}`}, nil},
		{"result quoting its correlation id", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.CorrelationID, e.TaskID, e.Result = "corr-9", "task-9", `"done"`
			return e
		}, map[string]string{"content": `{"status":"success","data":"done","requestId":"corr-9"}`, "metadata": `{"correlationId":"corr-9"}`},
			[]lossWant{{dialects.Filled, canonical.CInReplyTo}, {dialects.Filled, canonical.COutcome}, {dialects.Dropped, canonical.CTaskID}}},
		{"result quoting its task id", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.TaskID, e.Outcome = "task-9", canonical.OutcomePartial
			return e
		}, map[string]string{"content": `{"status":"success","requestId":"task-9"}`}, []lossWant{{dialects.Filled, canonical.CInReplyTo}, {dialects.Approximated, canonical.COutcome}}},
		{"result quoting nothing", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.Outcome = canonical.OutcomeSuccess
			return e
		}, map[string]string{"content.requestId": `"unknown"`}, []lossWant{{dialects.Filled, canonical.CInReplyTo}}},
		{"result that failed", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.InReplyTo, e.Outcome, e.Result = "req-1", canonical.OutcomeFailure, `{"partial":true}`
			e.Error = &canonical.Error{Message: "disk full"}
			return e
		}, map[string]string{"content": `{"status":"error","data":{"partial":true},"requestId":"req-1"}`},
			[]lossWant{{dialects.Dropped, canonical.CErrorMessage}}},
		{"result that failed with no result", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.InReplyTo, e.Outcome = "req-1", canonical.OutcomeFailure
			return e
		}, map[string]string{"content": `{"status":"error","data":null,"requestId":"req-1"}`},
			[]lossWant{{dialects.Filled, canonical.CResult}}},
		{"failure", func() *canonical.Envelope {
			e := foreign(canonical.ActFailure)
			e.InReplyTo = "req-1"
			e.Error = &canonical.Error{Code: canonical.ErrNotFound, Message: "no such tool", Details: `{"tool":"x"}`, Retryable: new(bool)}
			return e
		}, map[string]string{"content": `{"status":"error","error":{"code":"capability-not-found","message":"no such tool","details":{"tool":"x"}},"requestId":"req-1"}`},
			[]lossWant{{dialects.Dropped, canonical.CErrorRetryable}}},
		{"failure with no error", func() *canonical.Envelope {
			e := foreign(canonical.ActFailure)
			e.InReplyTo = "req-1"
			return e
		}, map[string]string{"content.error": `{"code":"EXECUTION_FAILED","message":"execution-failed"}`}, []lossWant{{dialects.Filled, canonical.CErrorMessage}}},
		{"refuse", func() *canonical.Envelope {
			e := foreign(canonical.ActRefuse)
			e.InReplyTo = "req-1"
			e.Error = &canonical.Error{Message: "busy"}
			return e
		}, map[string]string{"content.error": `{"code":"REJECTED","message":"busy"}`}, nil},
		{"not understood", func() *canonical.Envelope {
			e := foreign(canonical.ActNotUnderstood)
			e.InReplyTo = "req-1"
			e.Error = &canonical.Error{Message: "bad JSON"}
			return e
		}, map[string]string{"content.error": `{"code":"INVALID_MESSAGE","message":"bad JSON"}`}, nil},
		{"failure that reads back as refuse", func() *canonical.Envelope {
			e := foreign(canonical.ActFailure)
			e.InReplyTo = "req-1"
			e.Error = &canonical.Error{Code: canonical.ErrRejected, Message: "no"}
			return e
		}, map[string]string{"content.error.code": `"REJECTED"`}, []lossWant{{dialects.Approximated, canonical.CAct}}},
		{"error to all", func() *canonical.Envelope {
			e := foreign(canonical.ActFailure)
			e.InReplyTo = "req-1"
			e.Receiver = canonical.Address{Kind: canonical.AddressBroadcast}
			e.Error = &canonical.Error{Code: canonical.ErrInternal, Message: "crash"}
			return e
		}, map[string]string{"target": ``, "content.error.code": `"INTERNAL_ERROR"`}, []lossWant{{dialects.Approximated, canonical.CReceiver}}},
		{"query capabilities", func() *canonical.Envelope {
			e := foreign(canonical.ActQueryCapabilities)
			e.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{{Name: "echo"}}}
			return e
		}, map[string]string{"messageType": `"request"`, "content": `{"capability":"discovery","action":"list-capabilities"}`},
			[]lossWant{{dialects.Dropped, canonical.CCapabilities}}},
		{"declaration answering a query", func() *canonical.Envelope {
			e := foreign(canonical.ActInformCapabilities)
			e.InReplyTo = "req-caps"
			e.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{
				{Name: "sentiment", Capability: "text", Title: "Sentiment", Description: "Scores text",
					InputSchema:  `{"type":"object","properties":{"text":{"type":"string","description":"The text"},"lang":{"type":"string","default":"en","enum":["en","de"]}},"required":["text"]}`,
					OutputSchema: `{"type":"object"}`},
				{Name: "echo"},
				{Name: "entities", Capability: "text", InputSchema: `{"type":"object","properties":{}}`, Version: "2.1"},
			}}
			return e
		}, map[string]string{
			"messageType": `"response"`, "content.requestId": `"req-caps"`,
			"content.capabilities": `[{"id":"text","name":"text","version":"2.1","actions":[` +
				`{"id":"sentiment","name":"Sentiment","description":"Scores text","parameters":[` +
				`{"name":"text","type":"string","required":true,"description":"The text"},` +
				`{"name":"lang","type":"string","required":false,"default":"en","enum":["en","de"]}],"returns":{"type":"object"}},` +
				`{"id":"entities","name":"entities","parameters":[]}]},` +
				`{"id":"default","name":"default","actions":[{"id":"echo","name":"echo"}]}]`,
		}, nil},
		{"unsolicited declaration", func() *canonical.Envelope {
			e := foreign(canonical.ActInformCapabilities)
			e.Receiver = canonical.Address{Kind: canonical.AddressBroadcast}
			e.Capabilities = &canonical.Capabilities{Topics: []string{"weather"}, Tools: []canonical.Tool{
				{Name: "forecast", InputSchema: `{"type":"object","properties":{"days":{"type":"integer","minimum":1}},"additionalProperties":false}`},
				{Name: "raw", InputSchema: `{"type":"string"}`},
			}}
			return e
		}, map[string]string{
			"messageType": `"event"`, "target": ``, "content.eventType": `"capabilities"`, "content.requestId": ``,
			"content.capabilities": `[{"id":"default","name":"default","actions":[` +
				`{"id":"forecast","name":"forecast","parameters":[{"name":"days","type":"integer","required":false}]},` +
				`{"id":"raw","name":"raw"}]}]`,
		}, []lossWant{{dialects.Approximated, canonical.CCapabilities}}},
		{"actions of one capability in two versions", func() *canonical.Envelope {
			e := foreign(canonical.ActInformCapabilities)
			e.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{
				{Name: "a", Capability: "text", Version: "1.0"},
				{Name: "b", Capability: "text", Version: "1.0"},
				{Name: "c", Capability: "text", Version: "2.0"},
			}}
			return e
		}, map[string]string{
			"content.capabilities": `[{"id":"text","name":"text","version":"1.0","actions":[` +
				`{"id":"a","name":"a"},{"id":"b","name":"b"},{"id":"c","name":"c"}]}]`,
		}, []lossWant{{dialects.Approximated, canonical.CCapabilities}}},
		{"declaration of nothing", func() *canonical.Envelope {
			return foreign(canonical.ActInformCapabilities)
		}, map[string]string{"messageType": `"event"`, "content.capabilities": `[]`}, []lossWant{{dialects.Filled, canonical.CCapabilities}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			msg, losses := encodeForeign(t, tc.env())
			for path, want := range tc.want {
				got := msg.Get(path)
				if want == "" {
					if got.Exists() {
						t.Errorf("%s = %s, want absent", path, got.Raw)
					}
					continue
				}
				if !dialecttest.JSONEqual([]byte(got.Raw), []byte(want)) {
					t.Errorf("%s\n got %s\nwant %s", path, got.Raw, want)
				}
			}
			for _, w := range tc.losses {
				if !hasLoss(losses, w) {
					t.Errorf("no %s loss of %s in %v", w.kind, w.concept, losses)
				}
			}
			if tc.losses == nil && len(losses) != 0 {
				t.Errorf("losses %v, want none", losses)
			}
			back, err := codec().Decode([]byte(msg.Raw))
			if err != nil {
				t.Fatalf("output does not decode: %v", err)
			}
			if e := tc.env(); back.Act != e.Act && !hasLoss(losses, lossWant{dialects.Approximated, canonical.CAct}) {
				t.Errorf("decodes back as %s, want %s", back.Act, e.Act)
			}
		})
	}
}

// TestEncodeRefused checks the acts fuse has no form for.
func TestEncodeRefused(t *testing.T) {
	for _, act := range []canonical.Act{canonical.ActAccept, canonical.ActNeedsInput} {
		dst := []byte("x")
		out, err := codec().Encode(dst, foreign(act), dialecttest.EncodeContext())
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != fuse.Name || !strings.Contains(de.Problem, string(act)) {
			t.Errorf("%s: error %v, want a fuse *dialects.Error naming the act", act, err)
		}
		if string(out) != "x" {
			t.Errorf("%s: dst changed to %q", act, out)
		}
	}
}

// TestCapabilitiesFromOtherDialects checks that a declaration built from
// tools decodes back to the same tools.
func TestCapabilitiesFromOtherDialects(t *testing.T) {
	tools := []canonical.Tool{
		{Name: "sentiment", Capability: "text", Title: "Sentiment", Description: "Scores text",
			InputSchema: `{"type":"object","properties":{"text":{"type":"string","description":"The text"}},"required":["text"]}`, OutputSchema: `{"type":"object"}`},
		{Name: "echo", Capability: "default", Title: "echo", Version: "0.3"},
	}
	e := foreign(canonical.ActInformCapabilities)
	e.Capabilities = &canonical.Capabilities{Tools: tools}
	msg, _ := encodeForeign(t, e)
	back := decode(t, []byte(msg.Raw))
	if back.Capabilities == nil || len(back.Capabilities.Tools) != len(tools) {
		t.Fatalf("capabilities %+v", back.Capabilities)
	}
	for i, got := range back.Capabilities.Tools {
		want := tools[i]
		if got.Name != want.Name || got.Capability != want.Capability || got.Title != want.Title || got.Description != want.Description || got.Version != want.Version ||
			!sameJSON(got.InputSchema, want.InputSchema) || !sameJSON(got.OutputSchema, want.OutputSchema) {
			t.Errorf("tool %d\n got %+v\nwant %+v", i, got, want)
		}
	}
}

func sameJSON(a, b canonical.JSON) bool {
	if a == "" || b == "" {
		return a == b
	}
	return dialecttest.JSONEqual([]byte(a), []byte(b))
}
