package declared_test

import (
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// TestNewErrors checks that New refuses the declarations it cannot serve,
// naming the file, the line and the problem.
func TestNewErrors(t *testing.T) {
	v := hookVocab(t)
	field := func(c canonical.Concept, p string) mappings.FieldPath { return mappings.FieldPath{Concept: c, Path: p} }
	tests := []struct {
		name  string
		edit  func(d *mappings.Declaration)
		vocab *mappings.Vocabulary
		err   string
	}{
		{"no name", func(d *mappings.Declaration) { d.Name = "" }, nil,
			"examples/hook.yaml:10: dialect: a declared dialect needs a name"},
		{"no act", func(d *mappings.Declaration) { d.Fields = d.Fields[2:] }, nil,
			"examples/hook.yaml:10: declare.fields.act: missing: every message needs an act path"},
		{"empty act table", nil, vocabFor(t, "hook", "outcome:\n    words: {ok: success}\n"),
			"examples/hook.yaml:10: declare.fields.act: a word concept, but the vocabulary has no act table (or it has no words)"},
		{"empty priority table", nil, vocabFor(t, "hook", "act:\n    words: {call: request}\n"),
			"examples/hook.yaml:10: declare.fields.priority: a word concept, but the vocabulary has no priority table (or it has no words)"},
		{"empty error table", func(d *mappings.Declaration) {
			d.Fields = []mappings.FieldPath{field(canonical.CAct, "event"), field(canonical.CErrorCode, "error.code")}
			d.Required = nil
		}, vocabFor(t, "hook", "act:\n    words: {call: request}\n"),
			"examples/hook.yaml:10: declare.fields.error.code: a word concept, but the vocabulary has no error table (or it has no words)"},
		{"not declarable", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CCapabilities, "tools")) }, nil,
			"examples/hook.yaml:10: declare.fields.capabilities: capabilities cannot be declared (declarable: id, act,"},
		{"concept twice", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CID, "id2")) }, nil,
			"examples/hook.yaml:10: declare.fields.id: placed twice"},
		{"path twice", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CSessionID, "task")) }, nil,
			"examples/hook.yaml:10: declare.fields.session_id: path task is already the path of task_id"},
		{"value and object", func(d *mappings.Declaration) {
			d.Fields = append(d.Fields, field(canonical.CSessionID, "from.session"))
		}, nil,
			"examples/hook.yaml:10: declare.fields.session_id: path from is the path of sender, so it cannot hold from.session"},
		{"object and value", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CSessionID, "error")) }, nil,
			"examples/hook.yaml:10: declare.fields.session_id: path error is already an object of other declared paths"},
		{"field on mark", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CSessionID, "hook")) }, nil,
			`examples/hook.yaml:10: declare.fields.session_id: path hook is already a detection mark ("1")`},
		{"empty path", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CSessionID, "")) }, nil,
			"examples/hook.yaml:10: declare.fields.session_id: empty path"},
		{"empty member name", func(d *mappings.Declaration) { d.Fields = append(d.Fields, field(canonical.CSessionID, "a..b")) }, nil,
			`examples/hook.yaml:10: declare.fields.session_id: path "a..b" has an empty member name`},
		{"no marks", func(d *mappings.Declaration) { d.Detect = nil; d.Required = d.Required[1:] }, nil,
			"examples/hook.yaml:10: declare.detect: at least one detection mark is needed"},
		{"star marks only", func(d *mappings.Declaration) {
			d.Detect = []mappings.Match{{Path: "id", Value: "*"}}
			d.Required = d.Required[1:]
		}, nil,
			`examples/hook.yaml:10: declare.detect: at least one mark must have a value: "*" marks alone would claim other dialects' messages`},
		{"star mark not a field", func(d *mappings.Declaration) { d.Detect = append(d.Detect, mappings.Match{Path: "kind", Value: "*"}) }, nil,
			`examples/hook.yaml:10: declare.detect.kind: a "*" mark must also be a field path (it is only checked, never written)`},
		{"mark without value", func(d *mappings.Declaration) { d.Detect = append(d.Detect, mappings.Match{Path: "kind"}) }, nil,
			`examples/hook.yaml:10: declare.detect.kind: a mark needs a value, or "*" for any`},
		{"mark inside a field", func(d *mappings.Declaration) { d.Detect = append(d.Detect, mappings.Match{Path: "hook.v", Value: "1"}) }, nil,
			`examples/hook.yaml:10: declare.detect.hook.v: path hook is a detection mark ("1"), so it cannot hold hook.v`},
		{"required unknown", func(d *mappings.Declaration) { d.Required = append(d.Required, "signature") }, nil,
			`examples/hook.yaml:10: declare.required: "signature" is neither a field path nor a detection mark`},
		{"required object", func(d *mappings.Declaration) { d.Required = append(d.Required, "error") }, nil,
			`examples/hook.yaml:10: declare.required: "error" is neither a field path nor a detection mark`},
		{"other dialect's words", nil, vocabFor(t, "other", "act:\n    words: {call: request}\n"),
			"examples/hook.yaml:10: vocabulary: the vocabulary is dialect other's, not hook's"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := hookDecl()
			if tt.edit != nil {
				tt.edit(d)
			}
			vv := v
			if tt.vocab != nil {
				vv = tt.vocab
			}
			_, err := declared.New(d, vv)
			if err == nil || !strings.HasPrefix(err.Error(), tt.err) {
				t.Errorf("New:\n got %v\nwant %s", err, tt.err)
			}
		})
	}
	if _, err := declared.New(nil, v); err == nil {
		t.Error("New accepted no declaration")
	}
}

