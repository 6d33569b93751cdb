package spec

import (
	"fmt"
	"strings"
)

// Kind is the type of a value a node describes.
type Kind uint8

// The kinds.
const (
	KindString   Kind = iota // a non-empty string, unless EmptyOK
	KindInt                  // a whole number, at least the node's least
	KindFloat                // a number, at least the node's least
	KindSize                 // bytes: a whole number, or with a KiB, MiB, KB or MB suffix
	KindDuration             // a Go duration, more than 0 (or 0 with Off)
	KindBool                 // true or false
	KindEnum                 // one of the node's options
	KindJSON                 // a JSON object written in YAML, kept as JSON
	KindAny                  // any YAML value, kept as Go values (strings, numbers, lists, maps)
	KindList                 // a sequence of the node's items
	KindMap                  // a mapping of free keys to the node's items
	KindObject               // a mapping of the node's keys
	KindOneOf                // the first of the node's forms whose YAML kind fits
)

// Node is one key of a file format, or the items of a list or map: its
// kind, documentation, default and checks.
type Node struct {
	key  string
	kind Kind
	// doc says what the key is for, in Markdown: the reference's text and
	// the JSON Schema's description.
	doc string
	// what names the value in errors ("must be <what>"); typ names its type
	// in the reference. Both have defaults by kind.
	what, typ string
	// def is the default, as YAML text; defDoc says the default in words,
	// for the reference, where it is not a fixed value or def does not say
	// it plainly. Objects without def take their keys' defaults, unless
	// defDoc says otherwise.
	def, defDoc string

	options    []string // KindEnum: the values
	min        float64  // KindInt and KindFloat: the least value
	zeroOff    bool     // KindDuration and KindSize: 0 (or 0s) is allowed and turns the feature off
	allowEmpty bool     // KindString: "" is a value
	path       bool     // KindString: a file path, taken from the file's directory
	secret     bool     // scalars: errors never quote it, and YAML shows it as written

	check     func(s string) string   // scalars: the whole problem with the text, or ""
	checkJSON func(raw []byte) string // KindJSON: the problem, or ""
	checkKey  func(k string) string   // KindMap: the problem with a key, or ""
	refused   func(s string) string   // scalars: the problem with a text the kind refuses, instead of the kind's own
	whatFor   func(key string) string // names the value in errors by the key it is under, instead of what
	unknown   func(k string) string   // KindObject: what an unknown key is called, instead of the spec's
	schema    map[string]any          // the JSON Schema of the kind, instead of the kind's own

	items    *Node  // KindList and KindMap: the items
	unique   bool   // KindList: no item twice (scalars by value, objects by uniqueBy)
	uniqueBy string // KindList of objects: the key that identifies an item
	noun     string // KindList: what one item is called in "the <noun> "x" is listed twice"
	nonEmpty bool   // KindList and KindMap: at least one item

	keys  []*Node // KindObject: its keys, in the order the reference lists them
	forms []*Node // KindOneOf: the forms a value may take

	// required is why the key may not be left out: "missing: <required>".
	required string
	// with lists the sibling keys this key goes with (one of them must be
	// there), and withWhy says why.
	with    []string
	withWhy string
	// choice: KindObject: the keys of which at most one may be given.
	choice *choice
	// rules are cross-value checks, run once the value is decoded (and an
	// object's defaults filled in).
	rules []Rule
}

// Rule is a check across the parts of a decoded value, run once they are
// decoded and an object's defaults filled in. It reports each problem with
// d.Fail.
type Rule func(d *Decoder, v *Value)

// choice is a set of sibling keys that exclude each other.
type choice struct {
	keys []string
	// twice is the error for a second key, given the first key, its line
	// and the second key.
	twice string
	// none, if set, makes one of the keys required: the error when none is
	// given.
	none string
}

// String is a non-empty string.
func String(key, doc string) *Node { return &Node{key: key, kind: KindString, doc: doc} }

