package declared

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// node is one member of the declared message layout: a field, a detection
// mark with a value, or an object holding declared paths.
type node struct {
	key  string // the member's name
	path string // its dotted path ("" for the message itself)
	// children are the members of an object node, in declaration order.
	children []*node
	index    map[string]*node
	field    *field
	mark     *mark
	// required says the member must be present in its parent.
	required bool
}

// isObject reports whether n is an object of declared paths.
func (n *node) isObject() bool { return n.field == nil && n.mark == nil }

// field is one concept placed at a path.
type field struct {
	concept canonical.Concept
	kind    string // mappings.KindText, KindWord, KindRaw or KindMilli
	path    string
	// table holds the words of a word concept.
	table *mappings.Table
	// fill says a message from another dialect must have the member:
	// it is required, or a "*" detection mark.
	fill bool
}

// mark is a detection mark with a value: the member at path holds it.
type mark struct {
	path, value string
	segs        []string
}

// wordKinds maps the word concepts onto their vocabulary tables.
var wordKinds = map[canonical.Concept]string{
	canonical.CAct:       canonical.KindAct,
	canonical.CPriority:  canonical.KindPriority,
	canonical.COutcome:   canonical.KindOutcome,
	canonical.CErrorCode: canonical.KindError,
}

// build checks the declaration and lays out c's tree, fields and marks.
func (c *Codec) build(d *mappings.Declaration, v *mappings.Vocabulary) error {
	fail := func(key, format string, args ...any) error {
		return &mappings.Error{File: d.File, Line: d.Line, Key: key, Msg: fmt.Sprintf(format, args...)}
	}
	if d.Name == "" {
		return fail("dialect", "a declared dialect needs a name")
	}
	if v != nil && v.Dialect != "" && v.Dialect != d.Name {
		return fail("vocabulary", "the vocabulary is dialect %s's, not %s's", v.Dialect, d.Name)
	}
	c.root = &node{index: map[string]*node{}}
	c.top = map[string]bool{}

	// Detection marks come first: they open the message.
	if len(d.Detect) == 0 {
		return fail("declare.detect", "at least one detection mark is needed")
	}
	stars := map[string]bool{}
	valued := 0
	for _, m := range d.Detect {
		key := "declare.detect." + m.Path
		segs, err := splitPath(m.Path)
		if err != nil {
			return fail(key, "%v", err)
		}
		switch m.Value {
		case "":
			return fail(key, "a mark needs a value, or \"*\" for any")
		case "*":
			if stars[m.Path] {
				return fail(key, "marked twice")
			}
			stars[m.Path] = true
			c.stars = append(c.stars, m.Path)
			continue // placed with the fields
		}
		mk := &mark{path: m.Path, value: m.Value, segs: segs}
		if err := c.place(segs, func(n *node) { n.mark = mk }); err != nil {
			return fail(key, "%v", err)
		}
		c.marks = append(c.marks, mk)
		valued++
	}
	if valued == 0 {
		return fail("declare.detect", "at least one mark must have a value: \"*\" marks alone would claim other dialects' messages")
	}

	required := map[string]bool{}
	for _, r := range d.Required {
		required[r] = true
	}
	seen := map[canonical.Concept]bool{}
	for _, fp := range d.Fields {
		key := "declare.fields." + fp.Concept.String()
		kind, ok := mappings.DeclarableConcepts[fp.Concept]
		if !ok {
			return fail(key, "%s cannot be declared (declarable: %s)", fp.Concept, strings.Join(declarable(), ", "))
		}
		if seen[fp.Concept] {
			return fail(key, "placed twice")
		}
		seen[fp.Concept] = true
		segs, err := splitPath(fp.Path)
		if err != nil {
			return fail(key, "%v", err)
		}
		f := &field{concept: fp.Concept, kind: kind, path: fp.Path, fill: required[fp.Path] || stars[fp.Path]}
		if kind == mappings.KindWord {
			f.table = v.Table(wordKinds[fp.Concept])
			if len(f.table.Words()) == 0 {
				return fail(key, "a word concept, but the vocabulary has no %s table (or it has no words)", wordKinds[fp.Concept])
			}
		}
		if err := c.place(segs, func(n *node) { n.field = f }); err != nil {
			return fail(key, "%v", err)
		}
		c.fields = append(c.fields, f)
		c.holds = c.holds.With(fp.Concept)
		if fp.Concept == canonical.CAct {
			c.act = f
		}
		if len(segs) == 1 {
			c.top[fp.Path] = true
		}
	}
	if c.act == nil {
		return fail("declare.fields.act", "missing: every message needs an act path")
	}
	c.holds = c.holds.With(canonical.CAct, canonical.CExtra)

	for _, m := range d.Detect {
		if m.Value == "*" && !c.isField(m.Path) {
			return fail("declare.detect."+m.Path, "a \"*\" mark must also be a field path (it is only checked, never written)")
		}
	}
	// What a valid message must have: the marks, then the required paths.
	add := func(p string) {
		if !slices.Contains(c.required, p) {
			c.required = append(c.required, p)
		}
	}
	for _, m := range d.Detect {
		add(m.Path)
	}
	for _, r := range d.Required {
		if n := c.lookup(r); n == nil || n.isObject() {
			return fail("declare.required", "%q is neither a field path nor a detection mark", r)
		}
		add(r)
	}
	for _, p := range c.required {
		c.markRequired(p)
	}
	return nil
}

