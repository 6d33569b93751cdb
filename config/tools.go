package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"gopkg.in/yaml.v3"
)

// Tool is a tool an agent serves, as the config declares it: for agents
// that cannot declare their own (bluelabel has no declaration), or whose
// declarations carry no descriptions or schemas (swarm's handshake lists
// names).
type Tool struct {
	// Name is the operation's name, as mapping files write it (fuse's
	// capability/action).
	Name        string
	Title       string
	Description string
	// InputSchema and OutputSchema are JSON Schemas (converted from the
	// YAML), nil when not given.
	InputSchema, OutputSchema json.RawMessage
}

// Named returns tools of the names given, with nothing else declared.
func Named(names ...string) []Tool {
	out := make([]Tool, len(names))
	for i, n := range names {
		out[i] = Tool{Name: n}
	}
	return out
}

// ToolNames returns the names of tools.
func ToolNames(tools []Tool) []string {
	out := make([]string, len(tools))
	for i, t := range tools {
		out[i] = t.Name
	}
	return out
}

const toolKeys = "name, title, description, input_schema, output_schema"

// tools reads an agent's tools: each a name alone, or a mapping (name,
// title, description, input_schema, output_schema).
func (d *decoder) tools(n *yaml.Node, at string) []Tool {
	if n.Kind != yaml.SequenceNode {
		d.fail(n.Line, at, "must be a list of tools: names, or mappings (%s)", toolKeys)
		return nil
	}
	var out []Tool
	seen := map[string]int{}
	for i, tn := range n.Content {
		tat := fmt.Sprintf("%s[%d]", at, i)
		tn = deref(tn)
		var t Tool
		line := tn.Line
		if tn.Kind == yaml.ScalarNode {
			var ok bool
			if t.Name, ok = d.scalar(tn, tat, "an operation name"); !ok {
				continue
			}
		} else {
			if !d.mapping(tn, tat, toolKeys) {
				continue
			}
			d.pairs(tat+".", tn, func(k, v *yaml.Node) {
				kat := tat + "." + k.Value
				switch k.Value {
				case "name":
					t.Name, _ = d.scalar(v, kat, "an operation name")
					line = v.Line
				case "title":
					t.Title, _ = d.scalar(v, kat, "a title")
				case "description":
					t.Description, _ = d.scalar(v, kat, "a description")
				case "input_schema":
					t.InputSchema = d.schema(v, kat)
				case "output_schema":
					t.OutputSchema = d.schema(v, kat)
				default:
					d.fail(k.Line, kat, "unknown key (want %s)", toolKeys)
				}
			})
			if t.Name == "" {
				d.fail(tn.Line, tat+".name", "missing: every tool has a name")
				continue
			}
		}
		if first, dup := seen[t.Name]; dup {
			d.fail(line, tat, "the tool %q is listed twice (first at line %d)", t.Name, first)
			continue
		}
		seen[t.Name] = line
		out = append(out, t)
	}
	return out
}

// schema reads a JSON Schema written in YAML, checking that it compiles
// (draft 2020-12), and returns it as JSON.
func (d *decoder) schema(n *yaml.Node, at string) json.RawMessage {
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, at, "must be a JSON Schema: a mapping ({type: object, properties: ...})")
		return nil
	}
	var v any
	if err := n.Decode(&v); err != nil {
		d.fail(n.Line, at, "%v", err)
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		d.fail(n.Line, at, "cannot be JSON: %v", err)
		return nil
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err == nil {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err = c.AddResource("urn:mcp-bridge:config-schema", doc); err == nil {
			_, err = c.Compile("urn:mcp-bridge:config-schema")
		}
	}
	if err != nil {
		d.fail(n.Line, at, "is not a JSON Schema: %s", schemaProblem(err))
		return nil
	}
	return b
}

var printer = message.NewPrinter(language.English)

// schemaProblem words why a schema does not compile: the places where it
// breaks the metaschema, or the compiler's own error.
func schemaProblem(err error) string {
	var se *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	if !errors.As(err, &se) || !errors.As(se.Err, &ve) {
		return err.Error()
	}
	var leaves []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			leaves = append(leaves, fmt.Sprintf("at /%s: %s", strings.Join(e.InstanceLocation, "/"), e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return strings.Join(leaves, "; ")
}
