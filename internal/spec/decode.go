package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcp-bridge/mcp-bridge/internal/located"
)

// Decoder decodes one file against a spec, collecting every problem.
type Decoder struct {
	spec *Spec
	file string
	dir  string // the directory relative paths are joined to
	errs located.Errors
	// entry is the key of the mapping entry being decoded, "" for a list
	// item, for NamedFor.
	entry string
}

// NewDecoder returns a decoder of the file named file (in errors; its
// directory is where relative paths start).
func (s *Spec) NewDecoder(file string) *Decoder {
	return &Decoder{spec: s, file: file, dir: filepath.Dir(file)}
}

// Decode decodes a whole file against s: the root value with every default
// filled in, and every problem found, in line order, as a located.Errors
// (nil when there is none).
func (s *Spec) Decode(file string, data []byte) (*Value, error) {
	d := s.NewDecoder(file)
	v := d.Decode(data)
	if errs := d.Errors(); len(errs) > 0 {
		return v, errs
	}
	return v, nil
}

// Fail records a problem at pos, of the value at the key path key ("" for
// the file as a whole).
func (d *Decoder) Fail(at Pos, key, format string, args ...any) {
	d.errs = append(d.errs, &located.Error{File: d.file, Line: at.Line, Column: at.Column, Columned: d.spec.Columns,
		Key: key, Msg: fmt.Sprintf(format, args...)})
}

// Errors returns the problems found so far, in line order, those of one
// line in the order found.
func (d *Decoder) Errors() located.Errors {
	d.errs.Sort()
	return d.errs
}

// Decode decodes a whole file: the root value with every default filled
// in, or nil when the file is not of the root's shape. The problems found
// are in d.Errors.
func (d *Decoder) Decode(data []byte) *Value {
	s := d.spec
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if !errors.Is(err, io.EOF) {
			line, msg := yamlErrLine(err)
			d.Fail(Pos{Line: line}, "", "%s", msg)
			return nil
		}
		return d.empty()
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		d.Fail(Pos{Line: more.Line, Column: more.Column}, "", "a %s is one YAML document", s.Noun)
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrLine(err)
		d.Fail(Pos{Line: line}, "", "%s", msg)
	}
	if len(doc.Content) == 0 {
		return d.empty()
	}
	root := deref(doc.Content[0])
	if !fits(root, s.Root) {
		d.Fail(pos(root), "", "%s", s.Shape)
		return nil
	}
	return d.node(root, s.Root, "")
}

// empty is the value of an empty file: the root's default, if the spec
// lets a file be empty.
func (d *Decoder) empty() *Value {
	if !d.spec.Empty {
		d.Fail(Pos{Line: 1}, "", "empty %s", d.spec.Noun)
		return nil
	}
	return d.Default(d.spec.Root, "")
}

// pos is where a YAML node is.
func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Column: n.Column} }

// node decodes n as a value of f at path, or returns nil after failing.
func (d *Decoder) node(n *yaml.Node, f *Node, path string) *Value {
	n = deref(n)
	var v *Value
	switch f.kind {
	case KindList:
		v = d.list(n, f, path)
	case KindMap:
		v = d.mapping(n, f, path)
	case KindObject:
		return d.object(n, f, path)
	case KindOneOf:
		for _, alt := range f.forms {
			if fits(n, alt) {
				v := d.node(n, alt, path)
				if v != nil {
					v.form = f
				}
				return v
			}
		}
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	case KindJSON:
		return d.json(n, f, path)
	case KindAny:
		v = d.any(n, f, path)
	default:
		v = d.scalar(n, f, path)
	}
	if v != nil {
		for _, r := range f.rules {
			r(d, v)
		}
	}
	return v
}

// entry decodes the value n of the mapping entry key (a list item: "") as
// a value of f at path.
func (d *Decoder) under(key string, n *yaml.Node, f *Node, path string) *Value {
	outer := d.entry
	d.entry = key
	defer func() { d.entry = outer }()
	return d.node(n, f, path)
}

// what names a value of f in errors, at the entry being decoded.
func (d *Decoder) what(f *Node) string {
	if f.whatFor != nil {
		return f.whatFor(d.entry)
	}
	return f.whatOf()
}

// fits reports whether n has the YAML kind of a value of f.
func fits(n *yaml.Node, f *Node) bool {
	switch f.kind {
	case KindList:
		return n.Kind == yaml.SequenceNode
	case KindMap, KindObject, KindJSON:
		return n.Kind == yaml.MappingNode
	case KindAny:
		return true
	case KindOneOf:
		return slices.ContainsFunc(f.forms, func(a *Node) bool { return fits(n, a) })
	}
	return n.Kind == yaml.ScalarNode
}

