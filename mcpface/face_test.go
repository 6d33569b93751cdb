package mcpface

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func tool(agent, capability, action string) bridge.Tool {
	t := bridge.Tool{Agent: agent, Dialect: "fuse", Operation: canonical.Operation{Capability: capability, Name: action}}
	t.Name = action
	if capability != "" {
		t.Name = capability + "/" + action
	}
	return t
}

func TestNames(t *testing.T) {
	long := strings.Repeat("x", 200)
	for _, tc := range []struct {
		name    string
		style   string
		tools   []bridge.Tool
		want    []string
		clashes int
	}{
		{"prefixed", NamesPrefixed, []bridge.Tool{tool("jules", "", "debug_code"), tool("sam", "nlp", "sentiment")},
			[]string{"jules__debug_code", "sam__sentiment"}, 0},
		{"same action twice in an agent", NamesPrefixed, []bridge.Tool{tool("f", "a", "run"), tool("f", "b", "run")},
			[]string{"f__a_run", "f__b_run"}, 0},
		{"sanitized", NamesPrefixed, []bridge.Tool{tool("agent 1", "", "héllo/wörld")},
			[]string{"agent_1__h_llo_w_rld"}, 0},
		{"clash settled in order", NamesPrefixed, []bridge.Tool{tool("a b", "", "x"), tool("a.b", "", "x"), tool("a_b", "", "x")},
			[]string{"a_b__x", "a.b__x", "a_b__x_2"}, 1},
		{"at most 128", NamesPrefixed, []bridge.Tool{tool("a", "", long), tool("b", "", long+"y")},
			[]string{("a__" + long)[:128], ("b__" + long)[:128]}, 0},
		{"long clash keeps the suffix", NamesPrefixed, []bridge.Tool{tool("a", "", long), tool("a", "", long+"y")},
			[]string{("a__" + long)[:128], ("a__" + long)[:126] + "_2"}, 1},
		{"bare where unique", NamesBare, []bridge.Tool{tool("a", "", "echo"), tool("a", "", "only_a"), tool("b", "", "echo")},
			[]string{"a__echo", "only_a", "b__echo"}, 0},
	} {
		got, clashes := name(tc.tools, tc.style)
		if !slices.Equal(got, tc.want) || len(clashes) != tc.clashes {
			t.Errorf("%s: %q (%v), want %q and %d clashes", tc.name, got, clashes, tc.want, tc.clashes)
		}
		for _, n := range got {
			if len(n) > maxName {
				t.Errorf("%s: %q is longer than %d", tc.name, n, maxName)
			}
		}
	}
}

func TestExposure(t *testing.T) {
	tools := []bridge.Tool{tool("jules", "", "debug_code"), tool("sam", "nlp", "sentiment"), tool("sam", "", "admin"), tool("eve", "", "x")}
	for _, tc := range []struct {
		allow, deny []string
		want        string
	}{
		{nil, nil, "jules/debug_code sam/nlp/sentiment sam/admin eve/x"},
		{[]string{"sam"}, nil, "sam/nlp/sentiment sam/admin"},
		{[]string{"*"}, []string{"sam:admin", "eve"}, "jules/debug_code sam/nlp/sentiment"},
		{[]string{"*:*sent*"}, nil, "sam/nlp/sentiment"}, // "*" spans the "/"
		{[]string{"[js]*:d*", "sam:nlp/?entiment"}, nil, "jules/debug_code sam/nlp/sentiment"},
	} {
		e, err := compileExposure(tc.allow, tc.deny)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, tl := range tools {
			if e.shows(tl) {
				got = append(got, tl.Agent+"/"+tl.Name)
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("allow %v deny %v: %q, want %q", tc.allow, tc.deny, got, tc.want)
		}
	}
	if _, err := compileExposure([]string{"[a-"}, nil); err == nil || !strings.Contains(err.Error(), "mcp.expose.allow") {
		t.Errorf("a bad pattern: %v", err)
	}
}

func TestObjectSchema(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"type":"object","properties":{"a":{"type":"number"}}}`, `{"type":"object","properties":{"a":{"type":"number"}}}`},
		{`{"properties":{"a":{}}}`, `{"properties":{"a":{}},"type":"object"}`},
		{`{"type":"string"}`, openSchema},
		{`[1]`, openSchema},
		{`not json`, openSchema},
		{``, openSchema},
	} {
		if got := string(objectSchema(json.RawMessage(tc.in), openSchema)); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.in, got, tc.want)
		}
	}
}

// TestWithVersion: a 2026-07-28 notification without the version in its
// _meta gets the header's; requests and notifications that have one are
// left as they are.
func TestWithVersion(t *testing.T) {
	const v = "2026-07-28"
	for _, tc := range []struct{ in, want string }{
		{`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`,
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{`{"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`,
			`{"jsonrpc":"2.0","method":"n","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`},
		{`{"jsonrpc":"2.0","method":"n","params":[1]}`, `{"jsonrpc":"2.0","method":"n","params":[1]}`},
		{`[{"jsonrpc":"2.0","method":"n"}]`, `[{"jsonrpc":"2.0","method":"n"}]`},
		{`{"broken`, `{"broken`},
	} {
		if got := string(withVersion([]byte(tc.in), v)); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestAnswer(t *testing.T) {
	e := newEntry("jules__debug", bridge.Tool{Agent: "jules", Dialect: "swarm", Name: "debug"}, nil)
	for _, tc := range []struct {
		name    string
		ans     canonical.Envelope
		outcome string
		isError bool
		text    []string
		object  bool
	}{
		{"object result", canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeSuccess, Result: `{"fixed":true}`},
			outcomeSuccess, false, []string{`{"fixed":true}`}, true},
		{"array result", canonical.Envelope{Act: canonical.ActResult, Result: `[1,2]`}, outcomeSuccess, false, []string{`[1,2]`}, false},
		{"failed result", canonical.Envelope{Act: canonical.ActResult, Outcome: canonical.OutcomeFailure, Result: `{"tests":"red"}`,
			Error: &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "tests fail"}},
			outcomeFailure, true, []string{`{"tests":"red"}`, "jules (swarm) reports the task failed", "tests fail"}, true},
		{"failure", canonical.Envelope{Act: canonical.ActFailure, Error: &canonical.Error{Code: canonical.ErrExecutionFailed, Message: "boom"}},
			outcomeFailure, true, []string{"agent jules (swarm) failed: execution-failed: boom"}, false},
		{"refusal", canonical.Envelope{Act: canonical.ActRefuse, Error: &canonical.Error{Code: canonical.ErrRejected, Message: "busy"}},
			outcomeFailure, true, []string{"agent jules (swarm) refused the call", "busy"}, false},
		{"needs input", canonical.Envelope{Act: canonical.ActNeedsInput, Inputs: `[{"id":"region","type":"string","description":"where"}]`},
			outcomeInputs, true, []string{"needs more input", "region (string): where"}, false},
	} {
		outcome, res := answer(e, &tc.ans)
		var texts []string
		for _, c := range res.Content {
			b, _ := json.Marshal(c)
			texts = append(texts, string(b))
		}
		all := strings.Join(texts, " ")
		if outcome != tc.outcome || res.IsError != tc.isError || (res.StructuredContent != nil) != tc.object {
			t.Errorf("%s: outcome %s, isError %v, structured %v", tc.name, outcome, res.IsError, res.StructuredContent)
		}
		for _, want := range tc.text {
			if !strings.Contains(strings.ReplaceAll(all, `\"`, `"`), want) {
				t.Errorf("%s: %s lacks %q", tc.name, all, want)
			}
		}
	}
}
