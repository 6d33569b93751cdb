package config

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
	"time"

	"gopkg.in/yaml.v3"
)

// decoder walks one file's YAML nodes against the spec, collecting every
// problem.
type decoder struct {
	file string
	dir  string // the directory relative paths are joined to
	errs Errors
}

func newDecoder(name string) *decoder {
	return &decoder{file: name, dir: filepath.Dir(name)}
}

func (d *decoder) fail(line int, key, format string, args ...any) {
	d.errs = append(d.errs, &Error{File: d.file, Line: line, Key: key, Msg: fmt.Sprintf(format, args...)})
}

// sorted returns the problems in line order, those of one line in the
// order found.
func (d *decoder) sorted() Errors {
	d.errs.Sort()
	return d.errs
}

// decodeFile decodes a whole config file against the spec: the root value
// with every default filled in, or nil when the file is not a YAML
// mapping. The problems found are in d.errs.
func (d *decoder) decodeFile(data []byte) *value {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			d.fail(1, "", "empty config file")
		} else {
			line, msg := yamlErrLine(err)
			d.fail(line, "", "%s", msg)
		}
		return nil
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		d.fail(more.Line, "", "a config file is one YAML document")
	} else if !errors.Is(err, io.EOF) {
		line, msg := yamlErrLine(err)
		d.fail(line, "", "%s", msg)
	}
	if len(doc.Content) == 0 {
		d.fail(1, "", "empty config file")
		return nil
	}
	root := deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		d.fail(root.Line, "", "a config file is a YAML mapping (%s)", spec.keyList())
		return nil
	}
	return d.node(root, spec, "")
}

// node decodes n as a value of f at path, or returns nil after failing.
func (d *decoder) node(n *yaml.Node, f *field, path string) *value {
	n = deref(n)
	switch f.kind {
	case kindList:
		return d.list(n, f, path)
	case kindMap:
		return d.mapping(n, f, path)
	case kindObject:
		return d.object(n, f, path)
	case kindOneOf:
		for _, alt := range f.alts {
			if fits(n, alt) {
				return d.node(n, alt, path)
			}
		}
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	case kindJSON:
		return d.json(n, f, path)
	}
	return d.scalar(n, f, path)
}

// fits reports whether n has the node kind of a value of f.
func fits(n *yaml.Node, f *field) bool {
	switch f.kind {
	case kindList:
		return n.Kind == yaml.SequenceNode
	case kindMap, kindObject, kindJSON:
		return n.Kind == yaml.MappingNode
	case kindOneOf:
		return slices.ContainsFunc(f.alts, func(a *field) bool { return fits(n, a) })
	}
	return n.Kind == yaml.ScalarNode
}

// scalar decodes a string, number, size, duration, boolean or enum, with
// ${VAR} replaced by the environment.
func (d *decoder) scalar(n *yaml.Node, f *field, path string) *value {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || (n.Value == "" && !f.allowEmpty) {
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	}
	s, problem := expandEnv(n.Value)
	if problem != "" {
		d.fail(n.Line, path, "%s", problem)
		return nil
	}
	v := &value{f: f, path: path, line: n.Line, given: true, text: n.Value}
	if problem = parseScalar(v, s); problem == "" && f.check != nil {
		problem = f.check(s)
	}
	if problem != "" {
		d.fail(n.Line, path, "%s", problem)
		return nil
	}
	if f.path {
		v.s = d.path(s)
	}
	return v
}

