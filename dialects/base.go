package dialects

import (
	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Base is what every codec is built on: its vocabulary tables, a Reader
// that words errors in the dialect's name, and its schema. Codecs embed it;
// it supplies their Name and Schema methods.
type Base struct {
	// The dialect's words for the canonical vocabularies.
	Acts, Outcomes, Errors, Priorities *mappings.Table
	// Read type-checks the members a decoder reads.
	Read   Reader
	schema *Schema
}

// NewBase returns the base of dialect name, with its JSON Schema document
// and its vocabulary v (the dialect's tables of a mapping set).
func NewBase(name string, schema []byte, v *mappings.Vocabulary) Base {
	return Base{
		Acts:       v.Table(canonical.KindAct),
		Outcomes:   v.Table(canonical.KindOutcome),
		Errors:     v.Table(canonical.KindError),
		Priorities: v.Table(canonical.KindPriority),
		Read:       Reader{Dialect: name},
		schema:     NewSchema(name, schema),
	}
}

// Name returns the dialect's name.
func (b *Base) Name() string { return b.Read.Dialect }

// Schema returns the dialect's JSON Schema document.
func (b *Base) Schema() []byte { return b.schema.Source }

// CheckSchema validates msg against the dialect's JSON Schema.
func (b *Base) CheckSchema(msg []byte) []Problem { return b.schema.Check(msg) }
