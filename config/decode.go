package config

import "github.com/mcp-bridge/mcp-bridge/internal/spec"

// decodeFile decodes a whole config file against the serve spec: the root
// value with every default filled in, or nil when the file is not a YAML
// mapping, and the decoder holding the problems found.
func decodeFile(name string, data []byte) (*spec.Value, *spec.Decoder) {
	d := serve().NewDecoder(name)
	return d.Decode(data), d
}