// parseScalar reads s into v as its field's kind says. It says what is
// wrong, or "".
func parseScalar(v *value, s string) string {
	f := v.f
	quoted := strconv.Quote(s)
	switch f.kind {
	case kindString:
		v.s = s
	case kindEnum:
		if !slices.Contains(f.options, s) {
			return fmt.Sprintf("%s is not %s", quoted, f.whatOf())
		}
		v.s = s
	case kindBool:
		switch s {
		case "true":
			v.b = true
		case "false":
		default:
			return fmt.Sprintf("%s is not true or false", quoted)
		}
	case kindInt:
		n, err := strconv.Atoi(s)
		if err != nil || float64(n) < f.min {
			return fmt.Sprintf("%s is not a whole number of at least %v", quoted, f.min)
		}
		v.n = n
	case kindFloat:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil || x < f.min {
			return fmt.Sprintf("%s is not a number of at least %v", quoted, f.min)
		}
		v.x = x
	case kindSize:
		if f.zeroOff && s == "0" {
			v.n = 0
			break
		}
		n, problem := parseSize(s)
		if problem != "" {
			return problem
		}
		v.n = n
	case kindDuration:
		if !f.zeroOff {
			dur, problem := parseDuration(s)
			v.d = dur
			return problem
		}
		if s == "0" {
			return ""
		}
		dur, err := time.ParseDuration(s)
		switch {
		case err != nil:
			return fmt.Sprintf("%q is not a duration (30s, 500ms, 2m)", s)
		case dur < 0:
			return fmt.Sprintf("must be 0s (off) or more, got %q", s)
		}
		v.d = dur
	}
	return ""
}

// list decodes a sequence of f.elem, refusing repeated items when f.unique.
func (d *decoder) list(n *yaml.Node, f *field, path string) *value {
	if n.Kind != yaml.SequenceNode || (f.nonEmpty && len(n.Content) == 0) {
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	}
	v := &value{f: f, path: path, line: n.Line, given: true, items: make([]*value, 0, len(n.Content))}
	seen := map[string]int{}
	for i, en := range n.Content {
		it := d.node(en, f.elem, fmt.Sprintf("%s[%d]", path, i))
		if it == nil {
			continue
		}
		if f.unique {
			if id := identity(it, f.uniqueBy); id != nil {
				if first, dup := seen[id.s]; dup {
					d.fail(id.line, id.path, "%s is listed twice (first at line %d)", f.itemName(id), first)
					continue
				}
				seen[id.s] = id.line
			}
		}
		v.items = append(v.items, it)
	}
	for _, check := range f.checks {
		check(d, v)
	}
	return v
}

// identity is the value that tells a list's item from the others: the
// item itself, or its key by.
func identity(it *value, by string) *value {
	if it.f.kind == kindObject {
		return it.get(by)
	}
	return it
}

// itemName names a repeated item in an error.
func (f *field) itemName(id *value) string {
	switch {
	case id.f.secret:
		return "the same " + f.noun
	case f.noun != "":
		return fmt.Sprintf("the %s %q", f.noun, id.s)
	}
	return strconv.Quote(id.s)
}

// mapping decodes a mapping of free keys to f.elem.
func (d *decoder) mapping(n *yaml.Node, f *field, path string) *value {
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	}
	v := &value{f: f, path: path, line: n.Line, given: true}
	d.pairs(path, n, func(k, vn *yaml.Node) {
		at := join(path, k.Value)
		if f.checkKey != nil {
			if problem := f.checkKey(k.Value); problem != "" {
				d.fail(k.Line, at, "%s", problem)
				return
			}
		}
		if it := d.node(vn, f.elem, at); it != nil {
			it.key, it.keyLine = k.Value, k.Line
			v.items = append(v.items, it)
		}
	})
	return v
}

// object decodes a mapping of f's keys: each key's value, then the rules
// between them (choice, required, with), the defaults of the keys not
// given, and f's checks.
func (d *decoder) object(n *yaml.Node, f *field, path string) *value {
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	}
	v := &value{f: f, path: path, line: n.Line, given: true}
	keys := map[string]*yaml.Node{} // the keys written, whether their values decoded or not
	var chosen *yaml.Node           // the first key of f.choice written
	d.pairs(path, n, func(k, vn *yaml.Node) {
		at := join(path, k.Value)
		c := f.child(k.Value)
		if c == nil {
			d.fail(k.Line, at, "unknown key (want %s)", f.keyList())
			return
		}
		if f.choice != nil && slices.Contains(f.choice.keys, k.Value) {
			if chosen != nil {
				d.fail(k.Line, at, f.choice.twice, chosen.Value, chosen.Line, k.Value)
				return // the first is taken
			}
			chosen = k
		}
		keys[k.Value] = k
		v.written = append(v.written, k.Value)
		if it := d.node(vn, c, at); it != nil {
			it.keyLine = k.Line
			v.items = append(v.items, it)
		}
	})
	noChoice := f.choice != nil && f.choice.none != "" && chosen == nil
	if noChoice {
		d.fail(n.Line, path, "%s", f.choice.none)
	}
	for _, c := range f.fields {
		k, given := keys[c.key]
		switch {
		case !given && c.required != "":
			d.fail(n.Line, join(path, c.key), "missing: %s", c.required)
		case given && len(c.with) > 0 && !noChoice && !slices.ContainsFunc(c.with, func(w string) bool { return keys[w] != nil }):
			d.fail(k.Line, join(path, c.key), "only with %s: %s", orList(c.with), c.withWhy)
		}
	}
	d.fill(v)
	for _, check := range f.checks {
		check(d, v)
	}
	return v
}

