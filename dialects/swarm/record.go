package swarm

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
		Summary:      "mcp-swarm's bridge protocol: requests, responses, errors, notifications, handshakes",
		Spec:         "specs/swarm.md",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		Load: dialects.LoadPaths{Type: "message_type", Request: "request", Sender: "sender_id", ID: "message_id",
			Arguments: "payload.arguments", Correlation: []string{"correlation_id"}},
	})
}
