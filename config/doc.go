// Package config reads the configuration of `mcp-bridge serve`: the
// listener, the bridge's own id, limits and timeouts, the mapping files to
// layer over the defaults, the log level, the MCP face, the cluster, and
// the agents the bridge knows with how each is reached (it connects in,
// or the bridge reaches it a way a transport registered in package reach:
// it dials its WebSocket, posts to its webhook, runs it as a stdio child,
// or is the client of the MCP server it is).
//
// The keys are specified once (spec.go), in the engine of internal/spec:
// each one's kind, default, documentation and checks, and the rules
// between keys; the keys of the ways to reach an agent are their
// transports', and what a way reads of them is the agent's Settings.
// The program registers the transports (transports/builtin) before it
// reads a config. The engine's decoder walks a file's YAML against that
// spec; docs/config.md's key reference (reference.go) and the JSON Schema
// of `mcp-bridge config schema` (schema.go) are generated from it, and
// `mcp-bridge config show` writes the decoded values back as YAML
// (show.go).
//
// Decoding is strict: an unknown key, a value of the wrong type, a
// duplicate key or agent id, an unknown dialect, two ways to reach one
// agent, or a malformed duration, size, address or URL is an error naming
// file:line and the key, and every problem in a file is reported at once.
// ${VAR} in a value is the environment variable. Relative paths (mappings,
// an agent's dir) are taken from the config file's directory. The embedded
// default (default.yaml) listens on 127.0.0.1:7300 and names no agents.
// docs/config.md is the reference.
package config