// scalar decodes a string, number, size, duration, boolean or enum, with
// ${VAR} replaced when the spec says so.
func (d *Decoder) scalar(n *yaml.Node, f *Node, path string) *Value {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || (n.Value == "" && !f.allowEmpty) {
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	}
	s, problem := n.Value, ""
	if d.spec.Env {
		s, problem = expandEnv(n.Value)
	}
	if problem != "" {
		d.Fail(pos(n), path, "%s", problem)
		return nil
	}
	v := &Value{n: f, path: path, pos: pos(n), given: true, text: n.Value}
	problem = parseScalar(v, s)
	if problem != "" && f.refused != nil {
		problem = f.refused(s)
	}
	if problem == "" && f.check != nil {
		problem = f.check(s)
	}
	if problem != "" {
		d.Fail(pos(n), path, "%s", problem)
		return nil
	}
	if f.path {
		v.s = d.path(s)
	}
	return v
}

// list decodes a sequence of f.items, refusing repeated items when
// f.unique.
func (d *Decoder) list(n *yaml.Node, f *Node, path string) *Value {
	if n.Kind != yaml.SequenceNode || (f.nonEmpty && len(n.Content) == 0) {
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	}
	v := &Value{n: f, path: path, pos: pos(n), given: true, items: make([]*Value, 0, len(n.Content))}
	seen := map[string]int{}
	for i, en := range n.Content {
		it := d.under("", en, f.items, fmt.Sprintf("%s[%d]", path, i))
		if it == nil {
			continue
		}
		if f.unique {
			if id := identity(it, f.uniqueBy); id != nil {
				if first, dup := seen[id.s]; dup {
					d.Fail(id.pos, id.path, "%s is listed twice (first at line %d)", f.itemName(id), first)
					continue
				}
				seen[id.s] = id.pos.Line
			}
		}
		v.items = append(v.items, it)
	}
	return v
}

// identity is the value that tells a list's item from the others: the
// item itself, or its key by.
func identity(it *Value, by string) *Value {
	if it.n.kind == KindObject {
		return it.Get(by)
	}
	return it
}

// itemName names a repeated item in an error.
func (n *Node) itemName(id *Value) string {
	switch {
	case id.n.secret:
		return "the same " + n.noun
	case n.noun != "":
		return fmt.Sprintf("the %s %q", n.noun, id.s)
	}
	return strconv.Quote(id.s)
}

// mapping decodes a mapping of free keys to f.items.
func (d *Decoder) mapping(n *yaml.Node, f *Node, path string) *Value {
	if n.Kind != yaml.MappingNode || (f.nonEmpty && len(n.Content) == 0) {
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	}
	v := &Value{n: f, path: path, pos: pos(n), given: true}
	d.pairs(path, n, func(k, vn *yaml.Node) {
		at := Join(path, k.Value)
		if f.checkKey != nil {
			if problem := f.checkKey(k.Value); problem != "" {
				d.Fail(pos(k), at, "%s", problem)
				return
			}
		}
		if it := d.under(k.Value, vn, f.items, at); it != nil {
			it.key, it.keyPos = k.Value, pos(k)
			v.items = append(v.items, it)
		}
	})
	return v
}

// object decodes a mapping of f's keys: each key's value, then the rules
// between them (choice, required, with), the defaults of the keys not
// given, and f's rules.
func (d *Decoder) object(n *yaml.Node, f *Node, path string) *Value {
	if n.Kind != yaml.MappingNode {
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	}
	v := &Value{n: f, path: path, pos: pos(n), given: true}
	keys := map[string]*yaml.Node{} // the keys written, whether their values decoded or not
	var chosen *yaml.Node           // the first key of f.choice written
	d.pairs(path, n, func(k, vn *yaml.Node) {
		at := Join(path, k.Value)
		c := f.Child(k.Value)
		if c == nil {
			d.Fail(pos(k), at, "%s (want %s)", d.unknown(f, k.Value), f.KeyList())
			return
		}
		if f.choice != nil && slices.Contains(f.choice.keys, k.Value) {
			if chosen != nil {
				d.Fail(pos(k), at, f.choice.twice, chosen.Value, chosen.Line, k.Value)
				return // the first is taken
			}
			chosen = k
		}
		keys[k.Value] = k
		v.written = append(v.written, k.Value)
		if it := d.under(k.Value, vn, c, at); it != nil {
			it.keyPos = pos(k)
			v.items = append(v.items, it)
		}
	})
	noChoice := f.choice != nil && f.choice.none != "" && chosen == nil
	if noChoice {
		d.Fail(pos(n), path, "%s", f.choice.none)
	}
	for _, c := range f.keys {
		k, given := keys[c.key]
		switch {
		case !given && c.required != "":
			d.Fail(pos(n), Join(path, c.key), "missing: %s", c.required)
		case given && len(c.with) > 0 && !noChoice && !slices.ContainsFunc(c.with, func(w string) bool { return keys[w] != nil }):
			d.Fail(pos(k), Join(path, c.key), "only with %s: %s", OrList(c.with), c.withWhy)
		}
	}
	d.fill(v)
	for _, r := range f.rules {
		r(d, v)
	}
	return v
}

