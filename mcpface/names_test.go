package mcpface

import (
	"slices"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestNamesSettled: how clashes are settled, beyond TestNames: a bare name
// that another tool's prefixed name equals, three tools for one name, the
// same tools named the same way every time, and what the log says of a
// clash.
func TestNamesSettled(t *testing.T) {
	for _, tc := range []struct {
		name    string
		style   string
		tools   []bridge.Tool
		want    []string
		clashes []string
	}{
		{"a bare name equal to a prefixed one", NamesBare,
			[]bridge.Tool{tool("a", "", "x"), tool("a", "", "y"), tool("b", "", "a__y"), tool("c", "", "y")},
			[]string{"x", "a__y", "a__y_2", "c__y"},
			[]string{"a__y: a/y keeps it; b/a__y numbered in order"}},
		{"three for one name", NamesPrefixed,
			[]bridge.Tool{tool("a b", "", "x"), tool("a.b", "", "x"), tool("a:b", "", "x"), tool("a/b", "", "x")},
			[]string{"a_b__x", "a.b__x", "a_b__x_2", "a_b__x_3"},
			[]string{"a_b__x: a b/x keeps it; a:b/x, a/b/x numbered in order"}},
		{"an action the agent has twice, one without a capability", NamesPrefixed,
			[]bridge.Tool{tool("f", "", "run"), tool("f", "b", "run")},
			[]string{"f__run", "f__b_run"}, nil},
		{"a capability without an action", NamesPrefixed,
			[]bridge.Tool{{Agent: "f", Name: "only", Operation: canonical.Operation{Capability: "only"}}},
			[]string{"f__only"}, nil},
	} {
		for round := range 2 { // the same every time
			got, clashes := name(tc.tools, tc.style)
			var said []string
			for _, c := range clashes {
				said = append(said, c.String())
			}
			if !slices.Equal(got, tc.want) || !slices.Equal(said, tc.clashes) {
				t.Errorf("%s (round %d): %q, clashes %q; want %q, %q", tc.name, round, got, said, tc.want, tc.clashes)
			}
		}
	}
}

// TestSanitize: the characters a tool name may have are kept; each other
// character, multi-byte ones too, becomes one "_".
func TestSanitize(t *testing.T) {
	for in, want := range map[string]string{
		"debug_code": "debug_code", "a.b-c": "a.b-c", "nlp/sentiment": "nlp_sentiment",
		"héllo": "h_llo", "日本": "__", "a b\tc": "a_b_c", "": "",
	} {
		if got := sanitize(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}
