package config

import (
	"fmt"
	"strings"
)

// The config is specified once, as a tree of fields (spec.go): each with
// its key, kind, default, documentation and checks. The strict decoder
// (decode.go), the key reference in docs/config.md (reference.go) and the
// JSON Schema for editors (schema.go) are all read from that tree.

// kind is the type of a config value.
type kind uint8

const (
	kindString   kind = iota // a non-empty string, unless allowEmpty
	kindInt                  // a whole number, at least min
	kindFloat                // a number, at least min
	kindSize                 // bytes: a whole number, or with a KiB, MiB, KB or MB suffix
	kindDuration             // a Go duration, more than 0 (or 0 with zeroOff)
	kindBool                 // true or false
	kindEnum                 // one of options
	kindJSON                 // a JSON object written in YAML, as JSON
	kindList                 // a sequence of elem
	kindMap                  // a mapping of free keys to elem
	kindObject               // a mapping of the keys of fields
	kindOneOf                // the first of alts whose node kind fits
)

// field is one key of the config, or the items of a list or map.
type field struct {
	key  string
	kind kind
	// doc says what the key is for, in Markdown: the reference's text and
	// the JSON Schema's description.
	doc string
	// what names the value in errors ("must be <what>"); typ names its type
	// in the reference. Both have defaults by kind.
	what, typ string
	// def is the default, as YAML text; defDoc says the default in words,
	// for the reference, where it is not a fixed value or def does not
	// say it plainly. Objects without def take their fields' defaults,
	// unless defDoc says otherwise.
	def, defDoc string

	options    []string // kindEnum: the values
	min        float64  // kindInt and kindFloat: the least value
	zeroOff    bool     // kindDuration and kindSize: 0 (or 0s) is allowed and turns the feature off
	allowEmpty bool     // kindString: "" is a value
	path       bool     // kindString: a file path, taken from the config file's directory
	secret     bool     // scalars: errors never quote it, and show prints it as written, unexpanded

	check     func(s string) string   // scalars: the whole problem with the text, or ""
	checkJSON func(raw []byte) string // kindJSON: the problem, or ""
	checkKey  func(k string) string   // kindMap: the problem with a key, or ""

	elem     *field // kindList and kindMap: the items
	unique   bool   // kindList: no item twice (scalars by value, objects by uniqueBy)
	uniqueBy string // kindList of objects: the key that identifies an item
	noun     string // kindList: what one item is called in "the <noun> "x" is listed twice"
	nonEmpty bool   // kindList: at least one item

	fields []*field // kindObject: its keys, in the order the reference lists them
	alts   []*field // kindOneOf: the forms a value may take

	// required is why the key may not be left out: "missing: <required>".
	required string
	// with lists the sibling keys this key goes with (one of them must be
	// there), and withWhy says why.
	with    []string
	withWhy string
	// choice: kindObject: the keys of which at most one may be given.
	choice *choice
	// checks are an object's cross-field checks, run once its fields are
	// decoded and their defaults filled in.
	checks []func(d *decoder, v *value)
}

// choice is a set of sibling keys that exclude each other, such as the
// ways to reach an agent.
type choice struct {
	keys []string
	// twice is the error for a second key, given the first key, its
	// line and the second key.
	twice string
	// none, if set, makes one of the keys required: the error when none is
	// given.
	none string
}

// Constructors of the kinds; the options are set as fields of the result.

