package schemafast

import (
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// kinds is a set of token kinds.
type kinds uint8

func (k kinds) has(x kind) bool { return k&(1<<x) != 0 }

const (
	numberKinds = kinds(1 << kindNumber)
	stringKinds = kinds(1 << kindString)
)

// node is what the fast path checks of one compiled schema. The fields
// eval reads of every node come first, on one cache line; the keywords it
// reads only when groups says the schema has them come after.
type node struct {
	// single, when set, is the one member n is about (singleMember).
	single *member
	// groups are the kinds of keyword n has (groupsOf).
	groups groups

	// unknown: the schema has a keyword the fast path does not check;
	// unknownFor: the same, for values of these kinds only.
	unknown    bool
	unknownFor kinds
	// never is the schema false.
	never bool

	// types, when set, are the kinds the value may be; integer that it
	// may be a whole number.
	types    kinds
	hasTypes bool
	integer  bool

	constant *constant
	enum     []constant
	// enumText holds the string values of enum when it has many.
	enumText map[string]bool

	format   *jsonschema.Format
	dateTime bool

	ref *node
	// refOnly: the draft ignores the other keywords beside $ref.
	refOnly bool

	// object
	minProps, maxProps int
	required           []string
	propNames          []string
	propNodes          []*node
	props              map[string]*node
	patterns           []patternNode
	additional         *node
	noAdditional       bool
	dependentRequired  []dependency
	dependentSchemas   []dependency
	propertyNames      *node

	// array
	minItems, maxItems       int
	unique                   bool
	prefix                   []*node
	rest                     *node
	noRest                   bool
	contains                 *node
	minContains, maxContains int

	// string
	minLength, maxLength int
	pattern              *matcher

	// number
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *decimal

	not                 *node
	allOf, anyOf, oneOf []*node
	// keyed is allOf by the value of one member, when it can be (keyed.go).
	keyed           *keyed
	cond, then, els *node
}

// groups is a set of the kinds of keyword a node has, so that eval passes
// over those it has not without reading their fields: on the bridge's hot
// path the nodes are seldom in cache, and a node's fields span several
// cache lines.
type groups uint16

const (
	gConst groups = 1 << iota
	gEnum
	gFormat
	gRef
	gObject
	gArray
	gString
	gNumber
	gCond
)

// groupsOf returns the kinds of keyword n, filled, has.
func groupsOf(n *node) groups {
	var g groups
	set := func(has bool, x groups) {
		if has {
			g |= x
		}
	}
	set(n.constant != nil, gConst)
	set(n.enum != nil, gEnum)
	set(n.format != nil, gFormat)
	set(n.ref != nil, gRef)
	set(n.minProps >= 0 || n.maxProps >= 0 || len(n.required) > 0 || len(n.dependentRequired) > 0 ||
		len(n.dependentSchemas) > 0 || len(n.propNames) > 0 || len(n.patterns) > 0 || n.additional != nil ||
		n.noAdditional || n.propertyNames != nil, gObject)
	set(n.minItems >= 0 || n.maxItems >= 0 || n.unique || len(n.prefix) > 0 || n.rest != nil || n.noRest ||
		n.contains != nil, gArray)
	set(n.minLength >= 0 || n.maxLength >= 0 || n.pattern != nil, gString)
	set(n.minimum != nil || n.maximum != nil || n.exclusiveMinimum != nil || n.exclusiveMaximum != nil, gNumber)
	set(n.not != nil || len(n.allOf) > 0 || len(n.anyOf) > 0 || len(n.oneOf) > 0 || n.cond != nil, gCond)
	return g
}

// member is a node's one member: its name, its node, whether it is
// required.
type member struct {
	name     string
	node     *node
	required bool
}

// constant is a value of enum or const.
type constant struct {
	kind kind
	text string
	num  decimal
}

type patternNode struct {
	re   matcher
	node *node
}

// dependency is what a member's presence asks: more members, or a schema.
type dependency struct {
	name     string
	required []string
	node     *node
}

// matcher is a compiled pattern of the library's regexp engine, with its
// automaton (dfa.go) when it has one.
type matcher struct {
	re    *regexp.Regexp
	other jsonschema.Regexp
	dfa   *dfa
}

func newMatcher(r jsonschema.Regexp) matcher {
	re, _ := r.(*regexp.Regexp)
	m := matcher{re: re, other: r}
	if re != nil {
		m.dfa = newDFA(re.String())
	}
	return m
}

func (m *matcher) match(b []byte) bool {
	if m.dfa != nil {
		if ok, known := m.dfa.match(b); known {
			return ok
		}
	}
	if m.re != nil {
		return m.re.Match(b)
	}
	return m.other.MatchString(string(b))
}

// checked are the fields of jsonschema.Schema the fast path checks, or
// reads, or that do not change whether a value is valid. A schema with any
// other field set is left to the library, whatever the library's version
// adds.
var checked = map[string]bool{
	"DraftVersion": true, "Location": true, "ID": true, "Anchor": true,
	"Bool": true, "Ref": true, "Types": true, "Enum": true, "Const": true,
	"Not": true, "AllOf": true, "AnyOf": true, "OneOf": true,
	"If": true, "Then": true, "Else": true, "Format": true,
	"MaxProperties": true, "MinProperties": true, "Required": true,
	"PropertyNames": true, "Properties": true, "PatternProperties": true,
	"AdditionalProperties": true, "Dependencies": true,
	"DependentRequired": true, "DependentSchemas": true,
	"MinItems": true, "MaxItems": true, "UniqueItems": true,
	"Contains": true, "MinContains": true, "MaxContains": true,
	"Items": true, "AdditionalItems": true, "PrefixItems": true, "Items2020": true,
	"MinLength": true, "MaxLength": true, "Pattern": true,
	"Maximum": true, "Minimum": true, "ExclusiveMaximum": true, "ExclusiveMinimum": true,
	// Left to the library for values of their type: see compileNode.
	"MultipleOf": true, "ContentEncoding": true, "ContentMediaType": true, "ContentSchema": true,
	// Annotations.
	"Title": true, "Description": true, "Default": true, "Comment": true,
	"ReadOnly": true, "WriteOnly": true, "Examples": true, "Deprecated": true,
}

// uncheckedField returns the name of a field of s the fast path does not
// check, set in s; "" when there is none.
func uncheckedField(s *jsonschema.Schema) string {
	v := reflect.ValueOf(s).Elem()
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		if f.IsExported() && !checked[f.Name] && !v.Field(i).IsZero() {
			return f.Name
		}
	}
	return ""
}

