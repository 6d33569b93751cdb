package mcpface

import (
	"path"
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

// TestGlobAsPathMatch: on names without "/" (where "*" and "?" of
// path.Match stop), a glob matches what path.Match matches: escapes in and
// out of classes, ranges, negation, and characters of more than one byte.
func TestGlobAsPathMatch(t *testing.T) {
	patterns := []string{`[\]]`, `[\*]`, `[a\-z]`, `[^\]]x`, `a[\\]b`, `\[x]`, `[\^a]`, `[^^]`, `[a-c]x`, `[^a-c]x`,
		"müller", "m?ller", "m*r", "[ü]x", "[ä-ü]x", `\ü*`, "日本*", "?本", "x.y", "(x)+", "a*b?c"}
	names := []string{"]", "*", `\`, "-", "a", "z", "b", "x", "]x", "ax", "dx", `a\b`, "[x]", "^", "müller", "muller",
		"möller", "mr", "üx", "öx", "ax", "ü", "ü!", "日本語", "本", "x本", "xzy", "x.y", "(x)+", "abbc", "ab-c"}
	for _, p := range patterns {
		re, err := glob(p)
		if err != nil {
			t.Errorf("%q: %v", p, err)
			continue
		}
		for _, n := range names {
			want, _ := path.Match(p, n)
			if got := re.MatchString(n); got != want {
				t.Errorf("%q on %q: %v, path.Match %v (%s)", p, n, got, want, re)
			}
		}
	}
}

// TestExposureNonASCII: an agent whose id has letters of more than one
// byte is allowed or denied by name.
func TestExposureNonASCII(t *testing.T) {
	muller := bridge.Tool{Agent: "müller", Name: "admin"}
	for _, tc := range []struct {
		allow, deny []string
		shown       bool
	}{
		{nil, []string{"müller"}, false},
		{nil, []string{"müller:admin"}, false},
		{[]string{"müller"}, nil, true},
		{[]string{"m[ü]ller:adm?n"}, nil, true},
		{[]string{"muller"}, nil, false},
	} {
		e, err := compileExposure(tc.allow, tc.deny)
		if err != nil {
			t.Fatal(err)
		}
		if got := e.shows(muller); got != tc.shown {
			t.Errorf("allow %q deny %q: shown %v, want %v", tc.allow, tc.deny, got, tc.shown)
		}
	}
}
