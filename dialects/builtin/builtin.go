// Package builtin registers the five built-in dialect codecs, each built on
// its vocabulary from a mapping set.
package builtin

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/bluelabel"
	"github.com/mcp-bridge/mcp-bridge/dialects/collab"
	"github.com/mcp-bridge/mcp-bridge/dialects/elizaacl"
	"github.com/mcp-bridge/mcp-bridge/dialects/fuse"
	"github.com/mcp-bridge/mcp-bridge/dialects/swarm"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Names lists the built-in dialects.
var Names = []string{elizaacl.Name, collab.Name, bluelabel.Name, fuse.Name, swarm.Name}

// Registry returns a registry of the built-in codecs using the vocabularies
// of m.
func Registry(m *mappings.Set) *dialects.Registry {
	r := dialects.NewRegistry()
	for _, c := range []dialects.Codec{
		elizaacl.New(m.Vocabulary(elizaacl.Name)),
		collab.New(m.Vocabulary(collab.Name)),
		bluelabel.New(m.Vocabulary(bluelabel.Name)),
		fuse.New(m.Vocabulary(fuse.Name)),
		swarm.New(m.Vocabulary(swarm.Name)),
	} {
		if err := r.Register(c); err != nil {
			panic(err) // the built-in names are distinct
		}
	}
	return r
}

// Default returns a registry of the built-in codecs on the embedded default
// mappings.
func Default() *dialects.Registry { return Registry(mappings.MustDefaults()) }
