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

// foreign returns an envelope as another dialect's decoder would give it.
func foreign(act canonical.Act) *canonical.Envelope {
	return &canonical.Envelope{
		Origin:   canonical.Origin{Dialect: "swarm", Version: "0.1.0"},
		ID:       "m-2",
		Act:      act,
		Sender:   canonical.Party{ID: "agent-2"},
		Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "agent-1"},
		Time:     "2024-01-11T10:00:03.000000",
	}
}

func losses(ctx *dialects.EncodeContext) string {
	var s []string
	for _, l := range ctx.Losses {
		s = append(s, l.String())
	}
	return strings.Join(s, "\n")
}

// TestEncodeForeign checks the messages written for envelopes of other
// dialects: whole envelopes, spec status words, stand-ins and
// approximations, each reported.
func TestEncodeForeign(t *testing.T) {
	tests := []struct {
		name   string
		env    func() *canonical.Envelope
		out    string
		losses []string // substrings, one per expected loss, in order
	}{
		{"request", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.Operation.Name = "process_data"
			e.Arguments = `{"data":"test"}`
			e.Priority = canonical.PriorityHigh
			e.CorrelationID = "c-9"
			e.TTL = canonical.Dur(30 * time.Second)
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_REQUEST","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"timestamp":"2024-01-11T10:00:03.000000","payload":{"task_type":"process_data","task_parameters":{"data":"test"},"priority":"high"}}`,
			[]string{"dropped correlation_id", "dropped ttl"}},
		{"request: capability as task_type, critical as high, topic receiver", func() *canonical.Envelope {
			e := foreign(canonical.ActRequest)
			e.Operation.Capability = "text-analysis"
			e.Priority = canonical.PriorityCritical
			e.Receiver = canonical.Address{Kind: canonical.AddressTopic, ID: "analysts"}
			e.Arguments = `["a","b"]`
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_REQUEST","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"analysts"},"timestamp":"2024-01-11T10:00:03.000000","payload":{"task_type":"text-analysis","task_parameters":{"value":["a","b"]},"priority":"high"}}`,
			[]string{"dropped operation.capability", `approximated receiver: elizaacl addresses agents only; topic "analysts"`, `filled payload.task_type: required payload.task_type is absent; wrote "text-analysis"`, "approximated arguments", "approximated priority: elizaacl cannot write priority critical as it is; wrote high"}},
		{"accept: in_reply_to from correlation id, ttl in seconds", func() *canonical.Envelope {
			e := foreign(canonical.ActAccept)
			e.CorrelationID = "req-7"
			e.TaskID = "T-1"
			e.TTL = canonical.Dur(90 * time.Second)
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_ACCEPT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"accepted","task_id_assigned":"T-1","estimated_completion_time":90}}`,
			[]string{"dropped correlation_id", `filled in_reply_to: required in_reply_to is absent; wrote "req-7"`}},
		{"accept: in_reply_to from task id, fractional and ISO ttl", func() *canonical.Envelope {
			e := foreign(canonical.ActAccept)
			e.TaskID = "T-1"
			e.TTL = canonical.Dur(1500 * time.Millisecond)
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_ACCEPT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"T-1","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"accepted","task_id_assigned":"T-1","estimated_completion_time":1.5}}`,
			[]string{`filled in_reply_to: required in_reply_to is absent; wrote "T-1"`}},
		{"accept: ISO ttl", func() *canonical.Envelope {
			e := foreign(canonical.ActAccept)
			e.InReplyTo = "req-7"
			e.TTL = canonical.Duration{D: 90 * time.Second, Set: true, ISO: true}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_ACCEPT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"accepted","estimated_completion_time":"PT1M30S"}}`,
			nil},
		{"result without outcome, no ids at all", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.ID, e.Time, e.Sender, e.Receiver = "", "", canonical.Party{}, canonical.Address{}
			e.Result = `{"processed":true}`
			return e
		}, `{"mcp_version":"0.1.0","message_id":"00000000-0000-4000-8000-00000000000b","performative":"INFORM_RESULT","sender":{"agent_id":"unknown"},"receiver":{"agent_id":"unknown"},"in_reply_to":"unknown","timestamp":"2026-01-02T03:04:05Z","payload":{"task_status":"success","result_details":{"processed":true}}}`,
			[]string{"filled sender.agent_id", "filled receiver.agent_id", `filled in_reply_to: required in_reply_to is absent; wrote "unknown"`, `filled payload.task_status: required payload.task_status is absent; wrote "success"`}},
		{"result with an error and no outcome", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.InReplyTo = "req-7"
			e.Error = &canonical.Error{Message: "tool crashed"}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"INFORM_RESULT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"task_status":"failure"}}`,
			[]string{"dropped error.message", `wrote "failure"`}},
		{"partial result", func() *canonical.Envelope {
			e := foreign(canonical.ActResult)
			e.InReplyTo = "req-7"
			e.Outcome = canonical.OutcomePartial
			e.Description = "half done"
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"INFORM_RESULT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"task_status":"partial_success","result_summary":"half done"}}`,
			nil},
		{"refuse with a known code", func() *canonical.Envelope {
			e := foreign(canonical.ActRefuse)
			e.InReplyTo = "req-7"
			e.Error = &canonical.Error{Code: canonical.ErrUnauthorized, Message: "not allowed"}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"TASK_REJECT","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"rejected","reason_code":"unauthorized","reason_text":"not allowed"}}`,
			nil},
		{"failure with another dialect's unknown code, broadcast", func() *canonical.Envelope {
			e := foreign(canonical.ActFailure)
			e.InReplyTo = "req-7"
			e.Receiver = canonical.Address{Kind: canonical.AddressBroadcast}
			e.Origin.SetWord(canonical.KindError, "DISK_FULL")
			e.Error = &canonical.Error{Message: "no space left", Retryable: new(bool)}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"FAILURE","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"*"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"failure","error_code":"DISK_FULL","error_text":"no space left"}}`,
			[]string{"dropped error.retryable", `approximated receiver: elizaacl addresses agents only; broadcast written as receiver.agent_id "*"`}},
		{"not understood", func() *canonical.Envelope {
			e := foreign(canonical.ActNotUnderstood)
			e.InReplyTo = "req-7"
			e.Error = &canonical.Error{Code: canonical.ErrInvalidArguments}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"NOT_UNDERSTOOD","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"reason_code":"invalid_payload_structure"}}`,
			nil},
		{"query-ref with a string argument", func() *canonical.Envelope {
			e := foreign(canonical.ActQueryRef)
			e.Arguments = `"latest_commit_hash"`
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"QUERY_REF","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"timestamp":"2024-01-11T10:00:03.000000","payload":{"value":"latest_commit_hash"}}`,
			[]string{`approximated arguments: elizaacl cannot write arguments "latest_commit_hash" as it is; wrote payload {"value": ...}`}},
		{"query-capabilities without arguments (a swarm handshake)", func() *canonical.Envelope {
			e := foreign(canonical.ActQueryCapabilities)
			e.Sender.Name = "Processor"
			e.Capabilities = &canonical.Capabilities{Tools: []canonical.Tool{{Name: "process_data"}}}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"QUERY_CAPABILITIES","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"timestamp":"2024-01-11T10:00:03.000000","payload":{"query_type":"summary"}}`,
			[]string{"dropped sender.name", "dropped capabilities"}},
		{"inform-capabilities from tools", func() *canonical.Envelope {
			e := foreign(canonical.ActInformCapabilities)
			e.InReplyTo = "req-7"
			e.Capabilities = &canonical.Capabilities{
				Topics: []string{"Python"},
				Tools: []canonical.Tool{
					{Name: "echo", Description: "echoes", InputSchema: `{"type":"object"}`},
					{Name: "ping"},
				},
			}
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"INFORM_CAPABILITIES","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"success","capabilities":{"topics":["Python"],"actions":[{"name":"echo","description":"echoes"},{"name":"ping"}]}}}`,
			[]string{`approximated capabilities: elizaacl actions carry only a name and a description; dropped the group, title, schemas and version of "echo"`}},
		{"inform-capabilities refused", func() *canonical.Envelope {
			e := foreign(canonical.ActInformCapabilities)
			e.InReplyTo = "req-7"
			e.Outcome = canonical.OutcomeFailure
			return e
		}, `{"mcp_version":"0.1.0","message_id":"m-2","performative":"INFORM_CAPABILITIES","sender":{"agent_id":"agent-2"},"receiver":{"agent_id":"agent-1"},"in_reply_to":"req-7","timestamp":"2024-01-11T10:00:03.000000","payload":{"status":"failure","capabilities":{"topics":[],"actions":[]}}}`,
			nil},
	}
	c := codec()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := dialecttest.EncodeContext()
			out, err := c.Encode(nil, tc.env(), ctx)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if !dialecttest.JSONEqual(out, []byte(tc.out)) {
				t.Errorf("Encode:\n got %s\nwant %s", out, tc.out)
			}
			if p := c.Validate(out); len(p) != 0 {
				t.Errorf("output does not validate: %v", p)
			}
			if len(ctx.Losses) != len(tc.losses) {
				t.Fatalf("losses:\n%s\nwant %d: %q", losses(ctx), len(tc.losses), tc.losses)
			}
			for i, l := range ctx.Losses {
				if !strings.Contains(l.String(), tc.losses[i]) {
					t.Errorf("loss %d = %q, want it to contain %q", i, l, tc.losses[i])
				}
			}
		})
	}
}

// TestEncodeRefuses checks that acts with no performative are refused.
func TestEncodeRefuses(t *testing.T) {
	for _, act := range []canonical.Act{canonical.ActEvent, canonical.ActNeedsInput} {
		dst := []byte("keep")
		out, err := codec().Encode(dst, foreign(act), dialecttest.EncodeContext())
		var de *dialects.Error
		if !errors.As(err, &de) || de.Dialect != "elizaacl" {
			t.Fatalf("%s: error %v, want a *dialects.Error of elizaacl", act, err)
		}
		if want := `elizaacl: cannot express act "` + string(act) + `": elizaacl has no performative for it`; err.Error() != want {
			t.Errorf("%s: error %q, want %q", act, err, want)
		}
		if string(out) != "keep" {
			t.Errorf("%s: dst changed to %q", act, out)
		}
	}
}

// TestRoundTripEdges checks that members the envelope cannot tell from
// absent (null, "", {}) and fragments come back as they were, with no
// losses and no stand-ins.
func TestRoundTripEdges(t *testing.T) {
	msgs := []string{
		`{"performative":"TASK_ACCEPT"}`,
		`{"performative":"TASK_ACCEPT","payload":{}}`,
		`{"performative":"TASK_ACCEPT","in_reply_to":null,"reply_with":"","payload":{"status":"accepted","comments":null,"task_id_assigned":"","estimated_completion_time":null}}`,
		`{"performative":"TASK_REQUEST","sender":{},"receiver":{"agent_id":""},"payload":{"task_type":"","priority":null,"task_parameters":null}}`,
		`{"performative":"TASK_REQUEST","sender":{"name":"Eddy"},"receiver":{"agent_id":"Jules","team":"coding"},"payload":{"task_type":"x","task_parameters":"inline text"}}`,
		`{"performative":"TASK_REJECT","payload":{"status":"declined","reason_code":"quota_exhausted","reason_text":null}}`,
		`{"performative":"NOT_UNDERSTOOD","in_reply_to":"m-1","payload":{"reason_code":"parsing_error"}}`,
		`{"performative":"NOT_UNDERSTOOD","in_reply_to":"m-1","payload":{"reason_code":"unknown_performative"}}`,
		`{"performative":"FAILURE","payload":{"error_code":"","error_text":""}}`,
		`{"performative":"INFORM_RESULT","payload":{"task_status":"FAILURE","result_details":null,"artifacts":[{"type":"log","content":"x"}]}}`,
		`{"performative":"INFORM_CAPABILITIES","payload":{}}`,
		`{"performative":"QUERY_IF","payload":{}}`,
		`{"performative":"QUERY_CAPABILITIES","mcp_version":"0.2.0","message_id":"","x":[1,2]}`,
		`{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":0.25}}`,
		`{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"PT1H30M"}}`,
		`{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"PT0.5S"}}`,
	}
	c := codec()
	for _, m := range msgs {
		env, err := c.Decode([]byte(m))
		if err != nil {
			t.Errorf("Decode %s: %v", m, err)
			continue
		}
		ctx := dialecttest.EncodeContext()
		out, err := c.Encode(nil, env, ctx)
		if err != nil {
			t.Errorf("Encode %s: %v", m, err)
			continue
		}
		if !dialecttest.JSONEqual([]byte(m), out) {
			t.Errorf("round trip:\n got %s\nwant %s", out, m)
		}
		if len(ctx.Losses) != 0 {
			t.Errorf("%s: losses %v", m, ctx.Losses)
		}
	}
}

// TestISODurationSpelling pins what happens to an ISO 8601 duration that is
// not in the canonical spelling: written back as it came while it says the
// same length (a round trip changes nothing), and in the canonical
// spelling (hours, minutes and seconds) once the length changed.
func TestISODurationSpelling(t *testing.T) {
	c := codec()
	for _, in := range []string{"P1D", "PT0M", "PT90S"} {
		msg := `{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"` + in + `"}}`
		env := decode(t, []byte(msg))
		out, _ := c.Encode(nil, env, dialecttest.EncodeContext())
		if string(out) != msg {
			t.Errorf("%s: got %s, want it as it came", in, out)
		}
	}
	env := decode(t, []byte(`{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"P1D"}}`))
	env.TTL.D += time.Hour
	out, _ := c.Encode(nil, env, dialecttest.EncodeContext())
	if want := `{"performative":"TASK_ACCEPT","payload":{"estimated_completion_time":"PT25H"}}`; string(out) != want {
		t.Errorf("a changed length: got %s, want %s", out, want)
	}
}

// TestTimestampVerbatim checks that a timestamp elizaacl cannot parse is
// written as it came, from any dialect.
func TestTimestampVerbatim(t *testing.T) {
	e := foreign(canonical.ActRequest)
	e.Operation.Name = "x"
	e.Time = "YYYY-MM-DDTHH:MM:SSZ"
	ctx := dialecttest.EncodeContext()
	out, _ := codec().Encode(nil, e, ctx)
	if !strings.Contains(string(out), `"timestamp":"YYYY-MM-DDTHH:MM:SSZ"`) || len(ctx.Losses) != 0 {
		t.Errorf("got %s, losses %v", out, ctx.Losses)
	}
}
