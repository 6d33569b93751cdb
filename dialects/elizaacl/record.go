package elizaacl

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
		Summary:      "ElizaOS's FIPA-style ACL: ten performatives (TASK_REQUEST, INFORM_RESULT, QUERY_CAPABILITIES...)",
		Spec:         "specs/elizaacl.md",
		New:          func(v *mappings.Vocabulary) dialects.Codec { return New(v) },
		Mapping:      mappingYAML,
		Requirements: requirementsYAML,
		Load: dialects.LoadPaths{Type: "performative", Request: "TASK_REQUEST", Sender: "sender.agent_id", ID: "message_id",
			Arguments: "payload.task_parameters", Correlation: []string{"in_reply_to"}},
	})
}
