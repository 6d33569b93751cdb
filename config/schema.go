package config

// Schema returns the JSON Schema (draft 2020-12) of a serve config file,
// generated from the spec, for editors. It checks what a schema can say:
// the keys, their types, enums and bounds, required keys, and which keys
// exclude or need others. The decoder checks the rest (addresses, URLs,
// dialects, agent ids).
func Schema() []byte { return serve().Schema() }
