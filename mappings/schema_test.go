package mappings

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
)

// TestSchemaTakesTheRepoFiles checks the JSON Schema of `mappings schema`
// as an editor would use it: every mapping file the repository ships is
// valid (and loads), and the mistakes a schema can see are refused.
func TestSchemaTakesTheRepoFiles(t *testing.T) {
	s := spectest.Schema(t, "mapping.schema.json", Schema())
	var files []string
	for _, glob := range []string{"../dialects/*/mapping.yaml", "../translate/testdata/mapping/*.yaml", "../examples/*.yaml",
		"../examples/*/testdata/mapping.yaml", "../cmd/mcp-bridge/demo.yaml", "../cmd/mcp-bridge/testdata/drop-accept.yaml"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("only %d mapping files found: %v", len(files), files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if err := testDefaults(t).Add(f, data); err != nil {
			t.Errorf("%s: the loader refuses it: %v", f, err)
		}
		if err := s.Validate(spectest.Value(t, data)); err != nil {
			t.Errorf("%s: refused: %v", f, err)
		}
	}
	for name, text := range map[string]string{
		"an unknown key":         "dialects: swarm\n",
		"an unknown table":       "dialect: swarm\nvocabulary: {colour: {}}\n",
		"a word of no act":       "dialect: swarm\nvocabulary: {act: {words: {ping: pong}}}\n",
		"a policy of no kind":    "acts: {swarm: {accept: later}}\n",
		"two edits in one":       "rewrites: [{do: [{delete: arguments.a, unwrap: result.b}]}]\n",
		"a rule that does not":   "rewrites: [{when: {from: swarm}}]\n",
		"a set without a value":  "rewrites: [{do: [{set: {path: arguments.a}}]}]\n",
		"aliases that are not":   "aliases: {bluelabel: [EDDY]}\n",
		"a declaration key":      "dialect: hook\ndeclare: {detect: {a: b}, field: {}}\n",
		"fold_case that is not":  "dialect: swarm\nvocabulary: {act: {fold_case: maybe}}\n",
		"an operation's mapping": "operations: [[swarm, fuse]]\n",
	} {
		if err := s.Validate(spectest.Value(t, []byte(text))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
