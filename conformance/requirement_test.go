package conformance

import (
	"sort"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestSuitesCover checks that every built-in dialect has a suite, and that
// each covers what every dialect must be checked for, and what its own
// spec adds.
func TestSuitesCover(t *testing.T) {
	suites, err := Suites()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(Dialects(suites), ","), strings.Join(sortedCopy(dialects.Names()), ","); got != want {
		t.Errorf("suites for %s, want %s", got, want)
	}
	common := []string{"frames.valid", "request.answered", "request.correlated", "unknown.answered", "malformed.survives", "invalid.survives"}
	own := map[string][]string{
		"elizaacl":  {"capabilities.answered", "capabilities.in_reply_to", "reply_with.quoted", "conversation.single", "conversation.accept", "accept.in_reply_to"},
		"collab":    {"registration.declared", "ttl.met", "trace.echo", "trace.parent", "priority.kept"},
		"bluelabel": {"ttl.met", "needs_input.resumed", "retry.answered"},
		"fuse":      {"capabilities.declared", "auth.answered", "auth.not_echoed", "extensions.tolerated"},
		"swarm":     {"handshake.first", "handshake.response", "version.declared", "version.other", "ttl.met"},
	}
	for d, s := range suites {
		have := map[string]Requirement{}
		for _, r := range s.Requirements {
			have[strings.TrimPrefix(r.ID, d+".")] = r
		}
		for _, id := range append(append([]string{}, common...), own[d]...) {
			if _, ok := have[id]; !ok {
				t.Errorf("%s has no %s.%s", d, d, id)
			}
		}
		for _, id := range common {
			if r := have[id]; r.Level != Must {
				t.Errorf("%s: %s is %s, want MUST", d, r.ID, r.Level)
			}
		}
		if r := have["frames.valid"]; r.Scenario != Frames {
			t.Errorf("%s.frames.valid is a %s requirement", d, r.Scenario)
		}
		always := 0
		for _, r := range s.Requirements {
			if r.Always {
				always++
			}
		}
		if want := map[bool]int{true: 1, false: 0}[s.Introduces()]; always != want {
			t.Errorf("%s: %d requirements always run, want %d (the declaration, where the dialect has one)", d, always, want)
		}
	}
}

// TestA2AHTTPSuiteCovers checks that the suite of A2A agents over HTTP
// has a requirement for each thing issue 30 asks it to check, at its level.
func TestA2AHTTPSuiteCovers(t *testing.T) {
	s, err := A2AHTTPSuite()
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]Level{}
	for _, r := range s.Requirements {
		have[r.ID] = r.Level
	}
	for id, level := range map[string]Level{
		"a2a.http.card.resolves": Must, "a2a.http.card.named": Must, "a2a.http.card.skills": Must, "a2a.http.card.interfaces": Must,
		"a2a.http.card.skilled": Should, "a2a.http.send.answered": Must, "a2a.http.send.correlated": Must, "a2a.http.id.number": Must,
		"a2a.http.task.get": Must, "a2a.http.task.not_found": Must, "a2a.http.cancel.not_cancelable": Must,
		"a2a.http.malformed.parse_error": Must, "a2a.http.malformed.survives": Must, "a2a.http.stream.final": Must,
		"a2a.http.method.not_found": Should,
	} {
		if got, ok := have[id]; !ok || got != level {
			t.Errorf("%s: %q, want %s", id, got, level)
		}
	}
	if s.Dialect != "a2a" || len(have) != 15 {
		t.Errorf("dialect %s, %d requirements", s.Dialect, len(have))
	}
}