// compiler makes one node per schema.
type compiler struct {
	nodes map[*jsonschema.Schema]*node
}

func (c *compiler) node(s *jsonschema.Schema) *node {
	if s == nil {
		return nil
	}
	if n, ok := c.nodes[s]; ok {
		return n
	}
	n := &node{minProps: -1, maxProps: -1, minItems: -1, maxItems: -1,
		minContains: -1, maxContains: -1, minLength: -1, maxLength: -1}
	c.nodes[s] = n
	if err := c.fill(n, s); err != nil {
		*n = node{unknown: true}
	}
	return n
}

// fill sets n from s; an error says the fast path cannot check s.
func (c *compiler) fill(n *node, s *jsonschema.Schema) error {
	if s.Bool != nil {
		n.never = !*s.Bool
		return nil
	}
	if f := uncheckedField(s); f != "" {
		return fmt.Errorf("%s: %s", s.Location, f)
	}
	if s.MultipleOf != nil {
		n.unknownFor |= numberKinds
	}
	if s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil {
		n.unknownFor |= stringKinds
	}
	if s.Types != nil {
		n.hasTypes = true
		for _, t := range s.Types.ToStrings() {
			switch t {
			case "null":
				n.types |= 1 << kindNull
			case "boolean":
				n.types |= 1<<kindTrue | 1<<kindFalse
			case "number":
				n.types |= 1 << kindNumber
			case "integer":
				n.integer = true
			case "string":
				n.types |= 1 << kindString
			case "array":
				n.types |= 1 << kindArray
			case "object":
				n.types |= 1 << kindObject
			default:
				return fmt.Errorf("type %q", t)
			}
		}
	}
	if s.Const != nil {
		k, err := constantOf(*s.Const)
		if err != nil {
			return err
		}
		n.constant = &k
	}
	if s.Enum != nil {
		for _, v := range s.Enum.Values {
			k, err := constantOf(v)
			if err != nil {
				return err
			}
			n.enum = append(n.enum, k)
		}
		if len(n.enum) > 8 {
			n.enumText = map[string]bool{}
			for _, k := range n.enum {
				if k.kind == kindString {
					n.enumText[k.text] = true
				}
			}
		}
		if len(n.enum) == 0 {
			n.enum = []constant{} // nothing is valid
		}
	}
	if s.Format != nil {
		n.format = s.Format
		n.dateTime = s.Format.Name == "date-time" && sameFunc(s.Format.Validate, builtinDateTime())
	}
	n.ref = c.node(s.Ref)
	n.refOnly = s.Ref != nil && s.DraftVersion < 2019

	if s.MinProperties != nil {
		n.minProps = *s.MinProperties
	}
	if s.MaxProperties != nil {
		n.maxProps = *s.MaxProperties
	}
	n.required = s.Required
	n.propNames = slices.Sorted(maps.Keys(s.Properties))
	for _, name := range n.propNames {
		n.propNodes = append(n.propNodes, c.node(s.Properties[name]))
	}
	if len(n.propNames) > smallProps {
		n.props = map[string]*node{}
		for i, name := range n.propNames {
			n.props[name] = n.propNodes[i]
		}
	}
	for re, sch := range s.PatternProperties {
		n.patterns = append(n.patterns, patternNode{re: newMatcher(re), node: c.node(sch)})
	}
	switch a := s.AdditionalProperties.(type) {
	case bool:
		n.noAdditional = !a
	case *jsonschema.Schema:
		n.additional = c.node(a)
	}
	for _, name := range slices.Sorted(maps.Keys(s.Dependencies)) {
		switch d := s.Dependencies[name].(type) {
		case []string:
			n.dependentRequired = append(n.dependentRequired, dependency{name: name, required: d})
		case *jsonschema.Schema:
			n.dependentSchemas = append(n.dependentSchemas, dependency{name: name, node: c.node(d)})
		default:
			return fmt.Errorf("dependency %q", name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(s.DependentRequired)) {
		n.dependentRequired = append(n.dependentRequired, dependency{name: name, required: s.DependentRequired[name]})
	}
	for _, name := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		n.dependentSchemas = append(n.dependentSchemas, dependency{name: name, node: c.node(s.DependentSchemas[name])})
	}
	n.propertyNames = c.node(s.PropertyNames)

	if s.MinItems != nil {
		n.minItems = *s.MinItems
	}
	if s.MaxItems != nil {
		n.maxItems = *s.MaxItems
	}
	n.unique = s.UniqueItems
	if s.DraftVersion < 2020 {
		switch items := s.Items.(type) {
		case *jsonschema.Schema:
			n.rest = c.node(items)
		case []*jsonschema.Schema:
			for _, it := range items {
				n.prefix = append(n.prefix, c.node(it))
			}
		}
		if _, all := s.Items.(*jsonschema.Schema); !all {
			switch a := s.AdditionalItems.(type) {
			case bool:
				n.noRest = !a
			case *jsonschema.Schema:
				n.rest = c.node(a)
			}
		}
	} else {
		for _, it := range s.PrefixItems {
			n.prefix = append(n.prefix, c.node(it))
		}
		n.rest = c.node(s.Items2020)
	}
	n.contains = c.node(s.Contains)
	if s.MinContains != nil {
		n.minContains = *s.MinContains
	}
	if s.MaxContains != nil {
		n.maxContains = *s.MaxContains
	}

	if s.MinLength != nil {
		n.minLength = *s.MinLength
	}
	if s.MaxLength != nil {
		n.maxLength = *s.MaxLength
	}
	if s.Pattern != nil {
		m := newMatcher(s.Pattern)
		n.pattern = &m
	}

	for _, b := range []struct {
		to   **decimal
		from *big.Rat
	}{{&n.minimum, s.Minimum}, {&n.maximum, s.Maximum}, {&n.exclusiveMinimum, s.ExclusiveMinimum}, {&n.exclusiveMaximum, s.ExclusiveMaximum}} {
		if b.from == nil {
			continue
		}
		d, ok := ratDecimal(b.from)
		if !ok {
			n.unknownFor |= numberKinds
			continue
		}
		*b.to = &d
	}

	n.not = c.node(s.Not)
	for _, l := range []struct {
		to   *[]*node
		from []*jsonschema.Schema
	}{{&n.allOf, s.AllOf}, {&n.anyOf, s.AnyOf}, {&n.oneOf, s.OneOf}} {
		for _, sch := range l.from {
			*l.to = append(*l.to, c.node(sch))
		}
	}
	n.cond, n.then, n.els = c.node(s.If), c.node(s.Then), c.node(s.Else)
	n.single = singleMember(n)
	n.groups = groupsOf(n)
	return nil
}

// singleMember returns the one member n is about, when that is all n says:
// properties naming one member, that member perhaps required, and no
// other keyword. So are the conditions of if/then chains keyed on one
// member (swarm's message_type, collab's header.type); eval then finds
// the member once instead of walking the object's members for each.
func singleMember(n *node) *member {
	switch {
	case len(n.propNames) != 1 || len(n.required) > 1 || (len(n.required) == 1 && n.required[0] != n.propNames[0]),
		n.unknown, n.never, n.unknownFor != 0, n.hasTypes, n.constant != nil, n.enum != nil, n.format != nil, n.ref != nil,
		n.minProps >= 0, n.maxProps >= 0, len(n.patterns) > 0, n.additional != nil, n.noAdditional,
		len(n.dependentRequired) > 0, len(n.dependentSchemas) > 0, n.propertyNames != nil,
		n.minItems >= 0, n.maxItems >= 0, n.unique, len(n.prefix) > 0, n.rest != nil, n.noRest, n.contains != nil,
		n.minLength >= 0, n.maxLength >= 0, n.pattern != nil,
		n.minimum != nil, n.maximum != nil, n.exclusiveMinimum != nil, n.exclusiveMaximum != nil,
		n.not != nil, len(n.allOf) > 0, len(n.anyOf) > 0, len(n.oneOf) > 0, n.cond != nil:
		return nil
	}
	return &member{name: n.propNames[0], node: n.propNodes[0], required: len(n.required) == 1}
}

// smallProps is how many properties a schema may name before the fast
// path looks members up in a map rather than a list.
const smallProps = 8

// constantOf returns v, a value of a schema document, as a constant.
func constantOf(v any) (constant, error) {
	switch x := v.(type) {
	case nil:
		return constant{kind: kindNull}, nil
	case bool:
		if x {
			return constant{kind: kindTrue}, nil
		}
		return constant{kind: kindFalse}, nil
	case string:
		return constant{kind: kindString, text: x}, nil
	case map[string]any:
		return constant{kind: kindObject}, nil
	case []any:
		return constant{kind: kindArray}, nil
	}
	// A number: the library compares fmt's text of it as a big.Rat.
	d, ok := parseDecimal([]byte(fmt.Sprint(v)))
	if !ok {
		return constant{}, fmt.Errorf("number %v", v)
	}
	return constant{kind: kindNumber, num: d}, nil
}

// ratDecimal returns r as a decimal, when it is one.
func ratDecimal(r *big.Rat) (decimal, bool) {
	prec, exact := r.FloatPrec()
	if !exact {
		return decimal{}, false
	}
	return parseDecimal([]byte(r.FloatString(prec)))
}

// builtinDateTime returns the library's own date-time check.
var builtinDateTime = sync.OnceValue(func() func(any) error {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"format": "date-time"}`))
	if err != nil {
		return nil
	}
	if err := c.AddResource("urn:schemafast:date-time", doc); err != nil {
		return nil
	}
	sch, err := c.Compile("urn:schemafast:date-time")
	if err != nil || sch.Format == nil {
		return nil
	}
	return sch.Format.Validate
})

// sameFunc reports whether f and g are the same function.
func sameFunc(f, g func(any) error) bool {
	return f != nil && g != nil && reflect.ValueOf(f).Pointer() == reflect.ValueOf(g).Pointer()
}

// breakCycles marks unknown a node on every loop of schemas that apply to
// one value in place ($ref, allOf, if...) among the nodes reachable from
// root: the library refuses such a loop when it comes to it.
func breakCycles(root *node) {
	var all []*node
	seen := map[*node]bool{}
	var collect func(n *node)
	collect = func(n *node) {
		if seen[n] {
			return
		}
		seen[n] = true
		all = append(all, n)
		for _, m := range n.inPlace() {
			collect(m)
		}
		for _, m := range n.below() {
			collect(m)
		}
	}
	collect(root)
	// A depth-first walk of the in-place edges finds a back edge on every
	// loop; its target is marked.
	const (
		unseen = iota
		open
		done
	)
	state := map[*node]int{}
	var visit func(n *node)
	visit = func(n *node) {
		state[n] = open
		for _, m := range n.inPlace() {
			switch state[m] {
			case unseen:
				visit(m)
			case open:
				m.unknown = true
			}
		}
		state[n] = done
	}
	for _, n := range all {
		if state[n] == unseen {
			visit(n)
		}
	}
}

// inPlace returns the nodes n applies to the same value.
func (n *node) inPlace() []*node {
	out := []*node{n.ref, n.not, n.cond, n.then, n.els}
	out = append(out, n.allOf...)
	out = append(out, n.anyOf...)
	out = append(out, n.oneOf...)
	for _, d := range n.dependentSchemas {
		out = append(out, d.node)
	}
	return slices.DeleteFunc(out, func(m *node) bool { return m == nil })
}

// below returns the nodes n applies to members, items and member names.
func (n *node) below() []*node {
	out := []*node{n.additional, n.propertyNames, n.rest, n.contains}
	out = append(out, n.propNodes...)
	for _, p := range n.patterns {
		out = append(out, p.node)
	}
	out = append(out, n.prefix...)
	return slices.DeleteFunc(out, func(m *node) bool { return m == nil })
}
