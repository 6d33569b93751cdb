package a2a

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
		Summary:      "the Agent2Agent protocol v1.0 over JSON-RPC: SendMessage, GetTask, CancelTask; tasks, messages, status updates, errors",
		Spec:         "A2A v1.0 (a2a-protocol.org; github.com/a2aproject/a2a-go/v2 v2.3.1)",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		// A2A frames name no sender: the member below is never there, and
		// the bridge knows the sender from its connection. An answer names
		// its request by the JSON-RPC id.
		Load: dialects.LoadPaths{Type: "method", Request: methodSend, Sender: "params.message.metadata.sender",
			ID: "id", Arguments: "params.message.parts.0.data", Correlation: []string{"id"}},
	})
}
