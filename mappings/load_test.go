package mappings

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

func TestDefaults(t *testing.T) {
	s := testDefaults(t)
	want := []string{"a2a", "bluelabel", "collab", "elizaacl", "fuse", "swarm"}
	if got := s.Dialects(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("dialects %v, want %v", got, want)
	}
	for _, d := range want {
		acts := s.Vocabulary(d).Table(canonical.KindAct)
		if len(acts.Words()) == 0 {
			t.Errorf("%s has no act words", d)
		}
		for _, w := range acts.Words() {
			c, ok := acts.Canonical(w)
			if !ok || !canonical.Act(c).Valid() {
				t.Errorf("%s: act word %s -> %q", d, w, c)
			}
		}
	}
}

func TestTableLookups(t *testing.T) {
	s := testDefaults(t)
	eliza := s.Vocabulary("elizaacl")
	if c, ok := eliza.Table(canonical.KindOutcome).Canonical("PARTIAL_SUCCESS"); !ok || c != "partial" {
		t.Errorf("fold_case: %q %v", c, ok)
	}
	if _, ok := eliza.Table(canonical.KindAct).Canonical("task_request"); ok {
		t.Error("act words are case-sensitive")
	}
	if w, exact, ok := eliza.Table(canonical.KindPriority).Word("critical"); w != "high" || exact || !ok {
		t.Errorf("nearest: %q %v %v", w, exact, ok)
	}
	if w, exact, ok := eliza.Table(canonical.KindPriority).Word("normal"); w != "medium" || !exact || !ok {
		t.Errorf("exact: %q %v %v", w, exact, ok)
	}
	// The first word listed for a value is the one written.
	if w, _, _ := s.Vocabulary("fuse").Table(canonical.KindError).Word("not-found"); w != "capability-not-found" {
		t.Errorf("preferred word: %q", w)
	}
	if _, _, ok := s.Vocabulary("swarm").Table(canonical.KindAct).Word("accept"); ok {
		t.Error("swarm has no word for accept")
	}
	if s.Vocabulary("nope").Table(canonical.KindAct) == nil {
		t.Error("Table must never be nil")
	}
	// An act of a dialect's own, not a nearest stand-in: elizaacl accepts,
	// fuse writes a refusal as a response.
	for _, c := range []struct {
		dialect string
		act     canonical.Act
		want    bool
	}{
		{"elizaacl", canonical.ActAccept, true}, {"swarm", canonical.ActAccept, false},
		{"fuse", canonical.ActRequest, true}, {"fuse", canonical.ActRefuse, false}, {"nope", canonical.ActRequest, false},
	} {
		if got := s.HasAct(c.dialect, c.act); got != c.want {
			t.Errorf("HasAct(%s, %s) = %v, want %v", c.dialect, c.act, got, c.want)
		}
	}
}

func TestLayering(t *testing.T) {
	s := testDefaults(t)
	err := s.Add("site.yaml", []byte(`dialect: swarm
vocabulary:
  priority:
    words:
      critical: critical
`))
	if err != nil {
		t.Fatal(err)
	}
	p := s.Vocabulary("swarm").Table(canonical.KindPriority)
	if c, ok := p.Canonical("critical"); !ok || c != "critical" {
		t.Errorf("added word: %q %v", c, ok)
	}
	if c, ok := p.Canonical("urgent"); !ok || c != "critical" {
		t.Errorf("old word kept: %q %v", c, ok)
	}
	if w, _, _ := p.Word("critical"); w != "critical" {
		t.Errorf("the later file's word is the one written: %q", w)
	}
	// Redefining a word moves it.
	if err := s.Add("site2.yaml", []byte("dialect: swarm\nvocabulary:\n  priority:\n    words:\n      critical: high\n")); err != nil {
		t.Fatal(err)
	}
	p = s.Vocabulary("swarm").Table(canonical.KindPriority) // a file replaces the tables it changes
	if w, _, _ := p.Word("critical"); w != "urgent" {
		t.Errorf("after critical moved to high, critical is written as %q", w)
	}
	if w, _, _ := p.Word("high"); w != "critical" {
		t.Errorf("high is written as %q", w)
	}
}

func TestBadFiles(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"syntax", "dialect: [swarm\n", "bad.yaml:1: did not find expected"},
		{"not a mapping", "- a\n- b\n", "bad.yaml:1: a mapping file is a YAML mapping"},
		{"unknown top key", "dialect: swarm\nvocab: {}\n", "bad.yaml:2: vocab: unknown key (want dialect, vocabulary, aliases, operations, rewrites, acts, declare)"},
		{"missing dialect", "vocabulary: {}\n", "bad.yaml:1: dialect: missing"},
		{"dialect not a name", "dialect: [a]\n", "bad.yaml:1: dialect: must be a dialect name"},
		{"unknown kind", "dialect: swarm\nvocabulary:\n  colour: {}\n", "bad.yaml:3: vocabulary.colour: unknown table kind"},
		{"unknown table key", "dialect: swarm\nvocabulary:\n  act:\n    word: {}\n", "bad.yaml:4: vocabulary.act.word: unknown key (want words, nearest, fold_case)"},
		{"not canonical", "dialect: swarm\nvocabulary:\n  act:\n    words:\n      ping: pong\n", `bad.yaml:5: vocabulary.act.words.ping: "pong" is not a canonical act`},
		{"duplicate word", "dialect: swarm\nvocabulary:\n  act:\n    words:\n      ping: request\n      ping: event\n", "bad.yaml:6: vocabulary.act.words.ping: duplicate key (first at line 5)"},
		{"fold_case type", "dialect: swarm\nvocabulary:\n  act:\n    fold_case: maybe\n", "bad.yaml:4: vocabulary.act.fold_case: must be true or false"},
		{"nearest value", "dialect: swarm\nvocabulary:\n  act:\n    nearest:\n      dance: request\n", `bad.yaml:5: vocabulary.act.nearest.dance: "dance" is not a canonical act`},
		{"empty", "", "bad.yaml:1: empty mapping file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := (&Set{}).Add("bad.yaml", []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want %q", err, c.want)
			}
		})
	}
}
