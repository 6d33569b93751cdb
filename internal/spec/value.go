package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Pos is where a value or key is in its file; the zero Pos is a default's.
type Pos struct {
	Line, Column int
}

// Value is a decoded value, checked against its node: the tree the decoder
// builds, with defaults filled in, which the formats' packages read.
type Value struct {
	n      *Node
	form   *Node  // KindOneOf: the node of the key, whose form n is; nil otherwise
	path   string // the key path, as errors name it: agents[0].url
	pos    Pos    // where the value is; zero for a default
	keyPos Pos    // where the key naming it is; zero for list items and defaults
	given  bool   // written in the file, not a default
	text   string // scalars: the text as written, before ${VAR} is replaced

	s     string        // KindString and KindEnum (paths joined to the file's directory)
	i     int           // KindInt and KindSize
	x     float64       // KindFloat
	d     time.Duration // KindDuration
	b     bool          // KindBool
	raw   json.RawMessage
	any   any      // KindAny
	key   string   // a map entry's key
	items []*Value // list items, map entries, or an object's keys (given or defaulted), in order
	// written are an object's keys in the file, their values decoded or
	// not.
	written []string
}

// Node is the node the value was decoded against: for a OneOf, the form
// it took.
func (v *Value) Node() *Node { return v.n }

// keyNode is the node of the key the value is under: the OneOf, for a
// value of one of its forms.
func (v *Value) keyNode() *Node {
	if v.form != nil {
		return v.form
	}
	return v.n
}

// Path is the value's key path, as errors name it: agents[0].url.
func (v *Value) Path() string { return v.path }

// Pos is where the value is in its file; zero for a default.
func (v *Value) Pos() Pos {
	if v == nil {
		return Pos{}
	}
	return v.pos
}

// KeyPos is where the key naming the value is, for an object's keys and a
// map's entries; zero for list items and defaults.
func (v *Value) KeyPos() Pos { return v.keyPos }

// Given reports whether the value is written in the file, not a default.
func (v *Value) Given() bool { return v.given }

// Key is a map entry's key.
func (v *Value) Key() string { return v.key }

// Items are a list's items, a map's entries, or an object's values (given
// or defaulted), in order.
func (v *Value) Items() []*Value {
	if v == nil {
		return nil
	}
	return v.items
}

// String is a string's or an enum's text (a path joined to the file's
// directory).
func (v *Value) String() string { return v.s }

// Text is a scalar's text as written, before ${VAR} is replaced.
func (v *Value) Text() string { return v.text }

// Integer is a whole number's or a size's value.
func (v *Value) Integer() int { return v.i }

// Float is a number's value.
func (v *Value) Float() float64 {
	if v == nil {
		return 0
	}
	return v.x
}

// Duration is a duration's value.
func (v *Value) Duration() time.Duration { return v.d }

// Boolean is a boolean's value.
func (v *Value) Boolean() bool { return v.b }

// JSON is a JSON value's text.
func (v *Value) JSON() json.RawMessage { return v.raw }

// Any is an Any value, as YAML decodes it into an interface: strings,
// ints, float64s, bools, nil, []any and map[string]any.
func (v *Value) Any() any { return v.any }

// Get returns the object's value of key, nil when it is neither given nor
// defaulted. It panics when key is not a key of the object's node: a
// mistake in the program, not in the file.
func (v *Value) Get(key string) *Value {
	if v == nil {
		return nil
	}
	if v.n.kind != KindObject || v.n.Child(key) == nil {
		panic(fmt.Sprintf("spec: %s has no key %q", v.n.key, key))
	}
	for _, c := range v.items {
		if c.keyNode().key == key {
			return c
		}
	}
	return nil
}

// Has reports whether the object has a value of key.
func (v *Value) Has(key string) bool { return v.Get(key) != nil }

// Wrote reports whether the object's key is in the file, even with a value
// that did not decode.
func (v *Value) Wrote(key string) bool { return v != nil && slices.Contains(v.written, key) }

// Str returns the string or enum of key, "" when absent.
func (v *Value) Str(key string) string {
	if c := v.Get(key); c != nil {
		return c.s
	}
	return ""
}

// Int returns the whole number or size of key, 0 when absent.
func (v *Value) Int(key string) int {
	if c := v.Get(key); c != nil {
		return c.i
	}
	return 0
}

// Dur returns the duration of key, 0 when absent.
func (v *Value) Dur(key string) time.Duration {
	if c := v.Get(key); c != nil {
		return c.d
	}
	return 0
}

// Bool returns the boolean of key, false when absent.
func (v *Value) Bool(key string) bool {
	if c := v.Get(key); c != nil {
		return c.b
	}
	return false
}

// Strs returns the strings of the list of key, nil when absent.
func (v *Value) Strs(key string) []string {
	c := v.Get(key)
	if c == nil {
		return nil
	}
	return c.Strings()
}

// Strings returns a list's strings.
func (v *Value) Strings() []string {
	out := make([]string, len(v.items))
	for i, it := range v.items {
		out[i] = it.s
	}
	return out
}

// StrMap returns the map of strings of key, nil when absent.
func (v *Value) StrMap(key string) map[string]string {
	c := v.Get(key)
	if c == nil {
		return nil
	}
	out := make(map[string]string, len(c.items))
	for _, it := range c.items {
		out[it.key] = it.s
	}
	return out
}

// List returns the items of the list or map of key, nil when absent.
func (v *Value) List(key string) []*Value {
	if c := v.Get(key); c != nil {
		return c.items
	}
	return nil
}
