package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestFormatSchemas checks `mappings schema` and `conformance schema`: each
// prints its format's JSON Schema, and takes no argument.
func TestFormatSchemas(t *testing.T) {
	cases := []struct {
		args []string
		key  string // a top-level key the schema has
	}{
		{[]string{"mappings", "schema"}, "rewrites"},
		{[]string{"conformance", "schema"}, "requirements"},
		{[]string{"config", "schema"}, "agents"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(c.args, nil, &out, &errOut); code != exitOK {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			var s struct {
				Schema     string         `json:"$schema"`
				Properties map[string]any `json:"properties"`
			}
			if err := json.Unmarshal(out.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
			if s.Schema != "https://json-schema.org/draft/2020-12/schema" || s.Properties[c.key] == nil {
				t.Errorf("schema %s, properties %v", s.Schema, s.Properties)
			}
			out.Reset()
			errOut.Reset()
			if code := run(append(c.args, "extra"), nil, &out, &errOut); code != exitUsage || !strings.Contains(errOut.String(), "usage: mcp-bridge "+c.args[0]) {
				t.Errorf("with an argument: exit %d, %q", code, errOut.String())
			}
		})
	}
}