// unknown names an unknown key k of an object of f.
func (d *Decoder) unknown(f *Node, k string) string {
	switch {
	case f.unknown != nil:
		return f.unknown(k)
	case d.spec.Unknown != nil:
		return d.spec.Unknown(k)
	}
	return "unknown key"
}

// fill adds the defaults of the object's keys not given, in the spec's
// order. A key that goes only with others takes its default only when one
// of them is there.
func (d *Decoder) fill(v *Value) {
	given := v.items
	v.items = make([]*Value, 0, len(v.n.keys))
	has := func(key string) bool {
		return slices.ContainsFunc(given, func(it *Value) bool { return it.keyNode().key == key })
	}
	for _, c := range v.n.keys {
		i := slices.IndexFunc(given, func(it *Value) bool { return it.keyNode().key == c.key })
		switch {
		case i >= 0:
			v.items = append(v.items, given[i])
		case len(c.with) > 0 && !slices.ContainsFunc(c.with, has):
		default:
			if dv := d.Default(c, Join(v.path, c.key)); dv != nil {
				v.items = append(v.items, dv)
			}
		}
	}
}

// Default is the default of n at path: its default decoded, an object of
// its keys' defaults, or nil for none. It panics when the default does not
// decode: a mistake in the spec.
func (d *Decoder) Default(n *Node, path string) *Value {
	if n.def != "" {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(n.def), &doc); err != nil || len(doc.Content) == 0 {
			panic(fmt.Sprintf("spec: the default of %s is not YAML: %q", path, n.def))
		}
		sd := &Decoder{spec: d.spec, file: "the spec", dir: d.dir}
		v := sd.node(doc.Content[0], n, path)
		if len(sd.errs) > 0 {
			panic(fmt.Sprintf("spec: the default of %s: %v", path, sd.errs))
		}
		unset(v)
		return v
	}
	if n.kind != KindObject || n.defDoc != "" {
		return nil
	}
	v := &Value{n: n, path: path}
	d.fill(v)
	return v
}

// unset marks a value and what it holds as a default.
func unset(v *Value) {
	v.given, v.pos, v.keyPos = false, Pos{}, Pos{}
	for _, it := range v.items {
		unset(it)
	}
}

// json decodes a JSON object written in YAML.
func (d *Decoder) json(n *yaml.Node, f *Node, path string) *Value {
	if n.Kind != yaml.MappingNode {
		d.Fail(pos(n), path, "must be %s", d.what(f))
		return nil
	}
	var x any
	if err := n.Decode(&x); err != nil {
		d.Fail(pos(n), path, "%v", err)
		return nil
	}
	raw, err := json.Marshal(x)
	if err != nil {
		d.Fail(pos(n), path, "cannot be JSON: %v", err)
		return nil
	}
	if f.checkJSON != nil {
		if problem := f.checkJSON(raw); problem != "" {
			d.Fail(pos(n), path, "%s", problem)
			return nil
		}
	}
	v := &Value{n: f, path: path, pos: pos(n), given: true, raw: raw}
	for _, r := range f.rules {
		r(d, v)
	}
	return v
}

// any decodes any YAML value into Go values.
func (d *Decoder) any(n *yaml.Node, f *Node, path string) *Value {
	var x any
	if err := n.Decode(&x); err != nil {
		d.Fail(pos(n), path, "%v", err)
		return nil
	}
	return &Value{n: f, path: path, pos: pos(n), given: true, text: n.Value, any: x}
}

// Join appends key to the key path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// path joins a relative path to the file's directory.
func (d *Decoder) path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.dir, p)
}

// pairs calls fn for each key and value of a mapping node, refusing
// duplicate and non-scalar keys.
func (d *Decoder) pairs(path string, n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.Fail(pos(k), path, "keys must be plain words")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.Fail(pos(k), Join(path, k.Value), "duplicate key (first at line %d)", first)
			continue
		}
		seen[k.Value] = k.Line
		fn(k, v)
	}
}

// deref follows a YAML alias (*name) to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// yamlErrLine splits a yaml.v3 syntax error into its line and message.
func yamlErrLine(err error) (int, string) {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	var line int
	if _, e := fmt.Sscanf(msg, "line %d:", &line); e == nil {
		_, rest, _ := strings.Cut(msg, ": ")
		return line, rest
	}
	return 1, msg
}
