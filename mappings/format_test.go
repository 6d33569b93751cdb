package mappings

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestFormatRoundTrip: what Format prints loads again into the same tables.
func TestFormatRoundTrip(t *testing.T) {
	s := testDefaults(t)
	hook, err := os.ReadFile("../examples/hook.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Add("examples/hook.yaml", hook); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("site.yaml", []byte(`aliases:
  bluelabel: {Eddy: EDDY, "agent-1": "AGENT_1"}
operations:
  - {swarm: debug, elizaacl: debug_code, fuse: "code/debug"}
acts:
  swarm: {accept: drop, needs-input: {send_as: event}}
rewrites:
  - when: {from: swarm, to: elizaacl}
    do:
      - rename: {path: arguments.code, to: code_to_debug}
      - set: {path: arguments.n, value: {a: [1, "2"]}}
      - wrap: {path: arguments, key: task_parameters}
`)); err != nil {
		t.Fatal(err)
	}
	for _, d := range s.Dialects() {
		var out bytes.Buffer
		if err := s.Format(&out, d); err != nil {
			t.Fatal(err)
		}
		again := &Set{vocab: map[string]*Vocabulary{}}
		for _, k := range s.Dialects() { // the dialects the printed file may name
			again.vocab[k] = &Vocabulary{Dialect: k, tables: map[string]*Table{}}
		}
		delete(again.vocab, "hook")
		if err := again.Add(d+".yaml", out.Bytes()); err != nil {
			t.Fatalf("%s: Format's output does not load: %v\n%s", d, err, out.String())
		}
		for _, k := range s.Vocabulary(d).Kinds() {
			a, b := s.Vocabulary(d).Table(k), again.Vocabulary(d).Table(k)
			if strings.Join(a.Words(), ",") != strings.Join(b.Words(), ",") {
				t.Errorf("%s %s: words %v, then %v", d, k, a.Words(), b.Words())
			}
			for _, w := range a.Words() {
				ca, _ := a.Canonical(w)
				cb, _ := b.Canonical(w)
				if ca != cb {
					t.Errorf("%s %s %s: %s, then %s", d, k, w, ca, cb)
				}
			}
		}
	}
	var out bytes.Buffer
	if err := s.Format(&out, "bluelabel"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"dialect: bluelabel", "  task_assignment: request", "Eddy: EDDY", "agent-1: AGENT_1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "rewrites:") {
		t.Errorf("bluelabel shows a swarm -> elizaacl rewrite:\n%s", out.String())
	}
	out.Reset()
	if err := s.Format(&out, "swarm"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"wrap: {path: arguments, key: task_parameters}", "accept: drop", "needs-input: {send_as: event}", `code/debug`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("show lacks %q:\n%s", want, out.String())
		}
	}
	if err := s.Format(&out, "klingon"); err == nil {
		t.Error("unknown dialect accepted")
	}
}
