package config

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
)

var update = flag.Bool("update", false, "rewrite testdata/reference.md and docs/config.md's key reference from the spec")

const configDoc = "../docs/config.md"

// TestReference fails when the golden reference page or docs/config.md's
// key reference is not what the spec generates; -update rewrites both.
func TestReference(t *testing.T) {
	spectest.Reference(t, spectest.Page{Reference: reference(), Golden: "testdata/reference.md", Doc: configDoc,
		Begin: referenceBegin, End: referenceEnd, Update: *update, Hint: "run go test ./config -run TestReference -update"})
}

// TestSpecSound checks what the spec's own parts must agree on: every key
// documented, once per object; the keys rules name exist; every default
// decodes against its field.
func TestSpecSound(t *testing.T) {
	if err := serve().Sound(); err != nil {
		t.Error(err)
	}
}

// TestDefaultFile checks config/default.yaml against the spec: every
// value it shows is the spec's default, and every key of each object it
// shows is there, as a key or in a comment.
func TestDefaultFile(t *testing.T) {
	root, d := decodeFile(defaultName, defaultFile)
	if errs := d.Errors(); len(errs) > 0 {
		t.Fatal(errs)
	}
	text := string(defaultFile)
	var walk func(v *spec.Value)
	walk = func(v *spec.Value) {
		if !v.Given() {
			return
		}
		if v.Node().Kind() != spec.KindObject {
			def := serve().NewDecoder(defaultName).Default(v.Node(), v.Path())
			if def == nil {
				t.Errorf("default.yaml shows %s, which has no default", v.Path())
			} else if got, want := show(t, v), show(t, def); got != want {
				t.Errorf("default.yaml: %s is %s; the spec's default is %s", v.Path(), got, want)
			}
			return
		}
		for _, c := range v.Node().Keys() {
			if !v.Wrote(c.Key()) && !strings.Contains(text, "# "+c.Key()+":") && !strings.Contains(text, "#   "+c.Key()+":") {
				t.Errorf("default.yaml neither shows nor mentions %s", spec.Join(v.Path(), c.Key()))
			}
		}
		for _, it := range v.Items() {
			walk(it)
		}
	}
	walk(root)
}

// show is a value as config show writes it, without comments.
func show(t *testing.T, v *spec.Value) string {
	t.Helper()
	b, err := v.YAML()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(strings.TrimSpace(string(b)), " # default")
}

// wholeFile is the whole-file example of docs/config.md.
func wholeFile(t *testing.T) []byte {
	t.Helper()
	doc, err := os.ReadFile(configDoc)
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := bytes.Cut(doc, []byte("A whole file:\n\n```yaml\n"))
	example, _, closed := bytes.Cut(rest, []byte("```\n"))
	if !ok || !closed {
		t.Fatalf("%s has no whole-file example", configDoc)
	}
	return example
}

// TestWholeFileExample checks that docs/config.md's whole-file example is
// a sound config that shows every top-level key.
func TestWholeFileExample(t *testing.T) {
	t.Setenv("MCP_TOKEN", "secret")
	example := wholeFile(t)
	if _, err := Parse("serve.yaml", example, dialects.Names()); err != nil {
		t.Fatal(err)
	}
	root, _ := decodeFile("serve.yaml", example)
	for _, f := range serve().Root.Keys() {
		if !root.Wrote(f.Key()) {
			t.Errorf("the whole-file example lacks %s", f.Key())
		}
	}
}