// Int is a whole number, at least 0 unless AtLeast says otherwise.
func Int(key, doc string) *Node { return &Node{key: key, kind: KindInt, doc: doc} }

// Number is a number, at least 0 unless AtLeast says otherwise.
func Number(key, doc string) *Node { return &Node{key: key, kind: KindFloat, doc: doc} }

// Size is a size in bytes: 65536, 64KiB, 1MiB, 1MB.
func Size(key, doc string) *Node { return &Node{key: key, kind: KindSize, doc: doc} }

// Duration is a Go duration of more than 0: 500ms, 30s, 2m.
func Duration(key, doc string) *Node { return &Node{key: key, kind: KindDuration, doc: doc} }

// Bool is true or false.
func Bool(key, doc string) *Node { return &Node{key: key, kind: KindBool, doc: doc} }

// JSON is a JSON object written in YAML.
func JSON(key, doc string) *Node { return &Node{key: key, kind: KindJSON, doc: doc} }

// Any is any YAML value: a scalar, a list or a mapping.
func Any(key, doc string) *Node { return &Node{key: key, kind: KindAny, doc: doc} }

// Enum is one of options.
func Enum(key, doc string, options ...string) *Node {
	return &Node{key: key, kind: KindEnum, doc: doc, options: options}
}

// List is a sequence of items.
func List(key, doc string, items *Node) *Node {
	return &Node{key: key, kind: KindList, doc: doc, items: items}
}

// Map is a mapping of free keys to items.
func Map(key, doc string, items *Node) *Node {
	return &Node{key: key, kind: KindMap, doc: doc, items: items}
}

// Object is a mapping of the given keys, each a node.
func Object(key, doc string, keys ...*Node) *Node {
	return &Node{key: key, kind: KindObject, doc: doc, keys: keys}
}

// OneOf is a value of one of forms: the first whose YAML kind (scalar,
// sequence, mapping) fits.
func OneOf(key, doc string, forms ...*Node) *Node {
	return &Node{key: key, kind: KindOneOf, doc: doc, forms: forms}
}

// Modifiers: each sets one option and returns the node.

// Default sets the default, as YAML text.
func (n *Node) Default(yaml string) *Node { n.def = yaml; return n }

// DefaultIs says the default in words, for the reference.
func (n *Node) DefaultIs(words string) *Node { n.defDoc = words; return n }

// Named names the value in errors: "must be <what>".
func (n *Node) Named(what string) *Node { n.what = what; return n }

// NamedFor names the value in errors by the key it is under: "must be
// <what(key)>".
func (n *Node) NamedFor(what func(key string) string) *Node { n.whatFor = what; return n }

// Typed names the value's type in the reference.
func (n *Node) Typed(typ string) *Node { n.typ = typ; return n }

// Secret keeps the value out of errors, and shows it as written.
func (n *Node) Secret() *Node { n.secret = true; return n }

// AtLeast sets the least value of a number.
func (n *Node) AtLeast(min float64) *Node { n.min = min; return n }

// Check adds a check of a scalar's text: it returns the whole problem, or
// "".
func (n *Node) Check(c func(string) string) *Node { n.check = c; return n }

// CheckJSON adds a check of a JSON value: it returns the problem, or "".
func (n *Node) CheckJSON(c func([]byte) string) *Node { n.checkJSON = c; return n }

// CheckKey adds a check of a map's keys: it returns the problem, or "".
func (n *Node) CheckKey(c func(string) string) *Node { n.checkKey = c; return n }

// Refused replaces the problem of a scalar its kind refuses (not a
// number, not an option) with what r says of the text.
func (n *Node) Refused(r func(string) string) *Node { n.refused = r; return n }

// Unknown names an object's unknown key in errors, "<unknown(k)> (want
// <keys>)", instead of the spec's way.
func (n *Node) Unknown(u func(string) string) *Node { n.unknown = u; return n }

