// Package declared is the codec of declared dialects: dialects defined in a
// mapping file alone (a mappings.Declaration and the file's vocabulary),
// with no Go code of their own. One Codec serves any declaration: it reads
// and writes the flat or nested JSON objects the declaration describes,
// derives the dialect's JSON Schema from it, and detects its messages by
// the declared marks.
package declared

import (
	"errors"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Codec reads and writes the messages of one declared dialect.
type Codec struct {
	dialects.Base
	// root is the tree of the declared paths; the message is its object.
	root *node
	// marks are the detection marks with a value, in declaration order.
	marks []*mark
	// stars are the paths of the "*" detection marks (fields too).
	stars []string
	// fields are the placed concepts, in declaration order.
	fields []*field
	// act is the field of the act, which every message must have.
	act *field
	// required are the paths a valid message must have: the declared
	// required paths and every detection mark, in declaration order.
	required []string
	// top are the declared field paths of one member, which Detect counts.
	top map[string]bool
	// holds are the concepts every message can carry.
	holds canonical.ConceptSet
}

// New returns the codec of the dialect d declares, with its words from v
// (the vocabulary of the same mapping file). It fails, naming d's file and
// line, on a declaration it cannot serve: a concept that cannot be
// declared or is placed twice, a bad or clashing path, no act path, a word
// concept whose table is empty, no detection mark with a value, a "*" mark
// that is not also a field, or a required path that is neither a field nor
// a mark.
func New(d *mappings.Declaration, v *mappings.Vocabulary) (*Codec, error) {
	if d == nil {
		return nil, errors.New("declared: no declaration")
	}
	c := &Codec{}
	if err := c.build(d, v); err != nil {
		return nil, err
	}
	schema, err := c.deriveSchema(d)
	if err != nil {
		return nil, &mappings.Error{File: d.File, Line: d.Line, Key: "declare", Msg: err.Error()}
	}
	c.Base = dialects.NewBase(d.Name, schema, v)
	if err := dialects.NewSchema(d.Name, schema).Err(); err != nil {
		return nil, &mappings.Error{File: d.File, Line: d.Line, Key: "declare", Msg: "derived schema does not compile: " + err.Error()}
	}
	return c, nil
}

// Holds returns the concepts a message of the dialect carries: those the
// declaration places, the act and the extra members. It is the same for
// every act.
func (c *Codec) Holds(canonical.Act) canonical.ConceptSet { return c.holds }
