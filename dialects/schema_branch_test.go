package dialects

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestBranches: the schemas that state their message types as if/then
// entries on one member get a branch per type; a message of a type with no
// entry, or with no such member, is validated against the whole schema.
func TestBranches(t *testing.T) {
	for _, c := range []struct {
		dialect, member string
		types           []string
	}{
		{"swarm", "message_type", []string{"error", "notification", "request", "response"}},
		{"elizaacl", "performative", nil},
		{"fuse", "messageType", []string{"event", "request", "response"}},
		{"bluelabel", "type", []string{"error", "needs_input", "task_assignment", "task_result"}},
		{"collab", "", nil}, // its types are read from one of two layouts
	} {
		src, err := os.ReadFile(c.dialect + "/schema.json")
		if err != nil {
			t.Fatal(err)
		}
		s := NewSchema(c.dialect, src)
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		if c.member == "" {
			if s.branches != nil {
				t.Errorf("%s: branches on %s", c.dialect, s.branches.member)
			}
			continue
		}
		if s.branches == nil || s.branches.member != c.member {
			t.Fatalf("%s: branches %+v, want on %s", c.dialect, s.branches, c.member)
		}
		var got []string
		for v, sch := range s.branches.by {
			got = append(got, v)
			if sch == s.sch {
				t.Errorf("%s: the branch of %s is the whole schema", c.dialect, v)
			}
		}
		slices.Sort(got)
		if c.types != nil && !slices.Equal(got, c.types) {
			t.Errorf("%s: branches %v, want %v", c.dialect, got, c.types)
		}
		for _, inst := range []any{
			map[string]any{c.member: "no-such-type"},
			map[string]any{c.member: 1.0},
			map[string]any{},
			[]any{},
		} {
			if got := s.branches.of(s.sch, inst); got != s.sch {
				t.Errorf("%s: %v is validated against a branch", c.dialect, inst)
			}
		}
		if sch := s.branches.of(s.sch, map[string]any{c.member: got[0]}); sch == s.sch {
			t.Errorf("%s: a message of type %s is validated against the whole schema", c.dialect, got[0])
		}
	}
}

// TestTypeEntry: only the exact form of a type entry is taken.
func TestTypeEntry(t *testing.T) {
	for _, c := range []struct {
		entry string
		ok    bool
	}{
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["t"]},"then":{"required":["x"]}}`, true},
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["t"]},"then":{},"else":{"required":["y"]}}`, true},
		{`{"if":{"properties":{"t":{"const":"a"}}},"then":{}}`, false},                                  // t may be absent
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["u"]},"then":{}}`, false},                 // another member required
		{`{"if":{"properties":{"t":{"const":1}},"required":["t"]},"then":{}}`, false},                   // not a string
		{`{"if":{"properties":{"t":{"const":"a","maxLength":3}},"required":["t"]},"then":{}}`, false},   // more than const
		{`{"if":{"properties":{"t":{"enum":["a"]}},"required":["t"]},"then":{}}`, false},                // enum
		{`{"if":{"properties":{"t":{"const":"a"},"u":{}},"required":["t"]},"then":{}}`, false},          // two members
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["t"],"type":"object"},"then":{}}`, false}, // more in if
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["t"]},"then":{},"title":"x"}`, false},     // more in the entry
		{`{"if":{"properties":{"t":{"const":"a"}},"required":["t"]}}`, false},                           // no then
	} {
		e, err := jsonschema.UnmarshalJSON(strings.NewReader(c.entry))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := typeEntry(e); ok != c.ok {
			t.Errorf("%s: typeEntry %v, want %v", c.entry, ok, c.ok)
		}
	}
}