func str(key, doc string) *field       { return &field{key: key, kind: kindString, doc: doc} }
func integer(key, doc string) *field   { return &field{key: key, kind: kindInt, doc: doc} }
func number(key, doc string) *field    { return &field{key: key, kind: kindFloat, doc: doc} }
func size(key, doc string) *field      { return &field{key: key, kind: kindSize, doc: doc} }
func duration(key, doc string) *field  { return &field{key: key, kind: kindDuration, doc: doc} }
func boolean(key, doc string) *field   { return &field{key: key, kind: kindBool, doc: doc} }
func jsonValue(key, doc string) *field { return &field{key: key, kind: kindJSON, doc: doc} }
func list(key, doc string, elem *field) *field {
	return &field{key: key, kind: kindList, doc: doc, elem: elem}
}
func mapOf(key, doc string, elem *field) *field {
	return &field{key: key, kind: kindMap, doc: doc, elem: elem}
}
func object(key, doc string, fields ...*field) *field {
	return &field{key: key, kind: kindObject, doc: doc, fields: fields}
}
func oneOf(key, doc string, alts ...*field) *field {
	return &field{key: key, kind: kindOneOf, doc: doc, alts: alts}
}
func enum(key, doc string, options ...string) *field {
	return &field{key: key, kind: kindEnum, doc: doc, options: options}
}

// Modifiers, for the spec's readability: each sets one option and returns
// the field.

func (f *field) withDefault(yaml string) *field       { f.def = yaml; return f }
func (f *field) defaultIs(words string) *field        { f.defDoc = words; return f }
func (f *field) named(what string) *field             { f.what = what; return f }
func (f *field) hidden() *field                       { f.secret = true; return f }
func (f *field) typed(typ string) *field              { f.typ = typ; return f }
func (f *field) atLeast(min float64) *field           { f.min = min; return f }
func (f *field) checked(c func(string) string) *field { f.check = c; return f }
func (f *field) mustHave(why string) *field           { f.required = why; return f }
func (f *field) only(why string, with ...string) *field {
	f.with, f.withWhy = with, why
	return f
}
func (f *field) distinct() *field { f.unique = true; return f }
func (f *field) distinctBy(key, noun string) *field {
	f.unique, f.uniqueBy, f.noun = true, key, noun
	return f
}
func (f *field) checkedBy(c func(d *decoder, v *value)) *field {
	f.checks = append(f.checks, c)
	return f
}

// off lets a duration be 0 (or 0s), which turns its feature off.
func (f *field) off() *field { f.zeroOff = true; return f }

// pathed makes a string a file path, taken from the config file's
// directory.
func (f *field) pathed() *field { f.path = true; return f }

// emptyOK lets a string be "".
func (f *field) emptyOK() *field { f.allowEmpty = true; return f }

// child returns the object's field of key, or nil.
func (f *field) child(key string) *field {
	for _, c := range f.fields {
		if c.key == key {
			return c
		}
	}
	return nil
}

// keyList is the object's keys, comma-separated, for errors.
func (f *field) keyList() string {
	keys := make([]string, len(f.fields))
	for i, c := range f.fields {
		keys[i] = c.key
	}
	return strings.Join(keys, ", ")
}

// orList joins words as "a, b or c".
func orList(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// whatOf is how errors name a value of f: "must be <whatOf>".
func (f *field) whatOf() string {
	if f.kind == kindEnum {
		if f.what != "" {
			return fmt.Sprintf("%s (%s)", f.what, orList(f.options))
		}
		return orList(f.options)
	}
	if f.what != "" {
		return f.what
	}
	switch f.kind {
	case kindString:
		return "a non-empty string"
	case kindInt:
		return "a whole number"
	case kindFloat:
		return "a number"
	case kindSize:
		if f.zeroOff {
			return "a size (1MiB, 65536), or 0 for none"
		}
		return "a size (1MiB, 65536)"
	case kindDuration:
		if f.zeroOff {
			return "a duration (30s, 500ms, 2m), or 0s for off"
		}
		return "a duration (30s, 500ms, 2m)"
	case kindBool:
		return "true or false"
	case kindJSON:
		return "a mapping"
	case kindList:
		return "a list"
	case kindMap, kindObject:
		return fmt.Sprintf("a mapping (%s)", f.keyList())
	case kindOneOf:
		whats := make([]string, len(f.alts))
		for i, a := range f.alts {
			whats[i] = a.whatOf()
		}
		return strings.Join(whats, ", or ")
	}
	return "a value"
}
