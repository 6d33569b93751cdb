package bluelabel

import (
	_ "embed"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

//go:embed mapping.yaml
var mappingYAML []byte

//go:embed conformance.yaml
var requirementsYAML []byte

func init() {
	dialects.Register(dialects.Record{
		Name:         Name,
		Summary:      "Bluelabel Agent OS: task_assignment, task_result, error, needs_input",
		Spec:         "specs/bluelabel.md",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		Load: dialects.LoadPaths{Type: "type", Request: "task_assignment", Sender: "sender_id", ID: "task_id",
			Arguments: "payload.content.parameters", Correlation: []string{"task_id"}},
	})
}
