package refagent

import (
	"os"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestHandle feeds single frames to Handle and checks the replies: what
// each act asks of the agent, and the correlation each dialect needs.
func TestHandle(t *testing.T) {
	eddy, err := os.ReadFile("../examples/eddy-task-request.json")
	if err != nil {
		t.Fatal(err)
	}
	from := canonical.Party{ID: "Eddy"}
	to := canonical.Address{Kind: canonical.AddressAgent, ID: "Jules"}
	cases := []struct {
		name    string
		dialect string
		frame   []byte
		act     canonical.Act // the reply's act; "" for no reply
		check   func(t *testing.T, reply *canonical.Envelope)
		// accepted: a TASK_ACCEPT, quoting the request as the reply does,
		// comes first (a request in a dialect with an accept of its own)
		accepted bool
	}{
		{name: "the spec's Eddy asks Jules to debug", dialect: "elizaacl", frame: eddy, act: canonical.ActResult, accepted: true,
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "task_reply_001" || r.Receiver.ID != "Eddy" || r.Sender.ID != "Jules" || r.Outcome != canonical.OutcomeSuccess {
					t.Errorf("reply %+v", r)
				}
				fixed := jsonValue(t, string(r.Result)).(map[string]any)["fixed_code"]
				if fixed != "def parse(lines):\n    return [l.split(' ')[3] for l in lines if len(l.split(' ')) > 3]\n" {
					t.Errorf("fixed_code %q", fixed)
				}
				if r.Description != "debug_code: bug found and fixed" {
					t.Errorf("result_summary %q", r.Description)
				}
			}},
		{name: "capability query", dialect: "elizaacl", act: canonical.ActInformCapabilities,
			frame: encode(t, "elizaacl", &canonical.Envelope{Act: canonical.ActQueryCapabilities, ID: "q1", Sender: from, Receiver: to}),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "q1" || r.Receiver.ID != "Eddy" || r.Capabilities == nil || len(r.Capabilities.Tools) != len(ToolNames()) {
					t.Errorf("reply %+v caps %+v", r, r.Capabilities)
				}
			}},
		{name: "query-ref is refused", dialect: "elizaacl", act: canonical.ActRefuse,
			frame: encode(t, "elizaacl", &canonical.Envelope{Act: canonical.ActQueryRef, ID: "q2", ReplyWith: "rw2", Sender: from, Receiver: to, Arguments: `{"reference":"x"}`}),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "rw2" || r.Error == nil || r.Error.Code != canonical.ErrRejected || !strings.Contains(r.Error.Message, "query-ref") {
					t.Errorf("reply %+v error %+v", r, r.Error)
				}
			}},
		{name: "swarm handshake", dialect: "swarm", act: canonical.ActInformCapabilities,
			frame: encode(t, "swarm", &canonical.Envelope{Act: canonical.ActQueryCapabilities, ID: "h1", Sender: from, Receiver: to, Capabilities: &canonical.Capabilities{}}),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "h1" || r.Outcome != canonical.OutcomeSuccess || len(r.Capabilities.Tools) != len(ToolNames()) {
					t.Errorf("reply %+v caps %+v", r, r.Capabilities)
				}
			}},
		{name: "bluelabel answers by task id", dialect: "bluelabel", act: canonical.ActResult,
			frame: encode(t, "bluelabel", &canonical.Envelope{Act: canonical.ActRequest, TaskID: "T-1", Sender: canonical.Party{ID: "EDDY"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "JULES"}, Operation: op("sleep"), Arguments: `{"ms":1}`}),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.TaskID != "T-1" || r.Receiver.ID != "EDDY" {
					t.Errorf("reply %+v", r)
				}
				if got := body(t, "bluelabel", r); got.(map[string]any)["slept_ms"] != 1.0 {
					t.Errorf("result %s", r.Result)
				}
			}},
		{name: "fuse two-level name", dialect: "fuse", act: canonical.ActResult,
			frame: []byte(`{"messageType":"request","id":"r1","source":{"agentId":"Eddy"},"content":{"capability":"text-analysis","action":"sentiment-analysis","parameters":{"text":"awful"},"contextId":"c-9"}}`),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "r1" || jsonValue(t, string(r.Result)).(map[string]any)["sentiment"] != "negative" {
					t.Errorf("reply %+v", r)
				}
			}},
		{name: "fuse capability alone names the tool", dialect: "fuse", act: canonical.ActResult,
			frame: []byte(`{"messageType":"request","id":"r2","content":{"capability":"echo","parameters":{"k":"v"}}}`),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "r2" || string(r.Result) != `{"k":"v"}` {
					t.Errorf("reply %+v", r)
				}
			}},
		{name: "fuse tool under another capability", dialect: "fuse", act: canonical.ActFailure,
			frame: []byte(`{"messageType":"request","id":"r3","content":{"capability":"vision","action":"sentiment-analysis","parameters":{"text":"hi"}}}`),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.Error.Code != canonical.ErrNotFound || !strings.Contains(r.Error.Message, `"vision/sentiment-analysis"`) {
					t.Errorf("error %+v", r.Error)
				}
			}},
		{name: "a request that breaks its dialect's rules", dialect: "fuse", act: canonical.ActNotUnderstood,
			frame: []byte(`{"messageType":"request","id":"r4","content":{"parameters":{}}}`),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "r4" || r.Error.Code != canonical.ErrInvalidMessage || !strings.Contains(r.Error.Message, "fuse: content: a request must name a capability or an action") {
					t.Errorf("reply %+v error %+v", r, r.Error)
				}
			}},
		{name: "an unknown performative", dialect: "elizaacl", act: canonical.ActNotUnderstood,
			frame: []byte(strings.Replace(string(eddy), `"TASK_REQUEST"`, `"PROPOSE"`, 1)),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "msg_eddy_to_jules_001" || r.Receiver.ID != "Eddy" || r.Error.Code != canonical.ErrInvalidMessage || !strings.Contains(r.Error.Message, "PROPOSE") {
					t.Errorf("reply %+v error %+v", r, r.Error)
				}
			}},
		{name: "an assignment with a member its schema refuses", dialect: "bluelabel", act: canonical.ActNotUnderstood,
			frame: []byte(strings.Replace(string(encode(t, "bluelabel", &canonical.Envelope{Act: canonical.ActRequest, TaskID: "T-9",
				Sender: canonical.Party{ID: "EDDY"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "JULES"},
				Operation: canonical.Operation{Name: "echo"}, Arguments: `{"text":"hi"}`})), `{`, `{"unexpected":1,`, 1)),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.TaskID != "T-9" || r.Receiver.ID != "EDDY" || r.Error.Code != canonical.ErrInvalidMessage || !strings.Contains(r.Error.Message, "unexpected") {
					t.Errorf("reply %+v error %+v", r, r.Error)
				}
			}},
		{name: "a reply that breaks its dialect's rules", dialect: "bluelabel", // taken as it decodes: a reply to no call, dropped
			frame: []byte(strings.Replace(string(encode(t, "bluelabel", &canonical.Envelope{Act: canonical.ActResult, TaskID: "T-8",
				Sender: canonical.Party{ID: "EDDY"}, Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "JULES"},
				Outcome: canonical.OutcomeSuccess, Result: `{}`})), `{`, `{"unexpected":1,`, 1))},
		{name: "a frame that does not decode, naming its id", dialect: "fuse", act: canonical.ActNotUnderstood,
			frame: []byte(`{"messageType":"response","id":"x1","content":{"requestId":"nobody","status":"bogus"}}`),
			check: func(t *testing.T, r *canonical.Envelope) {
				if r.InReplyTo != "x1" || r.Error.Code != canonical.ErrInvalidMessage || !strings.Contains(r.Error.Message, `unknown status "bogus"`) {
					t.Errorf("reply %+v error %+v", r, r.Error)
				}
			}},
		{name: "an event", dialect: "fuse",
			frame: []byte(`{"messageType":"event","content":{"eventType":"workflow-completed","data":{"workflowId":"w1"}}}`)},
		{name: "a reply to no call", dialect: "collab",
			frame: encode(t, "collab", &canonical.Envelope{Act: canonical.ActResult, InReplyTo: "nobody", Sender: from, Receiver: to, Result: `{}`})},
		{name: "an accept", dialect: "elizaacl",
			frame: encode(t, "elizaacl", &canonical.Envelope{Act: canonical.ActAccept, InReplyTo: "m1", Sender: from, Receiver: to})},
		{name: "not JSON", dialect: "swarm", frame: []byte(`{"message_type":`)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rec := newRecorder()
			a, err := New(Options{ID: "Jules", Dialect: tc.dialect, Observer: rec.observe})
			if tc.dialect == "bluelabel" {
				a, err = New(Options{ID: "JULES", Dialect: tc.dialect, Observer: rec.observe})
			}
			if err != nil {
				t.Fatal(err)
			}
			sent := string(tc.frame)
			replies := a.Handle(append([]byte(nil), tc.frame...))
			if got := rec.all(Received); len(got) != 1 || string(got[0]) != sent {
				t.Errorf("the observer saw %q received, want the frame", got)
			}
			if tc.act == "" {
				if len(replies) != 0 {
					t.Fatalf("replies %s, want none", replies)
				}
				return
			}
			checkValid(t, tc.dialect, "the agent", replies)
			var accept *canonical.Envelope
			if tc.accepted && len(replies) > 0 {
				accept, replies = decode(t, tc.dialect, replies[0]), replies[1:]
			}
			if len(replies) != 1 {
				t.Fatalf("%d replies, want 1 (after an accept: %v)", len(replies), tc.accepted)
			}
			r := decode(t, tc.dialect, replies[0])
			if tc.accepted && (accept.Act != canonical.ActAccept || accept.InReplyTo != r.InReplyTo || accept.Receiver != r.Receiver) {
				t.Errorf("first reply %+v, want an accept quoting the request as the reply does (%q)", accept, r.InReplyTo)
			}
			if r.Act != tc.act {
				t.Fatalf("reply act %s, want %s: %s", r.Act, tc.act, replies[0])
			}
			tc.check(t, r)
		})
	}
}
