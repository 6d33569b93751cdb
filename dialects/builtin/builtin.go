// Package builtin registers the five built-in dialect codecs, and the
// dialects that mapping files declare, each built on its vocabulary from a
// mapping set.
package builtin

import (
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/bluelabel"
	"github.com/mcp-bridge/mcp-bridge/dialects/collab"
	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/dialects/elizaacl"
	"github.com/mcp-bridge/mcp-bridge/dialects/fuse"
	"github.com/mcp-bridge/mcp-bridge/dialects/swarm"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Names lists the built-in dialects.
var Names = []string{elizaacl.Name, collab.Name, bluelabel.Name, fuse.Name, swarm.Name}

// Registry returns a registry of the built-in codecs and of the dialects
// m's files declare, using the vocabularies of m. A declaration no codec
// can serve is an error naming its file and line.
func Registry(m *mappings.Set) (*dialects.Registry, error) {
	r := dialects.NewRegistry()
	for _, c := range []dialects.Codec{
		elizaacl.New(m.Vocabulary(elizaacl.Name)),
		collab.New(m.Vocabulary(collab.Name)),
		bluelabel.New(m.Vocabulary(bluelabel.Name)),
		fuse.New(m.Vocabulary(fuse.Name)),
		swarm.New(m.Vocabulary(swarm.Name)),
	} {
		if err := r.Register(c); err != nil {
			return nil, err
		}
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

// Default returns a registry of the built-in codecs on the embedded default
// mappings.
func Default() *dialects.Registry {
	r, err := Registry(mappings.MustDefaults())
	if err != nil {
		panic(err) // the defaults declare no dialect
	}
	return r
}