// Schema replaces the JSON Schema of the node's kind with s (its
// description and default are still added).
func (n *Node) Schema(s map[string]any) *Node { n.schema = s; return n }

// Required makes the key one that may not be left out, saying why.
func (n *Node) Required(why string) *Node { n.required = why; return n }

// Only makes the key one that goes only with one of the sibling keys with,
// saying why.
func (n *Node) Only(why string, with ...string) *Node {
	n.with, n.withWhy = with, why
	return n
}

// Distinct refuses a list's item given twice.
func (n *Node) Distinct() *Node { n.unique = true; return n }

// DistinctBy refuses two of a list's objects with the same key; noun is
// what an item is called in the error.
func (n *Node) DistinctBy(key, noun string) *Node {
	n.unique, n.uniqueBy, n.noun = true, key, noun
	return n
}

// NonEmpty refuses an empty list or map.
func (n *Node) NonEmpty() *Node { n.nonEmpty = true; return n }

// Rule adds a check across the decoded value's parts.
func (n *Node) Rule(r Rule) *Node { n.rules = append(n.rules, r); return n }

// Choice makes an object's keys exclude each other. twice is the error for
// a second one, given the first key, its line and the second key; none,
// when not "", makes one of them required, and is the error when none is
// given.
func (n *Node) Choice(twice, none string, keys ...string) *Node {
	n.choice = &choice{keys: keys, twice: twice, none: none}
	return n
}

// Off lets a duration or size be 0, which turns its feature off.
func (n *Node) Off() *Node { n.zeroOff = true; return n }

// Path makes a string a file path, taken from the file's directory.
func (n *Node) Path() *Node { n.path = true; return n }

// EmptyOK lets a string be "".
func (n *Node) EmptyOK() *Node { n.allowEmpty = true; return n }

// Key is the node's key in its object, "" for items.
func (n *Node) Key() string { return n.key }

// Kind is the node's kind.
func (n *Node) Kind() Kind { return n.kind }

// Doc is what the node's documentation says.
func (n *Node) Doc() string { return n.doc }

// Keys are an object's keys, in order.
func (n *Node) Keys() []*Node { return n.keys }

// Child returns the object's node of key, or nil.
func (n *Node) Child(key string) *Node {
	for _, c := range n.keys {
		if c.key == key {
			return c
		}
	}
	return nil
}

// KeyList is the object's keys, comma-separated, as errors list them.
func (n *Node) KeyList() string {
	keys := make([]string, len(n.keys))
	for i, c := range n.keys {
		keys[i] = c.key
	}
	return strings.Join(keys, ", ")
}

// OrList joins words as "a, b or c".
func OrList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// whatOf is how errors name a value of n: "must be <whatOf>".
func (n *Node) whatOf() string {
	if n.kind == KindEnum {
		if n.what != "" {
			return fmt.Sprintf("%s (%s)", n.what, OrList(n.options))
		}
		return OrList(n.options)
	}
	if n.what != "" {
		return n.what
	}
	switch n.kind {
	case KindString:
		return "a non-empty string"
	case KindInt:
		return "a whole number"
	case KindFloat:
		return "a number"
	case KindSize:
		if n.zeroOff {
			return "a size (1MiB, 65536), or 0 for none"
		}
		return "a size (1MiB, 65536)"
	case KindDuration:
		if n.zeroOff {
			return "a duration (30s, 500ms, 2m), or 0s for off"
		}
		return "a duration (30s, 500ms, 2m)"
	case KindBool:
		return "true or false"
	case KindJSON:
		return "a mapping"
	case KindAny:
		return "a value"
	case KindList:
		return "a list"
	case KindMap, KindObject:
		return fmt.Sprintf("a mapping (%s)", n.KeyList())
	case KindOneOf:
		whats := make([]string, len(n.forms))
		for i, a := range n.forms {
			whats[i] = a.whatOf()
		}
		return strings.Join(whats, ", or ")
	}
	return "a value"
}
