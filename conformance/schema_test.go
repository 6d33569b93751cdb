package conformance

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
)

// TestSchemaTakesTheRepoFiles checks the JSON Schema of `conformance
// schema` as an editor would use it: every requirement file the repository
// ships is valid (and parses), and the mistakes a schema can see are
// refused.
func TestSchemaTakesTheRepoFiles(t *testing.T) {
	s := spectest.Schema(t, "requirements.schema.json", Schema())
	files, err := filepath.Glob("../dialects/*/conformance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("../examples/*/testdata/conformance.yaml")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(files) < 6 {
		t.Fatalf("only %d requirement files found: %v", len(files), files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := parseSuite(f, data); err != nil {
			t.Errorf("%s: ParseSuite refuses it: %v", f, err)
		}
		if err := s.Validate(spectest.Value(t, data)); err != nil {
			t.Errorf("%s: refused: %v", f, err)
		}
	}
	head := "dialect: x\nspec: s\ncorrelation: {request: [id], reply: [re]}\nopening: none\n"
	req := head + "requirements:\n  - {id: x.a, section: s, level_note: n, title: t, scenario: frames"
	for name, text := range map[string]string{
		"no correlation":     "dialect: x\nspec: s\nopening: none\n",
		"an unknown opening": "dialect: x\nspec: s\ncorrelation: {request: [id], reply: [re]}\nopening: maybe\n",
		"an unknown key":     req + ", level: MUST, colour: red}\n",
		"an unknown level":   req + ", level: MAY}\n",
		"an unknown act":     req + ", level: MUST, first: [gossip]}\n",
		"an unknown kind":    req + ", level: MUST, steps: [{send: {kind: shout}}]}\n",
		"a check's stranger": req + ", level: MUST, steps: [{send: {kind: event}, expect: {check: [{path: a, like: b}]}}]}\n",
		"a bad ttl":          req + ", level: MUST, steps: [{send: {kind: request, ttl: soon}}]}\n",
	} {
		if err := s.Validate(spectest.Value(t, []byte(text))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestRequirementErrorsPlaced checks that a requirement file's problems
// are all listed, each with its line and column.
func TestRequirementErrorsPlaced(t *testing.T) {
	text := "dialect: x\nspec: s\ncorrelation: {request: [id], reply: [re]}\nopening: none\nrequirements:\n" +
		"  - {id: x.a, section: s, level: MAY, level_note: n, title: t, scenario: frames}\n" +
		"  - {id: y.b, section: s, level: MUST, level_note: n, title: t, steps: [{send: {kind: resend}}]}\n"
	_, err := ParseSuite([]byte(text))
	want := `conformance.yaml:6:34: requirements[0].level: level "MAY", want MUST or SHOULD
conformance.yaml:7:10: requirements[1].id: the id must start with "x."
conformance.yaml:7:80: requirements[1].steps[0].send.step: resend names step 0, not an earlier one`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}
