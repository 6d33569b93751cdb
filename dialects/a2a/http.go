package a2a

import _ "embed"

// HTTPRequirements is the conformance requirement file of A2A agents over
// HTTP (the agent card, the JSON-RPC binding over HTTP POST, streaming
// over server-sent events, tasks), which `mcp-bridge conformance --dialect
// a2a --url http://...` runs; the record's Requirements check the frames
// of a2a agents on the bridge's own transports.
//
//go:embed conformance_http.yaml
var HTTPRequirements []byte
