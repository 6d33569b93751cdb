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
	// Version is the version of the tool's definition, "" when not given.
	Version string
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

// checkSchema checks that a JSON Schema compiles (draft 2020-12). It says
// why not, or "".
func checkSchema(raw []byte) string {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err == nil {
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err = c.AddResource("urn:mcp-bridge:config-schema", doc); err == nil {
			_, err = c.Compile("urn:mcp-bridge:config-schema")
		}
	}
	if err != nil {
		return "is not a JSON Schema: " + schemaProblem(err)
	}
	return ""
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
