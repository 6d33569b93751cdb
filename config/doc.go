// Package config reads the configuration of `mcp-bridge serve`: the
// listener, the bridge's own id, limits and timeouts, the mapping files to
// layer over the defaults, the log level, and the agents the bridge knows
// with how each is reached (it connects in, the bridge dials its WebSocket,
// posts to its webhook, or runs it as a stdio child).
//
// Decoding is strict: an unknown key, a value of the wrong type, a
// duplicate key or agent id, an unknown dialect, two ways to reach one
// agent, or a malformed duration, size, address or URL is an error naming
// file:line and the key, and every problem in a file is reported at once.
// Relative paths (mappings, an agent's dir) are taken from the config
// file's directory. The embedded default (default.yaml) listens on
// 127.0.0.1:7300 and names no agents. docs/config.md is the reference.
package config
