package dialects_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/builtin"
)

// TestRegisterRefuses checks that Register panics, registering nothing, on
// a record that is incomplete, whose default mapping does not load or gives
// another dialect's words, or whose name is taken.
func TestRegisterRefuses(t *testing.T) {
	swarm, ok := dialects.RecordOf("swarm")
	if !ok {
		t.Fatal("swarm is not registered")
	}
	good := func(name string) dialects.Record {
		r := swarm
		r.Name = name
		r.Mapping = []byte("dialect: " + name + "\nvocabulary:\n  act:\n    words: {go: request}\n")
		return r
	}
	cases := []struct {
		name string
		edit func(*dialects.Record)
		want string
	}{
		{"taken", func(r *dialects.Record) { *r = swarm }, `"swarm": registered twice`},
		{"bad name", func(r *dialects.Record) { *r = good("Bad Name") }, "the name must be lower-case"},
		{"trailing dash", func(r *dialects.Record) { *r = good("memo-") }, "the name must be lower-case"},
		{"no codec", func(r *dialects.Record) { r.New = nil }, "no New"},
		{"no summary", func(r *dialects.Record) { r.Summary = "" }, "no Summary"},
		{"no load paths", func(r *dialects.Record) { r.Load.Correlation = nil }, "incomplete Load: every path is needed"},
		{"no mapping", func(r *dialects.Record) { r.Mapping = nil }, "dialects/test-dialect/mapping.yaml:1: empty mapping file"},
		{"no words", func(r *dialects.Record) { r.Mapping = []byte("dialect: test-dialect\n") }, "gives the words of [], want those of test-dialect alone"},
		{"another dialect's words", func(r *dialects.Record) {
			r.Mapping = []byte("dialect: other\nvocabulary:\n  act:\n    words: {go: request}\n")
		},
			"gives the words of [other], want those of test-dialect alone"},
		{"bad mapping", func(r *dialects.Record) {
			r.Mapping = []byte("dialect: test-dialect\nvocabulary:\n  act:\n    words: {go: fly}\n")
		},
			`dialects/test-dialect/mapping.yaml:4: vocabulary.act.words.go: "fly" is not a canonical act`},
	}
	before := strings.Join(dialects.Names(), ",")
	for _, tc := range cases {
		r := good("test-dialect")
		tc.edit(&r)
		got := registerPanic(r)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: panic %q, want one containing %q", tc.name, got, tc.want)
		}
	}
	if after := strings.Join(dialects.Names(), ","); after != before {
		t.Errorf("refused records changed the names: %s, was %s", after, before)
	}
}

// registerPanic registers r and returns what Register panicked with, "" if
// it did not.
func registerPanic(r dialects.Record) (msg string) {
	defer func() {
		if v := recover(); v != nil {
			msg = fmt.Sprint(v)
		}
	}()
	dialects.Register(r)
	return ""
}

// TestRecordsBuildTheDefaults checks that the default mappings hold every
// registered dialect's words, and NewCodecs a codec of each, named as its
// record.
func TestRecordsBuildTheDefaults(t *testing.T) {
	m := dialects.DefaultMappings()
	if got, want := strings.Join(m.Dialects(), ","), strings.Join(dialects.Names(), ","); got != want {
		t.Errorf("the default mappings have the words of %s, want %s", got, want)
	}
	reg, err := dialects.NewCodecs(m)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(reg.Names(), ","), strings.Join(dialects.Names(), ","); got != want {
		t.Errorf("codecs of %s, want %s", got, want)
	}
	// A mapping set layered over the defaults gives the codecs its words.
	if err := m.Add("site.yaml", []byte("dialect: swarm\nvocabulary:\n  act:\n    words: {ask: request}\n")); err != nil {
		t.Fatal(err)
	}
	reg, err = dialects.NewCodecs(m)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := reg.Lookup("swarm")
	if _, err := c.Decode([]byte(`{"message_type":"ask","sender_id":"a","payload":{"tool_name":"x"}}`)); err != nil {
		t.Errorf("a word the site added does not decode: %v", err)
	}
}
