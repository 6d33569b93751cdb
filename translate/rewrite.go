package translate

import (
	"fmt"
	"strings"
	"sync"
	"unsafe"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"
)

// Rewrites edit the envelope's raw payload fields. Editing the text once per
// edit (sjson) copies and rescans a field for every edit; instead each field
// a translation's rules touch is opened once into a node (an object becomes
// its members, each value still raw text, opened only if an edit goes into
// it), the edits change the nodes, and each field is written back once.
// Members keep their names as the source wrote them.
//
// This node engine applies any edits. Most translations take a shorter way
// first (rewrite_plan.go, rewrite_pass.go): edits that touch members apart
// are arranged once per kind of translation into a plan, and each field is
// then written in a single pass over its text, to the byte as the node
// engine would write it; the node engine applies the edits a plan cannot
// take, or that meet text a pass cannot handle.

// node is a JSON value being edited: raw text until an edit goes into it as
// an object (members is then non-nil).
type node struct {
	raw     string
	members []member
}

// opened reports whether n is an object being edited.
func (n *node) opened() bool { return n.members != nil }

type member struct {
	key    string // the name, read
	quoted string // the name as the source wrote it, quotes included; "" for a name an edit gave
	val    node
}

// object opens n as an object, its member list borrowed through p; false
// when n's text is not one. An absent value opens as an empty object, so
// edits can build it.
func (n *node) object(p *payload) bool {
	if n.opened() {
		return true
	}
	v := gjson.Parse(n.raw)
	if n.raw != "" && !v.IsObject() {
		return false
	}
	n.members = p.borrow()
	v.ForEach(func(k, val gjson.Result) bool {
		n.members = append(n.members, member{key: dialects.Key(k), quoted: k.Raw, val: node{raw: val.Raw}})
		return true
	})
	return true
}

