package config

import (
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// readFile returns a file's text.
func readFile(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestSchema(t *testing.T) {
	s := spectest.Schema(t, "mcp-bridge.schema.json", Schema())
	good := []struct{ name, text string }{
		{"default.yaml", string(defaultFile)},
		{"deploy/bridge.yaml", string(readFile(t, "../deploy/bridge.yaml"))},
		{"docs/config.md's whole file", string(wholeFile(t))},
		{"empty mapping", "{}"},
		{"${VAR} for a number", "max_frame: ${MAX_FRAME}\nqueue: {per_agent: '${PER_AGENT}'}\nmcp: {enabled: '${MCP_ON}'}\n"},
		{"heartbeat off", "heartbeat: 0\ndedupe_window: 0s\n"},
		{"a size in bytes", "max_frame: 65536\n"},
		{"tools as names and descriptors", "agents:\n  - id: A\n    dialect: swarm\n    tools: [a, {name: b, input_schema: {type: object, required: [x]}}]\n"},
		{"an MCP server", "agents:\n  - id: M\n    mcp: {url: 'http://h/mcp', headers: {Authorization: 'Bearer ${T}'}}\n"},
	}
	for _, c := range good {
		if err := s.Validate(spectest.Value(t, []byte(c.text))); err != nil {
			t.Errorf("%s: refused: %v", c.name, err)
		}
	}
	// Each refusal names where in the file it is.
	bad := []struct{ name, text, at string }{
		{"unknown key", "listn: 127.0.0.1:7300\n", "/"},
		{"unknown nested key", "retry: {tries: 3}\n", "/retry"},
		{"wrong type", "max_frame: [1]\n", "/max_frame"},
		{"not a duration", "request_timeout: 30\n", "/request_timeout"},
		{"an enum's stranger", "validate: strict\n", "/validate"},
		{"below the least", "queue: {per_agent: 0}\n", "/queue/per_agent"},
		{"two ways to reach", "agents:\n  - {id: A, dialect: swarm, url: 'ws://h/', webhook: 'http://h/'}\n", "/agents/0"},
		{"env without command", "agents:\n  - {id: A, dialect: swarm, env: {A: b}}\n", "/agents/0"},
		{"agent without id", "agents:\n  - {dialect: swarm}\n", "/agents/0"},
		{"MCP server with neither", "agents:\n  - {id: M, mcp: {}}\n", "/agents/0/mcp"},
		{"MCP server with both", "agents:\n  - {id: M, mcp: {url: 'http://h/', command: [x]}}\n", "/agents/0/mcp"},
		{"a schema that is not one", "agents:\n  - id: A\n    dialect: swarm\n    tools: [{name: b, input_schema: {type: 7}}]\n", "/agents/0/tools/0/input_schema/type"},
		{"a repeated topic", "agents:\n  - {id: A, dialect: swarm, subscribe: [a, a]}\n", "/agents/0/subscribe"},
		{"an empty command", "agents:\n  - {id: A, dialect: swarm, command: []}\n", "/agents/0/command"},
	}
	for _, c := range bad {
		err := s.Validate(spectest.Value(t, []byte(c.text)))
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%s: accepted (%v)", c.name, err)
			continue
		}
		if at := leaves(ve); !slices.Contains(at, c.at) {
			t.Errorf("%s: refused at %q, want at %s", c.name, at, c.at)
		}
	}
}

// leaves are the instance locations of a validation error's causes.
func leaves(e *jsonschema.ValidationError) []string {
	if len(e.Causes) == 0 {
		return []string{"/" + strings.Join(e.InstanceLocation, "/")}
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

// TestSchemaDescribes checks that the schema carries the spec's docs and
// defaults, for an editor's hover and completion.
func TestSchemaDescribes(t *testing.T) {
	var s struct {
		Properties map[string]struct {
			Description string
			Default     any
		}
	}
	if err := json.Unmarshal(Schema(), &s); err != nil {
		t.Fatal(err)
	}
	for _, f := range serve().Root.Keys() {
		p, ok := s.Properties[f.Key()]
		if !ok || p.Description != f.Doc() {
			t.Errorf("%s: description %q, want %q", f.Key(), p.Description, f.Doc())
		}
	}
	if d := s.Properties["max_frame"].Default; d != "1MiB" {
		t.Errorf("max_frame default %v", d)
	}
}
