package refagent

import (
	"reflect"
	"strings"
	"testing"
)

// TestNew checks the options New accepts and refuses, and the ids it
// chooses.
func TestNew(t *testing.T) {
	cases := []struct {
		name  string
		o     Options
		id    string   // the agent's id, when New succeeds
		tools []string // its tools, when New succeeds
		err   string   // a substring of New's error
	}{
		{name: "default id", o: Options{Dialect: "swarm"}, id: "swarm-agent", tools: ToolNames()},
		{name: "bluelabel default id", o: Options{Dialect: "bluelabel"}, id: "BLUELABEL-AGENT", tools: ToolNames()},
		{name: "chosen id and tools", o: Options{Dialect: "fuse", ID: "jules", Tools: []string{"add", "echo"}}, id: "jules", tools: []string{"add", "echo"}},
		{name: "no tools", o: Options{Dialect: "collab", Tools: []string{}}, id: "collab-agent"},
		{name: "unknown dialect", o: Options{Dialect: "klingon"}, err: `unknown dialect "klingon" (the dialects are a2a, bluelabel, collab, elizaacl, fuse, swarm)`},
		{name: "unknown tool", o: Options{Dialect: "swarm", Tools: []string{"add", "teleport"}}, err: `unknown tool "teleport"`},
		{name: "tool twice", o: Options{Dialect: "swarm", Tools: []string{"add", "add"}}, err: `tool "add" listed twice`},
		{name: "id bluelabel cannot carry", o: Options{Dialect: "bluelabel", ID: "jules"}, err: `bluelabel cannot carry the id "jules" as it is (it would be written "JULES")`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a, err := New(tc.o)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.ID() != tc.id || a.Dialect() != tc.o.Dialect {
				t.Errorf("id %q dialect %q, want %q %q", a.ID(), a.Dialect(), tc.id, tc.o.Dialect)
			}
			var tools []string
			for _, tool := range a.Capabilities().Tools {
				tools = append(tools, tool.Name)
			}
			if !reflect.DeepEqual(tools, tc.tools) {
				t.Errorf("tools %v, want %v", tools, tc.tools)
			}
		})
	}
}
