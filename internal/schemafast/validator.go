// Package schemafast answers, for a JSON Schema compiled by
// santhosh-tekuri/jsonschema, whether a message is valid, directly over its
// bytes: no instance tree, and no allocation for most messages. It reads the
// library's compiled schema, so it is driven by the same document the library
// reads, and checks the keywords of the dialects' schemas exactly as the
// library does; a schema keyword it does not check, or a value it cannot
// judge exactly, makes it answer Unknown. The library stays the oracle: only
// its answer to a message that is not Valid words the problems.
package schemafast

import (
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Verdict is the fast path's answer about one message.
type Verdict uint8

const (
	// Unknown: the fast path cannot say; ask the library.
	Unknown Verdict = iota
	// Valid: the message is one JSON value in UTF-8, with no object member
	// given twice, that the schema accepts.
	Valid
	// Invalid: the message is not Valid; the library says why.
	Invalid
)

func (v Verdict) String() string {
	switch v {
	case Valid:
		return "valid"
	case Invalid:
		return "invalid"
	}
	return "unknown"
}

// Validator is a schema compiled for the fast path. It is safe for
// concurrent use.
type Validator struct {
	root   *node
	passes sync.Pool
}

// New compiles sch, a schema the library compiled with its own formats (no
// Compiler.RegisterFormat), for the fast path.
func New(sch *jsonschema.Schema) *Validator {
	c := compiler{nodes: map[*jsonschema.Schema]*node{}}
	root := c.node(sch)
	breakCycles(root)
	keyAll(c.nodes)
	return &Validator{root: root}
}

// maxPooled bounds the tokens and text a pass keeps for the next message
// once done, so that one large message does not hold its memory.
const maxPooled = 1 << 16

// pass is the state of one check: the message, its tokens, the text of the
// strings with escapes, and the member names of the open objects with
// their fingerprints.
type pass struct {
	msg   []byte
	toks  []token
	arena []byte
	// unescaped places the strings read into the arena: [start, end).
	unescaped [][2]int32
	names     [][]byte
	prints    []uint64
	sorted    []printAt
	// fail is the verdict of a scan that stops early.
	fail Verdict
	// doc is the Doc CheckDoc hands out over this pass.
	doc Doc
}

// Check returns whether msg is valid under the schema, or Unknown.
func (v *Validator) Check(msg []byte) Verdict {
	r, p := v.check(msg)
	if p != nil {
		v.done(p)
	}
	return r
}

// CheckDoc is Check that, for a message it finds Valid, also returns the
// message as it read it, for reading its values without parsing it again
// (Doc). The caller releases the Doc.
func (v *Validator) CheckDoc(msg []byte) (Verdict, *Doc) {
	r, p := v.check(msg)
	if r != Valid {
		if p != nil {
			v.done(p)
		}
		return r, nil
	}
	p.doc = Doc{p: p, v: v}
	return r, &p.doc
}

// check checks msg in a pass from the pool, and returns the pass (nil when
// it took none).
func (v *Validator) check(msg []byte) (Verdict, *pass) {
	if v.root.unknown {
		return Unknown, nil
	}
	p, _ := v.passes.Get().(*pass)
	if p == nil {
		p = &pass{}
	}
	r := p.scan(msg)
	if r == Valid {
		r = p.eval(v.root, 0)
	}
	return r, p
}

// done gives p back to the pool, unless it grew past maxPooled.
func (v *Validator) done(p *pass) {
	p.msg = nil
	if cap(p.toks) > maxPooled || cap(p.arena) > maxPooled {
		return
	}
	p.toks, p.arena, p.unescaped = p.toks[:0], p.arena[:0], p.unescaped[:0]
	clear(p.names[:cap(p.names)])
	p.names, p.prints, p.sorted = p.names[:0], p.prints[:0], p.sorted[:0]
	v.passes.Put(p)
}
