package mcpface

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/bridge"
)

// TestGlob: expose patterns are globs over the whole name: "*" any run
// (slashes too), "?" one character, "[...]" a class ("[^...]" its
// complement), "\" quotes the next character, and regular expression
// characters are themselves.
func TestGlob(t *testing.T) {
	for _, tc := range []struct {
		glob  string
		match []string
		not   []string
	}{
		{"jules", []string{"jules"}, []string{"jules2", "xjules", "Jules"}},
		{"j*", []string{"j", "jules", "j/x/y"}, []string{"ajules"}},
		{"?am", []string{"sam", "pam"}, []string{"am", "saam"}},
		{"[js]*", []string{"jules", "sam"}, []string{"eve"}},
		{"[^js]*", []string{"eve"}, []string{"jules", "sam"}},
		{"[a-c]x", []string{"ax", "bx", "cx"}, []string{"dx", "-x"}},
		{`a\*b`, []string{"a*b"}, []string{"axb", "a\\*b"}},
		{"a.b", []string{"a.b"}, []string{"axb"}},
		{"(x)+", []string{"(x)+"}, []string{"x", "xx"}},
		{"nlp/*", []string{"nlp/sentiment"}, []string{"nlp"}},
	} {
		re, err := glob(tc.glob)
		if err != nil {
			t.Errorf("%q: %v", tc.glob, err)
			continue
		}
		for _, s := range tc.match {
			if !re.MatchString(s) {
				t.Errorf("%q does not match %q", tc.glob, s)
			}
		}
		for _, s := range tc.not {
			if re.MatchString(s) {
				t.Errorf("%q matches %q", tc.glob, s)
			}
		}
	}
}

// TestExposureRefuses: a pattern that is not a glob, or empty on either
// side of ":", is an error naming the list and the pattern.
func TestExposureRefuses(t *testing.T) {
	for _, tc := range []struct {
		allow, deny []string
		want        string
	}{
		{[]string{"[a-"}, nil, `mcp.expose.allow: "[a-"`},
		{nil, []string{"jules:[x"}, `mcp.expose.deny: "jules:[x"`},
		{[]string{""}, nil, "empty pattern"},
		{[]string{"jules:"}, nil, "empty pattern"},
		{nil, []string{":x"}, "mcp.expose.deny"},
	} {
		if _, err := compileExposure(tc.allow, tc.deny); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("allow %q deny %q: %v, want %q", tc.allow, tc.deny, err, tc.want)
		}
	}
}

// TestExposureDenyWins: a tool both allowed and denied is not shown; deny
// patterns alone hide only what they match.
func TestExposureDenyWins(t *testing.T) {
	jules := bridge.Tool{Agent: "jules", Name: "debug_code"}
	admin := bridge.Tool{Agent: "jules", Name: "admin"}
	e, err := compileExposure([]string{"jules"}, []string{"jules:admin"})
	if err != nil {
		t.Fatal(err)
	}
	if !e.shows(jules) || e.shows(admin) {
		t.Errorf("allow jules, deny jules:admin: shows debug_code %v, admin %v", e.shows(jules), e.shows(admin))
	}
	e, _ = compileExposure(nil, []string{"*:admin"})
	if !e.shows(jules) || e.shows(admin) {
		t.Errorf("deny *:admin: shows debug_code %v, admin %v", e.shows(jules), e.shows(admin))
	}
}