// TestNewNested checks a declaration with deeper paths, "*" marks and
// nested marks.
func TestNewNested(t *testing.T) {
	d := &mappings.Declaration{
		Name: "deep", File: "deep.yaml", Line: 3,
		Detect: []mappings.Match{{Path: "meta.kind", Value: "deep.v2"}, {Path: "meta.id", Value: "*"}},
		Fields: []mappings.FieldPath{
			{Concept: canonical.CID, Path: "meta.id"},
			{Concept: canonical.CAct, Path: "meta.type"},
			{Concept: canonical.CSender, Path: "route.from.agent"},
			{Concept: canonical.CReceiver, Path: "route.to"},
			{Concept: canonical.CArguments, Path: "body"},
		},
		Required: []string{"meta.type", "route.from.agent"},
	}
	c, err := declared.New(d, vocabFor(t, "deep", "act:\n    words: {ask: request, tell: event}\n    fold_case: true\n"))
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte(`{"meta":{"kind":"deep.v2","id":"d-1","type":"ASK"},"route":{"from":{"agent":"a"},"to":"topic:t"},"body":[1]}`)
	if p := c.Validate(msg); len(p) != 0 {
		t.Fatalf("Validate: %v", p)
	}
	if got := c.Detect(msg); got != 4 {
		t.Errorf("Detect = %d, want 4 (1 + two marks + the top-level field body)", got)
	}
	env, err := c.Decode(msg)
	if err != nil {
		t.Fatal(err)
	}
	want(t, "act", env.Act, canonical.ActRequest)
	want(t, "sender", env.Sender.ID, "a")
	want(t, "receiver", env.Receiver, canonical.Address{Kind: canonical.AddressTopic, ID: "t"})
	out, err := c.Encode(nil, env, nil)
	if err != nil || !equalJSON(out, msg) {
		t.Errorf("round trip: %s %v", out, err)
	}
	// A case variant of a word passes the schema when the table folds case.
	if p := c.Validate([]byte(`{"meta":{"kind":"deep.v2","id":"d-1","type":"Tell"},"route":{"from":{"agent":"a"}}}`)); len(p) != 0 {
		t.Errorf("case variant: %v", p)
	}
	tests := []struct{ msg, problems string }{
		{`{"meta":{"kind":"deep.v2","id":"d-1","type":"ask"}}`, "route.from.agent: missing"},
		{`{"meta":{"kind":"deep.v2","type":"ask"},"route":{"from":{}}}`, "meta.id: missing; route.from.agent: missing"},
		{`{"meta":{"kind":"deep.v1","id":"x","type":"ask"},"route":{"from":{"agent":"a"}}}`, `meta.kind: must be "deep.v2", the mark of deep messages, got "deep.v1"`},
		{`{"meta":{"kind":"deep.v2","id":"x","type":"yell"},"route":{"from":"a"}}`, "meta.type: 'yell' does not match pattern '^(?i:ask|tell)$'; route.from: got string, want object"},
	}
	for _, tt := range tests {
		if got := problems(c.Validate([]byte(tt.msg))); got != tt.problems {
			t.Errorf("%s:\n got %s\nwant %s", tt.msg, got, tt.problems)
		}
	}
	// From another dialect: the required members and the "*" mark are filled.
	out, err = c.Encode(nil, &canonical.Envelope{Act: canonical.ActEvent}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Validate(out); len(p) != 0 {
		t.Errorf("filled output does not validate: %v\n%s", p, out)
	}
	if c.Detect(out) == 0 {
		t.Errorf("filled output is not detected: %s", out)
	}
}

// vocabFor loads the vocabulary of a mapping file of dialect name with the
// given tables (YAML under vocabulary:, indented by two).
func vocabFor(t *testing.T, name, tables string) *mappings.Vocabulary {
	t.Helper()
	return vocabulary(t, name+".yaml", []byte("dialect: "+name+"\nvocabulary:\n  "+tables))
}
