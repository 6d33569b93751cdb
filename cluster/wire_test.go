package cluster

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestWireRoundTrip: every kind of message an instance sends decodes, on
// the other instance, to what was sent; and the fields are spelled on the
// wire as instances of other versions read them.
func TestWireRoundTrip(t *testing.T) {
	since := time.Date(2026, 11, 28, 9, 30, 0, 123456789, time.UTC)
	req := &canonical.Envelope{ID: "req-1", Act: canonical.ActRequest, Sender: canonical.Party{ID: "caller"},
		Receiver:  canonical.Address{Kind: canonical.AddressAgent, ID: "calc"},
		Operation: canonical.Operation{Name: "add"}, Arguments: canonical.JSON(`{"a":2,"b":40}`),
		TTL: canonical.Dur(3 * time.Second)}
	ans := &canonical.Envelope{ID: "ans-1", Act: canonical.ActFailure, Sender: canonical.Party{ID: "calc"},
		InReplyTo: "req-1", CorrelationID: "req-1", Outcome: canonical.OutcomeFailure,
		Error: &canonical.Error{Code: canonical.ErrUnavailable, Message: "gone"}}
	for _, tc := range []struct {
		name string
		m    message
		// wire are fragments the encoding holds; absent those it must not.
		wire, absent []string
	}{
		{"snapshot", message{Kind: kindSnapshot, From: "a", Every: 2 * time.Second, Ask: true, Agents: []agentState{{
			ID: "calc", Dialect: "swarm", Transport: "websocket", Status: bridge.StatusReady, Connected: true, Since: since,
			Tools:  []canonical.Tool{{Name: "add", Description: "adds", InputSchema: canonical.JSON(`{"type":"object"}`), Version: "1.0"}},
			Topics: []string{"news"}}}},
			[]string{`"kind":"snapshot"`, `"from":"a"`, `"every":2000000000`, `"ask":true`, `"id":"calc"`, `"connected":true`, `"topics":["news"]`},
			[]string{`"forward"`, `"env"`, `"agent":`}},
		{"empty snapshot", message{Kind: kindSnapshot, From: "b", Every: time.Second},
			[]string{`"kind":"snapshot"`}, []string{`"agents"`, `"ask"`}},
		{"agent gone", message{Kind: kindAgent, From: "a", Agents: []agentState{{
			ID: "calc", Dialect: "fuse", Status: bridge.StatusUnavailable, Reason: "its connection closed", Since: since}}},
			[]string{`"connected":false`, `"reason":"its connection closed"`}, []string{`"every"`, `"tools"`}},
		{"bye", message{Kind: kindBye, From: "a"}, []string{`{"kind":"bye","from":"a"}`}, nil},
		{"deliver", message{Kind: kindDeliver, From: "a", Agent: "calc",
			Forward: &forward{Env: req, From: "swarm", Final: true, Answer: true, ByBridge: true, AtLeast: 2}},
			[]string{`"agent":"calc"`, `"by_bridge":true`, `"at_least":2`, `"final":true`}, nil},
		{"deliver of the call API", message{Kind: kindDeliver, From: "a", Agent: "calc", Forward: &forward{Env: req}},
			[]string{`"forward":{"env":{`}, []string{`"by_bridge"`, `"at_least"`, `"final"`}},
		{"answer", message{Kind: kindAnswer, From: "b", Agent: "calc", Env: ans}, []string{`"env":{`}, []string{`"forward"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(&tc.m)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.wire {
				if !strings.Contains(string(data), w) {
					t.Errorf("the wire lacks %s:\n%s", w, data)
				}
			}
			for _, w := range tc.absent {
				if strings.Contains(string(data), w) {
					t.Errorf("the wire has %s:\n%s", w, data)
				}
			}
			var got message
			if err := json.Unmarshal(data, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.m) {
				t.Errorf("decoded\n%+v\nsent\n%+v\nwire %s", got, tc.m, data)
			}
		})
	}
}

// TestStateOf: a local agent's directory entry becomes the state announced
// for it, with the tools given and the reason.
func TestStateOf(t *testing.T) {
	since := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tools := []canonical.Tool{{Name: "add"}}
	for _, tc := range []struct {
		name   string
		info   bridge.AgentInfo
		reason string
		want   agentState
	}{
		{"connected", bridge.AgentInfo{ID: "calc", Dialect: "swarm", Transport: "websocket", Status: bridge.StatusReady,
			Connected: true, Since: &since, Topics: []string{"t"}, Instance: "a"}, "",
			agentState{ID: "calc", Dialect: "swarm", Transport: "websocket", Status: bridge.StatusReady, Connected: true,
				Since: since, Tools: tools, Topics: []string{"t"}}},
		{"never connected", bridge.AgentInfo{ID: "calc", Dialect: "fuse", Status: bridge.StatusStopped}, "removed",
			agentState{ID: "calc", Dialect: "fuse", Status: bridge.StatusStopped, Tools: tools, Reason: "removed"}},
	} {
		if got := stateOf(tc.info, tools, tc.reason); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// TestToolsOf: the directory's tools are announced as declared: the name
// and capability of their operation, their schemas and version.
func TestToolsOf(t *testing.T) {
	info := bridge.AgentInfo{Tools: []bridge.Tool{
		{Name: "math/add", Title: "Add", Description: "adds", Version: "1.0",
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"number"}`),
			Operation: canonical.Operation{Capability: "math", Name: "add"}},
		{Name: "echo", Operation: canonical.Operation{Name: "echo"}},
	}}
	want := []canonical.Tool{
		{Name: "add", Capability: "math", Title: "Add", Description: "adds", Version: "1.0",
			InputSchema: canonical.JSON(`{"type":"object"}`), OutputSchema: canonical.JSON(`{"type":"number"}`)},
		{Name: "echo"},
	}
	if got := toolsOf(info); !reflect.DeepEqual(got, want) {
		t.Errorf("%+v\nwant %+v", got, want)
	}
	if got := toolsOf(bridge.AgentInfo{}); got == nil || len(got) != 0 {
		t.Errorf("no tools: %#v, want an empty list", got)
	}
}
