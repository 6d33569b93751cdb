package collab

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
		Summary:      "a header/body/trace envelope: REQUEST, RESPONSE, PUBLISH, BROADCAST",
		Spec:         "specs/collab.md",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		Load: dialects.LoadPaths{Type: "header.type", Request: "REQUEST", Sender: "header.source", ID: "header.messageId",
			Arguments: "body.payload", Correlation: []string{"header.correlationId", "correlationId"}},
	})
}
