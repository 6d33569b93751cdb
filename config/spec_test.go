package config

import (
	"bytes"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

var update = flag.Bool("update", false, "rewrite docs/config.md's key reference from the spec")

const configDoc = "../docs/config.md"

// TestReference fails when docs/config.md's key reference is not what the
// spec generates; -update rewrites it.
func TestReference(t *testing.T) {
	doc, err := os.ReadFile(configDoc)
	if err != nil {
		t.Fatal(err)
	}
	want, err := spliceReference(doc)
	if err != nil {
		t.Fatalf("%s: %v", configDoc, err)
	}
	if bytes.Equal(doc, want) {
		return
	}
	if *update {
		if err := os.WriteFile(configDoc, want, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s: the key reference differs from what config/spec.go generates; run go test ./config -run TestReference -update", configDoc)
}

// TestSpecSound checks what the spec's own parts must agree on: every key
// documented, once per object; the keys rules name exist; every default
// decodes against its field.
func TestSpecSound(t *testing.T) {
	var walk func(f *field, path string)
	walk = func(f *field, path string) {
		if f.key != "" && f.doc == "" {
			t.Errorf("%s: no doc", path)
		}
		if f.def != "" {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s: %v", path, r)
					}
				}()
				newDecoder("serve.yaml").fallback(f, path)
			}()
		}
		switch f.kind {
		case kindObject:
			var keys []string
			for _, c := range f.fields {
				if slices.Contains(keys, c.key) {
					t.Errorf("%s: %s twice", path, c.key)
				}
				keys = append(keys, c.key)
				for _, w := range c.with {
					if f.child(w) == nil {
						t.Errorf("%s.%s: with %s, not a key of %s", path, c.key, w, path)
					}
				}
				walk(c, join(path, c.key))
			}
			if f.choice != nil {
				for _, k := range f.choice.keys {
					if f.child(k) == nil {
						t.Errorf("%s: the choice names %s, not a key", path, k)
					}
				}
			}
		case kindList, kindMap:
			if f.uniqueBy != "" {
				if o, _ := f.elem.object(); o == nil || o.child(f.uniqueBy) == nil {
					t.Errorf("%s: unique by %s, not a key of its items", path, f.uniqueBy)
				}
			}
			walk(f.elem, path+"[]")
		case kindOneOf:
			for _, a := range f.alts {
				walk(a, path)
			}
		case kindEnum:
			if f.def != "" && !slices.Contains(f.options, f.def) {
				t.Errorf("%s: default %q is not an option", path, f.def)
			}
		}
	}
	walk(spec, "")
}

// TestDefaultFile checks config/default.yaml against the spec: every
// value it shows is the spec's default, and every key of each object it
// shows is there, as a key or in a comment.
func TestDefaultFile(t *testing.T) {
	d := newDecoder(defaultName)
	root := d.decodeFile(defaultFile)
	if len(d.errs) > 0 {
		t.Fatal(d.errs)
	}
	text := string(defaultFile)
	var walk func(v *value)
	walk = func(v *value) {
		if !v.given {
			return
		}
		if v.f.kind != kindObject {
			def := newDecoder(defaultName).fallback(v.f, v.path)
			if def == nil {
				t.Errorf("default.yaml shows %s, which has no default", v.path)
			} else if got, want := show(t, v), show(t, def); got != want {
				t.Errorf("default.yaml: %s is %s; the spec's default is %s", v.path, got, want)
			}
			return
		}
		for _, c := range v.f.fields {
			if !v.wrote(c.key) && !strings.Contains(text, "# "+c.key+":") && !strings.Contains(text, "#   "+c.key+":") {
				t.Errorf("default.yaml neither shows nor mentions %s", join(v.path, c.key))
			}
		}
		for _, it := range v.items {
			walk(it)
		}
	}
	walk(root)
}

// show is a value as config show writes it, without comments.
func show(t *testing.T, v *value) string {
	t.Helper()
	n := render(v, nil)
	n.LineComment = ""
	b, err := yaml.Marshal(n)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
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
	d := newDecoder("serve.yaml")
	root := d.decodeFile(example)
	for _, f := range spec.fields {
		if !root.wrote(f.key) {
			t.Errorf("the whole-file example lacks %s", f.key)
		}
	}
}
