// Package builtin imports the five built-in dialects, whose packages
// register their records (package dialects), and builds registries of every
// registered dialect's codec and of the dialects that mapping files declare,
// each built on its vocabulary from a mapping set.
//
// A new dialect is a package that registers its record, and one import
// line here.
package builtin

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/mappings"

	// The built-in dialects.
	_ "github.com/mcp-bridge/mcp-bridge/dialects/a2a"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/bluelabel"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/collab"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/elizaacl"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/fuse"
	_ "github.com/mcp-bridge/mcp-bridge/dialects/swarm"
)

// Registry returns a registry of every registered dialect's codec and of
// the dialects m's files declare, using the vocabularies of m. A
// declaration no codec can serve is an error naming its file and line.
func Registry(m *mappings.Set) (*dialects.Registry, error) {
	r, err := dialects.NewCodecs(m)
	if err != nil {
		return nil, err
	}
	for _, d := range m.Declarations() {
		c, err := declared.New(d, m.Vocabulary(d.Name))
		if err != nil {
			return nil, err
		}
		if err := r.Register(c); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Default returns a registry of every registered dialect's codec on the
// default mappings.
func Default() *dialects.Registry {
	r, err := Registry(dialects.DefaultMappings())
	if err != nil {
		panic(err) // the defaults declare no dialect
	}
	return r
}