// TestParseSuiteErrors checks that a requirement file the suite could not
// run as written is refused, with what is wrong.
func TestParseSuiteErrors(t *testing.T) {
	head := "dialect: x\nspec: specs/x.md\ncorrelation: {request: [id], reply: [re]}\nopening: none\nrequirements:\n"
	req := func(body string) string {
		return head + "  - id: x.a.b\n    section: s\n    level: MUST\n    level_note: n\n    title: t\n" + body
	}
	cases := []struct{ name, file, err string }{
		{"an unknown key", req("    colour: red\n    scenario: frames\n"), "field colour not found"},
		{"no correlation", "dialect: x\nspec: s\nopening: none\n", "correlation needs request and reply paths"},
		{"an unknown opening", strings.Replace(head, "opening: none", "opening: sometimes", 1), `opening is "sometimes"`},
		{"an id of another dialect", strings.Replace(req("    scenario: frames\n"), "x.a.b", "y.a.b", 1), `the id must start with "x."`},
		{"an unknown level", strings.Replace(req("    scenario: frames\n"), "MUST", "MAY", 1), `level "MAY"`},
		{"no title", strings.Replace(req("    scenario: frames\n"), "title: t", "title: \"\"", 1), "section, title and level_note are required"},
		{"an unknown scenario", req("    scenario: vibes\n"), `scenario "vibes"`},
		{"an exchange with no steps", req(""), "an exchange needs steps"},
		{"an opening with no first", req("    scenario: opening\n"), "an opening requirement has first"},
		{"an unknown act", req("    scenario: opening\n    first: [gossip]\n"), `"gossip" is not a canonical act`},
		{"an unknown send kind", req("    steps:\n      - send: {kind: shout}\n"), `send kind "shout"`},
		{"an unknown op", req("    steps:\n      - send: {kind: request, op: some}\n"), `op "some"`},
		{"a resend of a later step", req("    steps:\n      - send: {kind: resend, step: 0}\n"), "resend names step 0"},
		{"a bad ttl", req("    steps:\n      - send: {kind: request, ttl: soon}\n"), `"soon" is not a duration`},
		{"within ttl without one", req("    steps:\n      - send: {kind: request}\n        expect: {within: ttl}\n"), "within ttl needs the message's ttl"},
		{"an unknown reply", req("    steps:\n      - send: {kind: request}\n        expect: {reply: someday}\n"), `reply "someday"`},
		{"a check of two kinds", req("    steps:\n      - send: {kind: request}\n        expect: {check: [{path: a, present: true, equals: 1}]}\n"), "exactly one of"},
		{"a check with no path", req("    steps:\n      - send: {kind: request}\n        expect: {check: [{equals: 1}]}\n"), "a check needs a path"},
		{"checks on an acceptance not waited for", req("    steps:\n      - send: {kind: request}\n        expect: {on: accept}\n"), "need when: accept"},
		{"an opening answer that is not a declaration", req("    steps:\n      - send: {kind: request}\n        expect: {or_opening: true}\n"), "or_opening takes a declaration"},
		{"an unknown priority", req("    steps:\n      - send: {kind: request, priority: asap}\n"), `priority "asap"`},
		{"an rpc with no method", req("    steps:\n      - send: {kind: rpc, params: {id: x}}\n"), "an rpc message needs method"},
		{"a method on a request", req("    steps:\n      - send: {kind: request, method: GetTask}\n"), "method and params are for an rpc message"},
		{"client of no card", req("    steps:\n      - send: {kind: request}\n        expect: {client: true}\n"), "client is checked of a card"},
		{"a regular expression that is not one", req("    steps:\n      - send: {kind: card}\n        expect: {check: [{path: name, matches: '('}]}\n"), "matches is not a regular expression"},
		{"an unknown when", req("    steps:\n      - send: {kind: request}\n        expect: {when: raining}\n"), `when "raining"`},
		{"a requirement twice", req("    scenario: frames\n") + "  - id: x.a.b\n    section: s\n    level: MUST\n    level_note: n\n    title: t\n    scenario: frames\n", "listed twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSuite([]byte(tc.file))
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseSuite: %v, want %q", err, tc.err)
			}
		})
	}
	if _, err := ParseSuite([]byte(req("    scenario: frames\n"))); err != nil {
		t.Errorf("a good file: %v", err)
	}
}

// TestSelect checks how levels, --only and --skip choose requirements.
func TestSelect(t *testing.T) {
	s, err := SuiteFor("swarm")
	if err != nil {
		t.Fatal(err)
	}
	musts, _ := s.Select(Must, nil, nil)
	all, _ := s.Select(Should, nil, nil)
	if len(all) != len(s.Requirements) || len(musts) == 0 || len(musts) >= len(all) {
		t.Errorf("%d MUSTs of %d selected, %d in all", len(musts), len(s.Requirements), len(all))
	}
	for _, r := range musts {
		if r.Level != Must {
			t.Errorf("--level must selects %s (%s)", r.ID, r.Level)
		}
	}
	only, _ := s.Select(Should, []string{"swarm.ttl.met", "swarm.unknown.code"}, []string{"swarm.unknown.code"})
	if len(only) != 1 || only[0].ID != "swarm.ttl.met" {
		t.Errorf("only and skip: %v", only)
	}
	if _, err := s.Select(Should, nil, []string{"swarm.nope"}); err == nil {
		t.Error("an unknown id to skip is accepted")
	}
}

// sortedCopy returns ids sorted.
func sortedCopy(ids []string) []string {
	out := append([]string(nil), ids...)
	sort.Strings(out)
	return out
}
