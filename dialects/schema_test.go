package dialects

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/mappings"
)

func TestSchemaCheck(t *testing.T) {
	s := NewSchema("toy", []byte(`{
		"$schema": "https://json-schema.org/draft/2020-12/schema",
		"type": "object",
		"required": ["kind"],
		"properties": {
			"kind": {"enum": ["a", "b"]},
			"n": {"type": "integer", "maximum": 3},
			"x": {"minimum": 0},
			"when": {"type": "string", "format": "date-time"}
		}
	}`))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		msg  string
		want []string
	}{
		{`{"kind":"a","n":2,"when":"2025-01-01T00:00:00Z"}`, nil},
		{`{"n":9}`, []string{"missing property 'kind'", "n: maximum: got 9, want 3"}},
		{`{"kind":"c","when":"yesterday"}`, []string{"kind: value must be one of", "when: 'yesterday' is not valid date-time"}},
		{`{"kind":"a","kind":"b"}`, []string{"kind: member given more than once"}},
		{`{"kind":"a","x":{"y":1,"y":2},"z":[{"q":1,"q":1}]}`, []string{"x.y: member given more than once", "z.0.q: member given more than once"}},
		{`{"kind":"a","x":1e1000001}`, []string{"x: number out of range: 1e1000001"}},
		{`{"kind":`, []string{"not valid JSON"}},
		{"{\"kind\":\"a\",\"\xff\":1}", []string{"not valid UTF-8"}},
	}
	for _, c := range cases {
		got := s.Check([]byte(c.msg))
		if len(got) != len(c.want) {
			t.Errorf("%s: got %v, want %d problems %v", c.msg, got, len(c.want), c.want)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(got[i].String(), w) {
				t.Errorf("%s: problem %d = %q, want it to contain %q", c.msg, i, got[i], w)
			}
		}
	}
	bad := NewSchema("broken", []byte(`{"type": 7}`))
	if bad.Err() == nil || len(bad.Check([]byte(`{}`))) != 1 {
		t.Error("a broken schema must say so")
	}
}

// TestSchemaCheckSteadyWords: a message refused for members the schema
// does not allow is refused in the same words every time, the members
// named in order (the library lists them in map order).
func TestSchemaCheckSteadyWords(t *testing.T) {
	s := NewSchema("closed", []byte(`{"type": "object", "properties": {"a": {}}, "additionalProperties": false}`))
	msg := []byte(`{"a":1,"zulu":1,"bravo":2,"mike":3,"echo":4,"kilo":5,"alpha":6}`)
	want := "additional properties 'alpha', 'bravo', 'echo', 'kilo', 'mike', 'zulu' not allowed"
	for range 20 {
		got := s.Check(msg)
		if len(got) != 1 || got[0].Message != want {
			t.Fatalf("got %v, want one problem %q", got, want)
		}
	}
}

func TestMergeProblems(t *testing.T) {
	rules := []Problem{{Path: "payload.timeout", Message: "must be between 1 and 300, got 900"}}
	schema := []Problem{{Path: "payload.timeout", Message: "maximum: got 900, want 300"}, {Path: "sender_id", Message: "missing"}}
	got := MergeProblems(rules, schema)
	if len(got) != 2 || got[0] != rules[0] || got[1] != schema[1] {
		t.Errorf("got %v", got)
	}
}

func TestVocabularySchema(t *testing.T) {
	// The default words of three dialects, from the files their packages
	// register (this package imports none of them).
	m := &mappings.Set{}
	for _, d := range []string{"swarm", "collab", "elizaacl"} {
		file := filepath.Join(d, "mapping.yaml")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Add(file, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.Add("site.yaml", []byte("dialect: swarm\nvocabulary:\n  priority:\n    words: {critical: critical}\n")); err != nil {
		t.Fatal(err)
	}
	doc := []byte(`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
		"properties": {
			"priority": {"enum": ["low"], "x-vocabulary": "priority"},
			"level": {"enum": [0], "x-vocabulary": "priority"},
			"other": {"enum": ["x"]}}}`)
	b := NewBase("swarm", doc, m.Vocabulary("swarm"))
	if p := b.CheckSchema([]byte(`{"priority": "critical"}`)); len(p) != 0 {
		t.Errorf("a word the site added does not validate: %v", p)
	}
	if p := b.CheckSchema([]byte(`{"priority": "urgent"}`)); len(p) != 0 {
		t.Errorf("a default word does not validate: %v", p)
	}
	if p := b.CheckSchema([]byte(`{"priority": "extreme"}`)); len(p) != 1 {
		t.Errorf("an unknown word validates: %v", p)
	}
	if p := b.CheckSchema([]byte(`{"other": "y"}`)); len(p) != 1 {
		t.Errorf("an unmarked enum changed: %v", p)
	}
	collab := NewBase("collab", doc, m.Vocabulary("collab"))
	if p := collab.CheckSchema([]byte(`{"level": 4}`)); len(p) != 0 {
		t.Errorf("numeric words stay numbers: %v", p)
	}
	eliza := NewBase("elizaacl", []byte(`{"properties": {"s": {"enum": [], "x-vocabulary": "outcome"}}}`), m.Vocabulary("elizaacl"))
	for _, w := range []string{"partial_success", "PARTIAL_SUCCESS"} {
		if p := eliza.CheckSchema([]byte(`{"s": "` + w + `"}`)); len(p) != 0 {
			t.Errorf("fold-case word %s: %v", w, p)
		}
	}
	if got := VocabularySchema([]byte("not json x-vocabulary"), m.Vocabulary("swarm")); string(got) != "not json x-vocabulary" {
		t.Error("a broken document must come back as it was")
	}
}
