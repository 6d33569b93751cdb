package mappings

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// TestSchemaTakesTheRepoFiles checks the JSON Schema of `mappings schema`
// as an editor would use it: every mapping file the repository ships is
// valid (and loads), and the mistakes a schema can see are refused.
func TestSchemaTakesTheRepoFiles(t *testing.T) {
	s := compileSchema(t, Schema())
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
		if err := s.Validate(yamlValue(t, data)); err != nil {
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
		if err := s.Validate(yamlValue(t, []byte(text))); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// compileSchema compiles a JSON Schema as an editor would.
func compileSchema(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("mapping.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("mapping.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// yamlValue is a YAML file as the JSON value an editor checks.
func yamlValue(t *testing.T, text []byte) any {
	t.Helper()
	var x any
	if err := yaml.Unmarshal(text, &x); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