func (n *node) find(key string) int {
	for i := range n.members {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

// text writes n back as JSON: its raw text when it was never opened.
func (n *node) text() string {
	if !n.opened() {
		return n.raw
	}
	return string(n.appendTo(make([]byte, 0, n.size())))
}

// size returns the length of n's text (names edits gave that need
// escaping aside, which only make the buffer grow).
func (n *node) size() int {
	if !n.opened() {
		return len(n.raw)
	}
	size := 2 // {}
	for i := range n.members {
		m := &n.members[i]
		if m.quoted != "" {
			size += len(m.quoted)
		} else {
			size += len(m.key) + 2
		}
		size += 2 + m.val.size() // "key":value,
	}
	return size
}

func (n *node) appendTo(b []byte) []byte {
	if !n.opened() {
		return append(b, n.raw...)
	}
	b = append(b, '{')
	for i := range n.members {
		m := &n.members[i]
		if i > 0 {
			b = append(b, ',')
		}
		if m.quoted != "" {
			b = append(b, m.quoted...)
		} else {
			b = jsonw.AppendString(b, m.key)
		}
		b = append(b, ':')
		b = m.val.appendTo(b)
	}
	return append(b, '}')
}

// memberLists keeps member lists between translations: they live only
// until the fields are written back.
var memberLists = sync.Pool{New: func() any { l := make([]member, 0, 8); return &l }}

// payload holds the fields one translation's rewrites have opened.
type payload struct {
	env    *canonical.Envelope
	fields [8]fieldNode // one for each of mappings.PayloadFields at most
	n      int
	lists  [8]*[]member // borrowed from memberLists, given back by commit
	nl     int
}

// borrow returns an empty member list to open an object with: a pooled one
// for the first objects a translation opens, a new one past that.
func (p *payload) borrow() []member {
	if p.nl == len(p.lists) {
		return make([]member, 0, 8)
	}
	l := memberLists.Get().(*[]member)
	p.lists[p.nl] = l
	p.nl++
	return (*l)[:0]
}

type fieldNode struct {
	name string
	node node
}

// root returns the node of a payload field, opening it on first use.
func (p *payload) root(field string) *node {
	for i := range p.fields[:p.n] {
		if p.fields[i].name == field {
			return &p.fields[i].node
		}
	}
	p.fields[p.n] = fieldNode{name: field, node: node{raw: string(*fieldOf(p.env, field, false))}}
	p.n++
	return &p.fields[p.n-1].node
}

// replace makes v the whole of a payload field.
func (p *payload) replace(field string, v node) {
	*p.root(field) = v
}

// commit writes every opened field back into the envelope, all into one
// buffer that the fields then share (it is never written again).
func (p *payload) commit() {
	size := 0
	for _, f := range p.fields[:p.n] {
		if f.node.opened() {
			size += f.node.size()
		}
	}
	buf := make([]byte, 0, size)
	for i := range p.fields[:p.n] {
		f := &p.fields[i]
		text := f.node.raw
		if f.node.opened() {
			start := len(buf)
			buf = f.node.appendTo(buf)
			text = unsafe.String(&buf[start], len(buf)-start)
		}
		*fieldOf(p.env, f.name, text != "") = canonical.JSON(text)
	}
	for _, l := range p.lists[:p.nl] {
		clear((*l)[:cap(*l)]) // let go of the strings
		memberLists.Put(l)
	}
	p.nl = 0
}

// errNotObject says an edit went into a value that is not an object.
type errNotObject struct{ path string }

func (e errNotObject) Error() string { return e.path + " is not an object" }

// walk follows path's segments from the field's root to the node holding
// the last member, opening objects on the way (creating them when create).
// It returns that node and the last segment. A segment into an array ends
// the walk: rest holds the path from there, for sjson.
func (p *payload) walk(path mappings.PayloadPath, create bool) (parent *node, last, rest string, err error) {
	n := p.root(path.Field)
	sub, done := path.Sub, 0 // done: how much of sub the walk has passed
	for {
		seg, more, found := strings.Cut(sub[done:], ".")
		if !found {
			break
		}
		if isArray(n) {
			return n, "", sub[done:], nil
		}
		if !n.object(p) {
			return nil, "", "", errNotObject{joined(path.Field, sub[:max(done-1, 0)])}
		}
		j := n.find(seg)
		if j < 0 {
			if !create {
				return nil, "", "", nil
			}
			n.members = append(n.members, member{key: seg})
			j = len(n.members) - 1
			if more[0] >= '0' && more[0] <= '9' {
				// an index into a new value: sjson makes it an array
				return &n.members[j].val, "", more, nil
			}
		}
		n = &n.members[j].val
		done += len(seg) + 1
	}
	last = sub[done:]
	if isArray(n) {
		return n, "", last, nil
	}
	if !n.opened() && n.raw != "" && !dialects.IsObject(canonical.JSON(n.raw)) {
		return nil, "", "", errNotObject{joined(path.Field, sub[:max(done-1, 0)])}
	}
	return n, last, "", nil
}

func joined(field, sub string) string {
	if sub == "" {
		return field
	}
	return field + "." + sub
}

func isArray(n *node) bool {
	return !n.opened() && dialects.IsArray(canonical.JSON(n.raw))
}

// get returns a copy of the value at path.
func (p *payload) get(path mappings.PayloadPath) (node, bool) {
	if path.Sub == "" {
		n := p.root(path.Field)
		return *n, n.opened() || n.raw != ""
	}
	parent, last, rest, err := p.walk(path, false)
	if err != nil || parent == nil {
		return node{}, false
	}
	if rest != "" || !parent.opened() {
		if rest == "" {
			rest = last
		}
		v := gjson.Get(parent.text(), rest)
		return node{raw: v.Raw}, v.Exists()
	}
	if j := parent.find(last); j >= 0 {
		return parent.members[j].val, true
	}
	return node{}, false
}

// set puts v at path, creating objects on the way.
func (p *payload) set(path mappings.PayloadPath, v node) error {
	if path.Sub == "" {
		p.replace(path.Field, v)
		return nil
	}
	parent, last, rest, err := p.walk(path, true)
	if err != nil {
		return err
	}
	if rest != "" {
		out, err := sjson.SetRaw(parent.text(), rest, v.text())
		*parent = node{raw: out}
		return err
	}
	parent.object(p)
	if j := parent.find(last); j >= 0 {
		parent.members[j].val = v
	} else {
		parent.members = append(parent.members, member{key: last, val: v})
	}
	return nil
}

// remove deletes the value at path; a path not there changes nothing.
func (p *payload) remove(path mappings.PayloadPath) error {
	if path.Sub == "" {
		p.replace(path.Field, node{})
		return nil
	}
	parent, last, rest, err := p.walk(path, false)
	if err != nil || parent == nil {
		return err
	}
	if rest != "" || !parent.opened() {
		if rest == "" {
			rest = last
		}
		out, err := deleteText(parent.raw, rest)
		parent.raw = out
		return err
	}
	if j := parent.find(last); j >= 0 {
		parent.members = append(parent.members[:j], parent.members[j+1:]...)
	}
	return nil
}

// deleteText removes the member or element at path from the JSON text raw:
// one splice when gjson can place the member, sjson otherwise.
func deleteText(raw, path string) (string, error) {
	v := gjson.Get(raw, path)
	if !v.Exists() {
		return raw, nil
	}
	start, end, ok := memberSpan(raw, v)
	if !ok {
		return sjson.Delete(raw, path)
	}
	return raw[:start] + raw[end:], nil
}

// memberSpan returns what deleting the object member whose value is v cuts
// from raw: the member and the comma after it, or the comma before it for
// the last member; false when v is not placed in raw or is an array element.
func memberSpan(raw string, v gjson.Result) (start, end int, ok bool) {
	start, ok = keyStart(raw, v)
	if !ok {
		return 0, 0, false
	}
	end = v.Index + len(v.Raw)
	if k := skipSpace(raw, end); k < len(raw) && raw[k] == ',' {
		end = skipSpace(raw, k+1) // the member and the comma after it
	} else if k := skipSpaceBack(raw, start-1); k >= 0 && raw[k] == ',' {
		start = k // the last member: the comma before it
	}
	return start, end, true
}

// keyStart returns where the name of the object member whose value is v
// begins in raw; false when v is not placed in raw or is an array element.
func keyStart(raw string, v gjson.Result) (int, bool) {
	if v.Index <= 0 || v.Index+len(v.Raw) > len(raw) || raw[v.Index:v.Index+len(v.Raw)] != v.Raw {
		return 0, false
	}
	j := skipSpaceBack(raw, v.Index-1)
	if j < 0 || raw[j] != ':' {
		return 0, false
	}
	j = skipSpaceBack(raw, j-1)
	if j < 0 || raw[j] != '"' {
		return 0, false
	}
	for j--; j >= 0; j-- {
		if raw[j] == '"' && !escaped(raw, j) {
			return j, true
		}
	}
	return 0, false
}

// escaped reports whether the character at i follows an odd run of
// backslashes.
func escaped(raw string, i int) bool {
	n := 0
	for k := i - 1; k >= 0 && raw[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

func skipSpaceBack(raw string, i int) int {
	for i >= 0 && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i--
	}
	return i
}

func skipSpace(raw string, i int) int {
	for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
		i++
	}
	return i
}

// apply makes one edit. A path that is not there changes nothing; a value
// that cannot take the edit is an error.
func (p *payload) apply(e mappings.Edit) error {
	switch e.Op {
	case mappings.EditSet:
		return p.set(e.Path, node{raw: string(e.Value)})
	case mappings.EditDelete:
		return p.remove(e.Path)
	case mappings.EditRename:
		return p.rename(e.Path, e.Key)
	case mappings.EditMove:
		return p.move(e.Path, e.To)
	case mappings.EditWrap:
		v, ok := p.get(e.Path)
		if !ok {
			return nil
		}
		return p.set(e.Path, node{members: []member{{key: e.Key, val: v}}})
	case mappings.EditUnwrap:
		v, ok := p.get(e.Path)
		if !ok {
			return nil
		}
		return p.set(parentPath(e.Path), v)
	}
	return fmt.Errorf("unknown edit %q", e.Op)
}

// rename gives the member at path the name key, in place. When its object
// already has a member called key, the renamed value replaces it.
func (p *payload) rename(path mappings.PayloadPath, key string) error {
	parent, last, rest, err := p.walk(path, false)
	if err != nil || parent == nil {
		return err
	}
	if rest != "" { // inside an array: take the value out and put it back
		to := parentPath(path)
		to.Sub = strings.TrimPrefix(to.Sub+"."+key, ".")
		return p.move(path, to)
	}
	parent.object(p)
	j := parent.find(last)
	if j < 0 {
		return nil
	}
	if k := parent.find(key); k >= 0 && k != j {
		parent.members = append(parent.members[:k], parent.members[k+1:]...)
		if k < j {
			j--
		}
	}
	parent.members[j].key, parent.members[j].quoted = key, ""
	return nil
}

// move takes the value at from to to.
func (p *payload) move(from, to mappings.PayloadPath) error {
	v, ok := p.get(from)
	if !ok {
		return nil
	}
	if err := p.remove(from); err != nil {
		return err
	}
	return p.set(to, v)
}

// parentPath returns the path of the object holding p's member.
func parentPath(p mappings.PayloadPath) mappings.PayloadPath {
	i := strings.LastIndexByte(p.Sub, '.')
	if i < 0 {
		return mappings.PayloadPath{Field: p.Field}
	}
	return mappings.PayloadPath{Field: p.Field, Sub: p.Sub[:i]}
}

// fieldOf returns the envelope's raw field a payload path starts at.
func fieldOf(env *canonical.Envelope, name string, create bool) *canonical.JSON {
	switch name {
	case "arguments":
		return &env.Arguments
	case "result":
		return &env.Result
	case "context":
		return &env.Context
	case "metadata":
		return &env.Metadata
	case "inputs":
		return &env.Inputs
	case "authentication":
		return &env.Authentication
	case "extensions":
		return &env.Extensions
	case "error.details":
		if env.Error == nil {
			if !create {
				return new(canonical.JSON)
			}
			env.Error = &canonical.Error{}
		}
		return &env.Error.Details
	}
	return new(canonical.JSON)
}
