package directory

import (
	"encoding/json"
	"hash/maphash"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// maxInterned bounds the distinct tools (and their schemas) a directory
// shares between agents, and the distinct lists of them; past it, a new
// tool or list is copied for its agent alone.
const maxInterned = 4096

// interner shares what many agents declare alike: a tool equal in every
// field to one already kept is kept once, its strings copied out of the
// message it was decoded from (which would otherwise stay for as long as
// the agent does), and its schemas are turned into bytes once for every
// listing; and a list of tools equal to one kept (agents of one kind
// declare the same) is that list. Thousands of agents offering the same
// tools then cost one set of descriptors and one list. It changes under
// the directory's write lock, and is read under its read lock.
type interner struct {
	tools   map[canonical.Tool]canonical.Tool
	schemas map[canonical.JSON]json.RawMessage
	// lists are the kept lists by their hash (seeded by seed), nlists
	// how many.
	lists  map[uint64][][]canonical.Tool
	nlists int
	seed   maphash.Seed
}

func newInterner() *interner {
	return &interner{tools: map[canonical.Tool]canonical.Tool{}, schemas: map[canonical.JSON]json.RawMessage{},
		lists: map[uint64][][]canonical.Tool{}, seed: maphash.MakeSeed()}
}

// all returns tools as the directory keeps them: a list that may be
// shared, and must not be modified; its capacity is its length.
func (n *interner) all(tools []canonical.Tool) []canonical.Tool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]canonical.Tool, len(tools))
	for i, t := range tools {
		out[i] = n.tool(t)
	}
	h := n.hash(out)
	for _, l := range n.lists[h] {
		if slices.Equal(l, out) {
			return l
		}
	}
	if n.nlists < maxInterned {
		n.lists[h] = append(n.lists[h], out)
		n.nlists++
	}
	return out
}

// hash sums a list of tools.
func (n *interner) hash(tools []canonical.Tool) uint64 {
	var h maphash.Hash
	h.SetSeed(n.seed)
	for _, t := range tools {
		for _, s := range [...]string{t.Name, t.Capability, t.Title, t.Description, string(t.InputSchema), string(t.OutputSchema), t.Version} {
			_, _ = h.WriteString(s)
			h.WriteByte(0)
		}
	}
	return h.Sum64()
}

// tool returns the kept tool equal to t, keeping a copy of t if there is
// none.
func (n *interner) tool(t canonical.Tool) canonical.Tool {
	if k, ok := n.tools[t]; ok {
		return k
	}
	k := canonical.Tool{
		Name: strings.Clone(t.Name), Capability: strings.Clone(t.Capability), Title: strings.Clone(t.Title),
		Description:  strings.Clone(t.Description),
		InputSchema:  canonical.JSON(strings.Clone(string(t.InputSchema))),
		OutputSchema: canonical.JSON(strings.Clone(string(t.OutputSchema))),
		Version:      strings.Clone(t.Version),
	}
	if len(n.tools) < maxInterned {
		n.tools[k] = k
		for _, s := range []canonical.JSON{k.InputSchema, k.OutputSchema} {
			if _, ok := n.schemas[s]; s != "" && !ok {
				n.schemas[s] = json.RawMessage(s)
			}
		}
	}
	return k
}

// raw returns schema as bytes: the kept ones when it is kept (they must
// not be modified), a copy otherwise; nil for none.
func (n *interner) raw(schema canonical.JSON) json.RawMessage {
	if schema == "" {
		return nil
	}
	if r, ok := n.schemas[schema]; ok {
		return r
	}
	return json.RawMessage(schema)
}
