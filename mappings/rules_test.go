package mappings

import (
	"os"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestBadRules asserts the exact error, with file:line and key, for each
// kind of bad mapping file.
func TestBadRules(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"unknown key in a rule", `
rewrites:
  - when: {from: swarm}
    do: [delete: arguments.x]
    then: stop
`, `bad.yaml:5: rewrites[0].then: unknown key (want when, do)`},
		{"wrong type", `
aliases:
  bluelabel: [EDDY]
`, `bad.yaml:3: aliases.bluelabel: must be a mapping of canonical agent ids to the ids bluelabel uses`},
		{"wrong type of a value", `
acts:
  swarm:
    accept: 7
`, `bad.yaml:4: acts.swarm.accept: must be reject, drop, or {send_as: ACT}`},
		{"duplicate alias entry", `
aliases:
  bluelabel:
    Eddy: EDDY
    Eddy: ED
`, `bad.yaml:5: aliases.bluelabel.Eddy: duplicate key (first at line 4)`},
		{"duplicate operation entry", `
operations:
  - {swarm: debug_code, elizaacl: debug_code}
  - {swarm: debug_code, fuse: code/debug}
`, `bad.yaml:4: operations[1].swarm: duplicate entry: swarm operation "debug_code" is already mapped at line 3`},
		{"alias maps two ids to one", `
aliases:
  bluelabel:
    Eddy: EDDY
    eddy: EDDY
`, `bad.yaml:5: aliases.bluelabel.eddy: maps a second id to "EDDY": Eddy (line 4) already is "EDDY"`},
		{"malformed path", `
rewrites:
  - when: {to: elizaacl}
    do:
      - delete: arguments..x
`, `bad.yaml:5: rewrites[0].do[0].delete: malformed path "arguments..x": empty path segment`},
		{"path outside the payload", `
rewrites:
  - do:
      - set: {path: header.priority, value: 3}
`, `bad.yaml:4: rewrites[0].do[0].set.path: malformed path "header.priority": a path starts with one of arguments, result, context, metadata, inputs, authentication, extensions, error.details`},
		{"path with a gjson modifier", `
rewrites:
  - do:
      - delete: arguments.items.#
`, `bad.yaml:4: rewrites[0].do[0].delete: malformed path "arguments.items.#": character # is not allowed in a path (plain member names and array indexes only)`},
		{"rule that can never match", `
rewrites:
  - when: {to: swarm, act: accept}
    do: [delete: arguments.x]
`, `bad.yaml:3: rewrites[0].when.act: the rule can never match: swarm cannot express accept`},
		{"unknown dialect", `
rewrites:
  - when: {from: klingon}
    do: [delete: arguments.x]
`, `bad.yaml:3: rewrites[0].when.from: unknown dialect "klingon" (known: a2a, bluelabel, collab, elizaacl, fuse, swarm)`},
		{"act policy that never applies", `
acts:
  swarm:
    request: drop
`, `bad.yaml:4: acts.swarm.request: never applies: swarm writes request as "request"; a policy is for acts it cannot express`},
		{"send as an act the dialect lacks too", `
acts:
  swarm:
    accept: {send_as: needs-input}
`, `bad.yaml:4: acts.swarm.accept.send_as: swarm cannot express needs-input either`},
		{"operation in one dialect only", `
operations:
  - {swarm: debug_code}
`, `bad.yaml:3: operations[0]: an entry names the operation in at least two dialects`},
		{"rename to a path", `
rewrites:
  - do:
      - rename: {path: arguments.code, to: arguments.source}
`, `bad.yaml:4: rewrites[0].do[0].rename.to: malformed member name "arguments.source": a plain name, no path`},
		{"unknown edit", `
rewrites:
  - do:
      - copy: {from: arguments.a, to: arguments.b}
`, `bad.yaml:4: rewrites[0].do[0].copy: unknown edit (want rename, move, set, delete, wrap, unwrap)`},
		{"move onto itself", `
rewrites:
  - do:
      - move: {from: context.a, to: context.a}
`, `bad.yaml:4: rewrites[0].do[0].move.to: moves context.a onto itself`},
		{"declaring a built-in", `
dialect: swarm
declare:
  detect: {a: "1"}
  fields: {act: type}
`, `bad.yaml:4: declare: "swarm" is a built-in dialect; a declaration names a new one`},
		{"declaration without words for its act", `
dialect: hook2
declare:
  detect: {hook: "2"}
  fields: {act: type}
`, `bad.yaml:4: declare.fields.act: needs words: add vocabulary.act`},
		{"declaration with overlapping paths", `
dialect: hook2
declare:
  detect: {hook: "2"}
  fields: {act: type, error.code: error, error.message: error.message}
vocabulary:
  act: {words: {call: request}}
  error: {words: {bad: invalid-message}}
`, `bad.yaml:5: declare.fields.error.message: path "error.message" and error.code's path "error" overlap: a member is a value or an object, not both`},
		{"declaration requiring an unknown path", `
dialect: hook2
declare:
  detect: {hook: "2"}
  fields: {act: type}
  required: [hook, body]
vocabulary:
  act: {words: {call: request}}
`, `bad.yaml:6: declare.required: "body" is neither a field path nor a detect mark`},
		{"declaring an undeclarable concept", `
dialect: hook2
declare:
  detect: {hook: "2"}
  fields: {act: type, capabilities: caps}
vocabulary:
  act: {words: {call: request}}
`, `bad.yaml:5: declare.fields.capabilities: not a concept a declared dialect can place`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := testDefaults(t)
			err := s.Add("bad.yaml", []byte(c.text))
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("got  %v\nwant %s", err, c.want)
			}
		})
	}
}

