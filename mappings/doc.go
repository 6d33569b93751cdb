// Package mappings holds the mapping files: the YAML that says how the
// dialects' words, agent names, operation names and payloads line up, and
// that can declare a dialect of its own. Each dialect's package holds its
// default file (its vocabulary tables) and registers it with its record
// (dialects.Record); each file a user gives is layered over those, later
// files winning. This package knows no dialect.
//
// A file's top-level keys, all optional:
//
//	dialect: swarm          # the dialect vocabulary and declare speak of
//	vocabulary: {...}       # its words, by table: act, outcome, error, priority
//	aliases: {...}          # per dialect: canonical agent id -> the id it uses
//	operations: [...]       # one operation's name in each dialect
//	acts: {...}             # per target dialect: what to do with an act it cannot express
//	rewrites: [...]         # payload edits by path, on some translations
//	declare: {...}          # a new dialect, defined by this file alone
//
// The format is specified once (spec.go), in the engine of internal/spec:
// the key reference in docs/mappings.md and `mcp-bridge mappings schema`
// are generated from it. Loading is strict: every problem is reported with
// its file and line (the errors hold the column too), and a file with
// problems changes nothing. docs/mappings.md is the reference.
package mappings
