package dialects

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/tidwall/gjson"
)

// maxDepth is how deep encoding/json lets arrays and objects nest; a
// deeper message is left to encoding/json, to be refused as it refuses it.
const maxDepth = 10000

// emptyObject stands for an object whose members no schema reads. The
// validator only reads its instance.
var emptyObject = map[string]any{}

// instanceBuilder builds a validation instance from a gjson walk of a
// message: the value jsonschema.UnmarshalJSON gives, except that an object
// or array whose contents no keyword can read (its shape is free) is left
// empty. In the same walk it finds the members given more than once as
// DuplicateMembers does, in the same order and with the same paths, in the
// parts left empty too.
type instanceBuilder struct {
	dups []Problem
	// path leads to the value being built or scanned.
	path []pathStep
	// names are the member names met so far of the free objects being
	// scanned, innermost last.
	names []string

	pathBuf  [16]pathStep
	namesBuf [32]string
}

// pathStep is a member name, or an array index when index >= 0.
type pathStep struct {
	name  string
	index int
}

// readInstance returns the instance of msg under shape sh and its
// duplicate members. ok is false, and the rest to be ignored, when msg is
// not valid JSON or nests too deep to be read here; msg is valid UTF-8.
func readInstance(msg []byte, sh *shape) (inst any, dups []Problem, ok bool) {
	if tooDeep(msg) || !gjson.ValidBytes(msg) {
		return nil, nil, false
	}
	var b instanceBuilder
	b.path, b.names = b.pathBuf[:0], b.namesBuf[:0]
	inst = b.value(gjson.ParseBytes(msg), sh)
	return inst, b.dups, true
}

// tooDeep reports whether msg may nest arrays and objects deeper than
// maxDepth. Brackets inside strings do not count.
func tooDeep(msg []byte) bool {
	if bytes.Count(msg, []byte{'['})+bytes.Count(msg, []byte{'{'}) <= maxDepth {
		return false
	}
	depth := 0
	for i := 0; i < len(msg); i++ {
		switch msg[i] {
		case '"':
			for i++; i < len(msg) && msg[i] != '"'; i++ {
				if msg[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			if depth > maxDepth {
				return true
			}
		case ']', '}':
			depth--
		}
	}
	return false
}

// value returns the instance of v, at a location of shape sh.
func (b *instanceBuilder) value(v gjson.Result, sh *shape) any {
	switch v.Type {
	case gjson.String:
		return Text(v)
	case gjson.Number:
		return json.Number(v.Raw)
	case gjson.True:
		return true
	case gjson.False:
		return false
	case gjson.Null:
		return nil
	}
	if sh.mode == shapeFree {
		b.scan(v)
		if v.IsObject() {
			return emptyObject
		}
		return []any{}
	}
	if v.IsObject() {
		return b.object(v, sh)
	}
	return b.array(v, sh)
}

// object returns the instance of the object v, the last of the members
// given more than once standing.
func (b *instanceBuilder) object(v gjson.Result, sh *shape) map[string]any {
	m := map[string]any{}
	v.ForEach(func(k, mv gjson.Result) bool {
		name := Key(k)
		b.path = append(b.path, pathStep{name: name, index: -1})
		if _, dup := m[name]; dup {
			b.dup()
		}
		m[name] = b.value(mv, sh.member(name))
		b.path = b.path[:len(b.path)-1]
		return true
	})
	return m
}

// array returns the instance of the array v.
func (b *instanceBuilder) array(v gjson.Result, sh *shape) []any {
	a := []any{}
	item := sh.item()
	v.ForEach(func(_, iv gjson.Result) bool {
		b.path = append(b.path, pathStep{index: len(a)})
		a = append(a, b.value(iv, item))
		b.path = b.path[:len(b.path)-1]
		return true
	})
	return a
}

// scanSet is how many members an object may have before scan looks their
// names up in a map rather than a list.
const scanSet = 16

// scan finds the duplicate members in v, an array or object whose
// contents no schema reads.
func (b *instanceBuilder) scan(v gjson.Result) {
	if v.Type != gjson.JSON {
		return
	}
	if !v.IsObject() {
		i := 0
		v.ForEach(func(_, iv gjson.Result) bool {
			b.path = append(b.path, pathStep{index: i})
			b.scan(iv)
			b.path = b.path[:len(b.path)-1]
			i++
			return true
		})
		return
	}
	start := len(b.names)
	var seen map[string]bool
	v.ForEach(func(k, mv gjson.Result) bool {
		name := Key(k)
		var dup bool
		if seen != nil {
			dup = seen[name]
			seen[name] = true
		} else {
			dup = slices.Contains(b.names[start:], name)
			b.names = append(b.names, name)
			if len(b.names)-start > scanSet {
				seen = map[string]bool{}
				for _, n := range b.names[start:] {
					seen[n] = true
				}
			}
		}
		b.path = append(b.path, pathStep{name: name, index: -1})
		if dup {
			b.dup()
		}
		b.scan(mv)
		b.path = b.path[:len(b.path)-1]
		return true
	})
	b.names = b.names[:start]
}

// dup records the member at the current path as given more than once.
func (b *instanceBuilder) dup() {
	p := ""
	for _, s := range b.path {
		if s.index >= 0 {
			p = Join(p, strconv.Itoa(s.index))
		} else {
			p = Join(p, s.name)
		}
	}
	b.dups = append(b.dups, Problem{Path: p, Message: "member given more than once"})
}