// TestEveryProblemListed: a file with several problems reports them all,
// and changes nothing.
func TestEveryProblemListed(t *testing.T) {
	s := testDefaults(t)
	err := s.Add("two.yaml", []byte(`aliases:
  bluelabel: {Eddy: EDDY}
  nowhere: {a: b}
acts:
  swarm: {accept: maybe}
`))
	es, ok := err.(Errors)
	if !ok || len(es) != 2 {
		t.Fatalf("got %v, want 2 problems", err)
	}
	if es[0].Line != 3 || es[1].Line != 5 {
		t.Errorf("lines %d, %d", es[0].Line, es[1].Line)
	}
	if _, ok := s.Alias("bluelabel", "Eddy"); ok {
		t.Error("a file with problems changed the set")
	}
}

func TestRules(t *testing.T) {
	s := testDefaults(t)
	if err := s.Add("site.yaml", []byte(`aliases:
  bluelabel:
    Eddy: EDDY
    agent-1: AGENT_ONE
operations:
  - elizaacl: debug_code
    swarm: debug
    fuse: code/debug
acts:
  swarm:
    accept: drop
    needs-input: {send_as: event}
rewrites:
  - when: {from: swarm, to: elizaacl, act: request, operation: debug}
    do:
      - rename: {path: arguments.code, to: code_to_debug}
      - set: {path: arguments.lang, value: {name: python, version: 3}}
      - move: {from: arguments.session, to: context.session}
      - delete: error.details.trace
      - wrap: {path: arguments, key: task_parameters}
      - unwrap: result.output
`)); err != nil {
		t.Fatal(err)
	}
	if v, ok := s.Alias("bluelabel", "Eddy"); !ok || v != "EDDY" {
		t.Errorf("Alias = %q %v", v, ok)
	}
	if v, ok := s.Unalias("bluelabel", "AGENT_ONE"); !ok || v != "agent-1" {
		t.Errorf("Unalias = %q %v", v, ok)
	}
	if v, ok := s.OperationName("swarm", "debug", "fuse"); !ok || v != "code/debug" {
		t.Errorf("OperationName = %q %v", v, ok)
	}
	if _, ok := s.OperationName("swarm", "debug", "collab"); ok {
		t.Error("an entry without the target dialect names nothing")
	}
	if p, ok := s.ActPolicy("swarm", canonical.ActAccept); !ok || p.Do != PolicyDrop || p.Line != 11 {
		t.Errorf("ActPolicy accept = %+v %v", p, ok)
	}
	if p, _ := s.ActPolicy("swarm", canonical.ActNeedsInput); p.Do != PolicySendAs || p.As != canonical.ActEvent {
		t.Errorf("ActPolicy needs-input = %+v", p)
	}
	rw := s.Rewrites()
	if len(rw) != 1 || len(rw[0].Do) != 6 || rw[0].Line != 14 {
		t.Fatalf("rewrites %+v", rw)
	}
	if !rw[0].When.Matches("swarm", "elizaacl", canonical.ActRequest, "debug") || rw[0].When.Matches("swarm", "collab", canonical.ActRequest, "debug") {
		t.Error("Matches")
	}
	set := rw[0].Do[1]
	if set.Op != EditSet || set.Path.String() != "arguments.lang" || string(set.Value) != `{"name":"python","version":3}` {
		t.Errorf("set edit %+v", set)
	}
	if d := rw[0].Do[3]; d.Path.Field != "error.details" || d.Path.Sub != "trace" {
		t.Errorf("delete edit %+v", d)
	}
	// A later file wins: a new alias for the same agent replaces the old.
	if err := s.Add("later.yaml", []byte("aliases:\n  bluelabel: {Eddy: EDDIE}\n")); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Alias("bluelabel", "Eddy"); v != "EDDIE" {
		t.Errorf("later alias: %q", v)
	}
	if _, ok := s.Unalias("bluelabel", "EDDY"); ok {
		t.Error("the replaced alias still resolves")
	}
	if got := s.Files(); len(got) != 8 || got[7] != "later.yaml" {
		t.Errorf("Files = %v", got)
	}
}

func TestDeclaration(t *testing.T) {
	data, err := os.ReadFile("../examples/hook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := testDefaults(t)
	if err := s.Add("examples/hook.yaml", data); err != nil {
		t.Fatal(err)
	}
	ds := s.Declarations()
	if len(ds) != 1 || ds[0].Name != "hook" {
		t.Fatalf("declarations %+v", ds)
	}
	d := ds[0]
	if d.Path(canonical.CAct) != "event" || d.Path(canonical.CErrorCode) != "error.code" || d.Path(canonical.CCapabilities) != "" {
		t.Errorf("paths: act %q error.code %q", d.Path(canonical.CAct), d.Path(canonical.CErrorCode))
	}
	if len(d.Detect) != 1 || d.Detect[0] != (Match{Path: "hook", Value: "1"}) {
		t.Errorf("detect %+v", d.Detect)
	}
	if strings.Join(d.Required, ",") != "hook,id,event,from,sent_at" {
		t.Errorf("required %v", d.Required)
	}
	if c, ok := s.Vocabulary("hook").Table(canonical.KindAct).Canonical("notify"); !ok || c != "event" {
		t.Errorf("hook words: %q %v", c, ok)
	}
	// The declared dialect is known to later files.
	if err := s.Add("site.yaml", []byte("aliases:\n  hook: {Eddy: eddy-bot}\n")); err != nil {
		t.Error(err)
	}
}
