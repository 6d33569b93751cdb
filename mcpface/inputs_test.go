package mcpface

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestAddInputs: the client's answer is added to the call's arguments,
// member by member, whatever characters its keys hold; an answer that is
// not an object is refused.
func TestAddInputs(t *testing.T) {
	for _, tc := range []struct {
		args    string
		content any
		want    string
		err     bool
	}{
		{`{"service":"web"}`, map[string]any{"region": "eu"}, `{"service":"web","region":"eu"}`, false},
		{`{"region":"us"}`, map[string]any{"region": "eu"}, `{"region":"eu"}`, false},
		{`{}`, map[string]any{"a.b": 1, "c*": true}, `{"a.b":1,"c*":true}`, false},
		{`{}`, map[string]any{}, `{}`, false},
		{`{}`, "eu", "", true},
		{`{}`, []int{1}, "", true},
		{`{}`, func() {}, "", true},
	} {
		got, err := addInputs(canonical.JSON(tc.args), tc.content)
		if (err != nil) != tc.err {
			t.Errorf("%s + %v: error %v", tc.args, tc.content, err)
			continue
		}
		if err != nil {
			if ce, ok := err.(*canonical.Error); !ok || ce.Code != canonical.ErrInvalidArguments {
				t.Errorf("%s + %v: %v, want an invalid-arguments error", tc.args, tc.content, err)
			}
			continue
		}
		if !sameJSON(t, string(got), tc.want) {
			t.Errorf("%s + %v: %s, want %s", tc.args, tc.content, got, tc.want)
		}
	}
}

// TestSensitiveInputs: the inputs marked sensitive, by id.
func TestSensitiveInputs(t *testing.T) {
	got := sensitiveInputs(`[{"id":"region"},{"id":"api_key","sensitive":true},{"id":"pin","sensitive":"yes"},{"id":"x","sensitive":false}]`)
	if !slices.Equal(got, []string{"api_key"}) {
		t.Errorf("%q, want api_key", got)
	}
	if got := sensitiveInputs(``); got != nil {
		t.Errorf("no inputs: %q", got)
	}
}

// TestElicitation: the inputs an agent asks for become a form: one
// property per input, typed, an enum for options, required unless marked
// otherwise; the message names the agent, its dialect, the tool and the
// context it gave.
func TestElicitation(t *testing.T) {
	e := newEntry("DEPLOYER__deploy", bridge.Tool{Agent: "DEPLOYER", Dialect: "bluelabel", Name: "deploy"}, nil)
	ask := &canonical.Envelope{Act: canonical.ActNeedsInput, Context: `"Configuring the deployment"`, Inputs: `[
		{"id":"region","type":"enum","options":["eu","us"],"description":"where"},
		{"id":"replicas","type":"int"},
		{"id":"ratio","type":"Double","required":false},
		{"id":"dry_run","type":"bool","required":true},
		{"id":"note"},
		{"type":"string","description":"no id: skipped"}]`}
	p := elicitation(e, ask)
	if want := "Agent DEPLOYER (bluelabel) needs more input for deploy: Configuring the deployment"; p.Message != want {
		t.Errorf("message %q, want %q", p.Message, want)
	}
	got, _ := json.Marshal(p.RequestedSchema)
	want := `{"properties":{"dry_run":{"type":"boolean"},"note":{"type":"string"},"ratio":{"type":"number"},` +
		`"region":{"description":"where","enum":["eu","us"],"type":"string"},"replicas":{"type":"integer"}},` +
		`"required":["region","replicas","dry_run","note"],"type":"object"}`
	if !sameJSON(t, string(got), want) {
		t.Errorf("schema\n%s\nwant\n%s", got, want)
	}
	// No context: the description; nothing required: no required list.
	p = elicitation(e, &canonical.Envelope{Description: "almost there", Inputs: `[{"id":"x","required":false}]`})
	if !strings.HasSuffix(p.Message, ": almost there") {
		t.Errorf("message %q", p.Message)
	}
	if _, has := p.RequestedSchema.(map[string]any)["required"]; has {
		t.Errorf("a form with nothing required lists some: %v", p.RequestedSchema)
	}
}

// TestDescribeInputs: the inputs asked for, for a client that cannot be
// asked.
func TestDescribeInputs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[{"id":"api_key","type":"string","description":"the key"},{"id":"region"}]`, "api_key (string): the key; region"},
		{`[]`, "[]"},
	} {
		if got := describeInputs(canonical.JSON(tc.in)); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSuspended: a call put aside is taken once by its state; states are
// unguessable and distinct; one not taken within its time is given up.
func TestSuspended(t *testing.T) {
	var s suspended
	s.calls = map[string]*suspendedCall{}
	a, b := &suspendedCall{}, &suspendedCall{}
	sa, sb := s.put(a, time.Hour), s.put(b, time.Hour)
	if sa == sb || len(sa) != 32 {
		t.Errorf("states %q and %q", sa, sb)
	}
	if s.take(sa) != a || s.take(sa) != nil || s.take("nope") != nil || s.take(sb) != b {
		t.Error("a state does not name its call once")
	}
}

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal([]byte(a), &x); err != nil {
		t.Errorf("%s: %v", a, err)
		return false
	}
	if err := json.Unmarshal([]byte(b), &y); err != nil {
		t.Errorf("%s: %v", b, err)
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}
