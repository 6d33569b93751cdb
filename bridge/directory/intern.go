package directory

import (
	"encoding/json"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// maxInterned bounds the distinct tools (and their schemas) a directory
// shares between agents; past it, a new tool is copied for its agent
// alone.
const maxInterned = 4096

// interner shares what many agents declare alike: a tool equal in every
// field to one already kept is kept once, its strings copied out of the
// message it was decoded from (which would otherwise stay for as long as
// the agent does), and its schemas are turned into bytes once for every
// listing. Thousands of agents offering the same tools then cost one
// set of descriptors. It changes under the directory's write lock, and is
// read under its read lock.
type interner struct {
	tools   map[canonical.Tool]canonical.Tool
	schemas map[canonical.JSON]json.RawMessage
}

func newInterner() *interner {
	return &interner{tools: map[canonical.Tool]canonical.Tool{}, schemas: map[canonical.JSON]json.RawMessage{}}
}

// all returns tools as the directory keeps them, a new slice.
func (n *interner) all(tools []canonical.Tool) []canonical.Tool {
	if len(tools) == 0 {
		return nil
	}
	out := make([]canonical.Tool, len(tools))
	for i, t := range tools {
		out[i] = n.tool(t)
	}
	return out
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
