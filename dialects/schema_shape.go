package dialects

import (
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// shapeMode says how much of the value at one instance location a schema
// can read.
type shapeMode uint8

const (
	// shapeFree: no keyword reads inside the value, only its type.
	shapeFree shapeMode = iota
	// shapeWalk: keywords read the value's member names and item count,
	// and each member or item as its own shape says.
	shapeWalk
	// shapeFull: keywords may read the whole value (enum, const,
	// uniqueItems, or one this analysis does not follow).
	shapeFull
)

// shape is what a compiled schema can read of the value at one instance
// location, and below it, over every way the schema may reach the location
// (every branch of if/then/else, allOf, anyOf, oneOf, not, $ref).
type shape struct {
	mode shapeMode
	// props are the shapes of the members the schemas name.
	props map[string]*shape
	// other is the shape of any other member.
	other *shape
	// items is the shape of every array item.
	items *shape
}

var (
	freeShape = &shape{mode: shapeFree}
	fullShape = &shape{mode: shapeFull}
)

// member returns the shape of the member called name of an object of
// shape sh.
func (sh *shape) member(name string) *shape {
	switch sh.mode {
	case shapeFull:
		return fullShape
	case shapeFree:
		return freeShape
	}
	if c, ok := sh.props[name]; ok {
		return c
	}
	return sh.other
}

// item returns the shape of an item of an array of shape sh.
func (sh *shape) item() *shape {
	switch sh.mode {
	case shapeFull:
		return fullShape
	case shapeFree:
		return freeShape
	}
	return sh.items
}

// maxShapes bounds the shapes made for one schema; a location past the
// bound is read whole.
const maxShapes = 4096

// shaper computes shapes, one per distinct set of schemas that applies at
// a location, so that recursive schemas give a finite graph.
type shaper struct {
	ids  map[*jsonschema.Schema]int
	memo map[string]*shape
	made int
}

// shapeOf returns the shape of the instance root under sch.
func shapeOf(sch *jsonschema.Schema) *shape {
	sp := shaper{ids: map[*jsonschema.Schema]int{}, memo: map[string]*shape{}}
	return sp.of([]*jsonschema.Schema{sch})
}

// of returns the shape of a location that the schemas of set apply to
// directly.
func (sp *shaper) of(set []*jsonschema.Schema) *shape {
	all := closure(set)
	if len(all) == 0 {
		return freeShape
	}
	key := sp.key(all)
	if sh, ok := sp.memo[key]; ok {
		return sh
	}
	mode := shapeFree
	for _, s := range all {
		if readsWhole(s) {
			mode = shapeFull
			break
		}
		if readsInside(s) {
			mode = shapeWalk
		}
	}
	if mode == shapeWalk && sp.made >= maxShapes {
		mode = shapeFull
	}
	switch mode {
	case shapeFree:
		sp.memo[key] = freeShape
		return freeShape
	case shapeFull:
		sp.memo[key] = fullShape
		return fullShape
	}
	sh := &shape{mode: shapeWalk, props: map[string]*shape{}}
	sp.memo[key] = sh
	sp.made++

	var names []string
	var other, items []*jsonschema.Schema
	for _, s := range all {
		for n := range s.Properties {
			names = append(names, n)
		}
		if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
			other = append(other, a)
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			items = append(items, it)
		case []*jsonschema.Schema:
			items = append(items, it...)
		}
		if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
			items = append(items, a)
		}
		items = append(items, s.PrefixItems...)
		if s.Items2020 != nil {
			items = append(items, s.Items2020)
		}
		if s.Contains != nil {
			items = append(items, s.Contains)
		}
	}
	slices.Sort(names)
	names = slices.Compact(names)
	for _, n := range names {
		var set []*jsonschema.Schema
		for _, s := range all {
			if p, ok := s.Properties[n]; ok {
				set = append(set, p)
			} else if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
				set = append(set, a)
			}
		}
		sh.props[n] = sp.of(set)
	}
	sh.other = sp.of(other)
	sh.items = sp.of(items)
	return sh
}

// key names a set of schemas, the same for the same set in any order.
func (sp *shaper) key(all []*jsonschema.Schema) string {
	ids := make([]int, len(all))
	for i, s := range all {
		id, ok := sp.ids[s]
		if !ok {
			id = len(sp.ids)
			sp.ids[s] = id
		}
		ids[i] = id
	}
	slices.Sort(ids)
	var b strings.Builder
	for _, id := range ids {
		b.WriteString(strconv.Itoa(id))
		b.WriteByte(',')
	}
	return b.String()
}

// closure returns the schemas of set and every schema they apply to the
// same location, each once.
func closure(set []*jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var add func(s *jsonschema.Schema)
	add = func(s *jsonschema.Schema) {
		if s == nil || seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		add(s.Ref)
		add(s.RecursiveRef)
		if s.DynamicRef != nil {
			add(s.DynamicRef.Ref)
		}
		add(s.Not)
		add(s.If)
		add(s.Then)
		add(s.Else)
		for _, l := range [][]*jsonschema.Schema{s.AllOf, s.AnyOf, s.OneOf} {
			for _, c := range l {
				add(c)
			}
		}
		for _, c := range s.DependentSchemas {
			add(c)
		}
		for _, d := range s.Dependencies {
			if c, ok := d.(*jsonschema.Schema); ok {
				add(c)
			}
		}
	}
	for _, s := range set {
		add(s)
	}
	return out
}

// readsWhole reports whether s has a keyword that may read all of a value,
// or one whose reach this analysis does not follow: the value must be
// given whole.
func readsWhole(s *jsonschema.Schema) bool {
	return s.Enum != nil || s.Const != nil || s.Format != nil || s.UniqueItems ||
		s.UnevaluatedProperties != nil || s.UnevaluatedItems != nil ||
		s.DynamicRef != nil || s.RecursiveRef != nil || s.RecursiveAnchor || s.DynamicAnchor != "" ||
		len(s.Extensions) > 0 || s.PropertyNames != nil || len(s.PatternProperties) > 0 ||
		s.ContentEncoding != nil || s.ContentMediaType != nil || s.ContentSchema != nil
}

// readsInside reports whether s reads the member names, the item count or
// the members or items of a value.
func readsInside(s *jsonschema.Schema) bool {
	return s.Properties != nil || s.AdditionalProperties != nil || s.Required != nil ||
		s.MinProperties != nil || s.MaxProperties != nil ||
		s.Dependencies != nil || s.DependentRequired != nil || s.DependentSchemas != nil ||
		s.Items != nil || s.AdditionalItems != nil || s.PrefixItems != nil || s.Items2020 != nil ||
		s.Contains != nil || s.MinContains != nil || s.MaxContains != nil ||
		s.MinItems != nil || s.MaxItems != nil
}
