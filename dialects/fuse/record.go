package fuse

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
		Summary:      "the Fuse framework: request, response (two shapes), event, capability declarations",
		Spec:         "specs/fuse.md",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		Load: dialects.LoadPaths{Type: "messageType", Request: "request", Sender: "source.agentId", ID: "id",
			Arguments: "content.parameters", Correlation: []string{"content.requestId", "requestId"}},
	})
}
