// Package spectest holds the checks every YAML format specified with
// package spec runs in its tests: its JSON Schema as an editor compiles
// it, files as the JSON values an editor checks, and its generated
// reference page against the golden copy and the docs.
package spectest

import (
	"bytes"
	"os"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema compiles the JSON Schema schema, named name, as an editor would.
func Schema(t testing.TB, name string, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Value returns the YAML text as the JSON value an editor checks against
// a schema.
func Value(t testing.TB, text []byte) any {
	t.Helper()
	b, err := spec.YAMLAsJSON(text)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// Page is a format's generated reference page and where it is kept.
type Page struct {
	// Reference is the page as the spec generates it.
	Reference []byte
	// Golden is its copy under testdata; Doc the documentation page that
	// holds it between the markers Begin and End.
	Golden, Doc, Begin, End string
	// Update rewrites both instead of failing; Hint says how to ask for
	// it.
	Update bool
	Hint   string
}

// Reference fails when p's golden copy or its documentation page does not
// hold what the spec generates; with p.Update it rewrites both.
func Reference(t testing.TB, p Page) {
	t.Helper()
	doc, err := os.ReadFile(p.Doc)
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := spec.Splice(doc, p.Begin, p.End, p.Reference)
	if err != nil {
		t.Fatalf("%s: %v", p.Doc, err)
	}
	for _, f := range []struct {
		name string
		want []byte
	}{{p.Golden, p.Reference}, {p.Doc, spliced}} {
		got, _ := os.ReadFile(f.name)
		switch {
		case bytes.Equal(got, f.want):
		case p.Update:
			if err := os.WriteFile(f.name, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s differs from what the spec generates; %s", f.name, p.Hint)
		}
	}
}