// fill adds the defaults of the object's keys not given, in the spec's
// order. A key that goes only with others takes its default only when one
// of them is there.
func (d *decoder) fill(v *value) {
	given := v.items
	v.items = make([]*value, 0, len(v.f.fields))
	has := func(key string) bool {
		return slices.ContainsFunc(given, func(it *value) bool { return it.f.key == key })
	}
	for _, c := range v.f.fields {
		i := slices.IndexFunc(given, func(it *value) bool { return it.f.key == c.key })
		switch {
		case i >= 0:
			v.items = append(v.items, given[i])
		case len(c.with) > 0 && !slices.ContainsFunc(c.with, has):
		default:
			if dv := d.fallback(c, join(v.path, c.key)); dv != nil {
				v.items = append(v.items, dv)
			}
		}
	}
}

// fallback is the default of f at path: its def decoded, an object of its
// keys' defaults, or nil for none.
func (d *decoder) fallback(f *field, path string) *value {
	if f.def != "" {
		var doc yaml.Node
		if err := yaml.Unmarshal([]byte(f.def), &doc); err != nil || len(doc.Content) == 0 {
			panic(fmt.Sprintf("config: the default of %s is not YAML: %q", path, f.def))
		}
		sd := &decoder{file: "the config spec", dir: d.dir}
		v := sd.node(doc.Content[0], f, path)
		if len(sd.errs) > 0 {
			panic(fmt.Sprintf("config: the default of %s: %v", path, sd.errs))
		}
		unset(v)
		return v
	}
	if f.kind != kindObject || f.defDoc != "" {
		return nil
	}
	v := &value{f: f, path: path}
	d.fill(v)
	return v
}

// unset marks a value and what it holds as a default.
func unset(v *value) {
	v.given, v.line, v.keyLine = false, 0, 0
	for _, it := range v.items {
		unset(it)
	}
}

// json decodes a JSON object written in YAML.
func (d *decoder) json(n *yaml.Node, f *field, path string) *value {
	if n.Kind != yaml.MappingNode {
		d.fail(n.Line, path, "must be %s", f.whatOf())
		return nil
	}
	var x any
	if err := n.Decode(&x); err != nil {
		d.fail(n.Line, path, "%v", err)
		return nil
	}
	raw, err := json.Marshal(x)
	if err != nil {
		d.fail(n.Line, path, "cannot be JSON: %v", err)
		return nil
	}
	if f.checkJSON != nil {
		if problem := f.checkJSON(raw); problem != "" {
			d.fail(n.Line, path, "%s", problem)
			return nil
		}
	}
	return &value{f: f, path: path, line: n.Line, given: true, raw: raw}
}

// join appends key to the key path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// path joins a relative path to the config file's directory.
func (d *decoder) path(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(d.dir, p)
}

// pairs calls fn for each key and value of a mapping node, refusing
// duplicate and non-scalar keys.
func (d *decoder) pairs(path string, n *yaml.Node, fn func(k, v *yaml.Node)) {
	seen := make(map[string]int, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			d.fail(k.Line, path, "keys must be plain words")
			continue
		}
		if first, dup := seen[k.Value]; dup {
			d.fail(k.Line, join(path, k.Value), "duplicate key (first at line %d)", first)
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