// place adds a leaf at segs to the tree, set by set; the path must not clash
// with one already placed.
func (c *Codec) place(segs []string, set func(*node)) error {
	n := c.root
	for i, s := range segs {
		child := n.index[s]
		last := i == len(segs)-1
		switch {
		case child == nil:
			child = &node{key: s, path: strings.Join(segs[:i+1], "."), index: map[string]*node{}}
			n.children = append(n.children, child)
			n.index[s] = child
		case last:
			return fmt.Errorf("path %s is already %s", child.path, child.what())
		case !child.isObject():
			return fmt.Errorf("path %s is %s, so it cannot hold %s", child.path, child.what(), strings.Join(segs, "."))
		}
		n = child
	}
	set(n)
	return nil
}

// what says what a node is, for errors.
func (n *node) what() string {
	switch {
	case n.field != nil:
		return "the path of " + n.field.concept.String()
	case n.mark != nil:
		return fmt.Sprintf("a detection mark (%q)", n.mark.value)
	}
	return "an object of other declared paths"
}

// lookup returns the node at a dotted path, or nil.
func (c *Codec) lookup(path string) *node {
	n := c.root
	for s := range strings.SplitSeq(path, ".") {
		if n = n.index[s]; n == nil {
			return nil
		}
	}
	return n
}

// isField reports whether path is a field path.
func (c *Codec) isField(path string) bool {
	n := c.lookup(path)
	return n != nil && n.field != nil
}

// markRequired marks every member along path as required in its parent.
func (c *Codec) markRequired(path string) {
	n := c.root
	for s := range strings.SplitSeq(path, ".") {
		n = n.index[s]
		n.required = true
	}
}

// splitPath splits a dotted path into its member names.
func splitPath(path string) ([]string, error) {
	if path == "" {
		return nil, fmt.Errorf("empty path")
	}
	segs := strings.Split(path, ".")
	for _, s := range segs {
		if s == "" {
			return nil, fmt.Errorf("path %q has an empty member name", path)
		}
	}
	return segs, nil
}

// declarable lists the names of the declarable concepts, in concept order.
func declarable() []string {
	var out []string
	for _, c := range canonical.Concepts {
		if _, ok := mappings.DeclarableConcepts[c]; ok {
			out = append(out, c.String())
		}
	}
	return out
}
