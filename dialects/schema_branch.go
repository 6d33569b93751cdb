package dialects

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Most dialects' schemas state their message types as entries of their
// top-level allOf, one per type, all on one member F:
//
//	{"if": {"properties": {F: {"const": V}}, "required": [F]}, "then": T, "else": E}
//
// (else optional). For a message whose F is the string V, the if of that
// entry holds and the if of every other such entry fails, so the schema
// comes to its other keywords, V's T, and the E of every other entry. A
// schema with such entries is compiled once more for each V, as that:
// Check validates a message whose F is V against it, and jsonschema
// evaluates one type's branch instead of every type's if.

// branches are the schemas a schema comes to, by the value of one member.
type branches struct {
	member string
	by     map[string]*jsonschema.Schema
}

// of returns the schema inst is to be validated against: its branch's, or
// whole when it has none.
func (b *branches) of(whole *jsonschema.Schema, inst any) *jsonschema.Schema {
	if b == nil {
		return whole
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return whole
	}
	v, ok := obj[b.member].(string)
	if !ok {
		return whole
	}
	if sch := b.by[v]; sch != nil {
		return sch
	}
	return whole
}

// branchesOf compiles the branches of doc, the schema document at url;
// nil when it has fewer than two type entries.
func branchesOf(url string, doc any) (*branches, error) {
	root, ok := doc.(map[string]any)
	if !ok {
		return nil, nil
	}
	all, _ := root["allOf"].([]any)
	var member string
	var types []int
	for i, e := range all {
		t, ok := typeEntry(e)
		if !ok || (member != "" && t.member != member) {
			continue
		}
		member = t.member
		types = append(types, i)
	}
	if len(types) < 2 {
		return nil, nil
	}
	b := &branches{member: member, by: map[string]*jsonschema.Schema{}}
	for n, i := range types {
		e, _ := typeEntry(all[i])
		if _, dup := b.by[e.value]; dup {
			return nil, nil // two entries for one type: both apply
		}
		var comes []any
		for j, x := range all {
			switch other, _ := typeEntry(x); {
			case j == i:
				comes = append(comes, e.then)
			case !slices.Contains(types, j):
				comes = append(comes, x)
			case other.otherwise != nil:
				comes = append(comes, other.otherwise)
			}
		}
		branch := maps.Clone(root)
		branch["allOf"] = comes
		at := url + ":type:" + strconv.Itoa(n)
		branch["$id"] = at
		c := newCompiler()
		if err := c.AddResource(at, branch); err != nil {
			return nil, fmt.Errorf("branch %s=%q: %w", member, e.value, err)
		}
		sch, err := c.Compile(at)
		if err != nil {
			return nil, fmt.Errorf("branch %s=%q: %w", member, e.value, err)
		}
		b.by[e.value] = sch
	}
	return b, nil
}

// typeCase is an allOf entry that states a message type: if the member
// is the value, then holds, otherwise (when not nil) holds.
type typeCase struct {
	member, value   string
	then, otherwise any
}

// typeEntry reports whether e is {"if": {"properties": {F: {"const": V}},
// "required": [F]}, "then": T} with V a string and an optional else, and
// returns it.
func typeEntry(e any) (typeCase, bool) {
	entry, _ := e.(map[string]any)
	cond, _ := entry["if"].(map[string]any)
	_, hasElse := entry["else"]
	if len(entry) != 2+btoi(hasElse) || entry["then"] == nil || len(cond) != 2 {
		return typeCase{}, false
	}
	props, _ := cond["properties"].(map[string]any)
	req, _ := cond["required"].([]any)
	if len(props) != 1 || len(req) != 1 {
		return typeCase{}, false
	}
	for f, p := range props {
		c, _ := p.(map[string]any)
		v, isString := c["const"].(string)
		if len(c) != 1 || !isString || req[0] != f {
			return typeCase{}, false
		}
		return typeCase{member: f, value: v, then: entry["then"], otherwise: entry["else"]}, true
	}
	return typeCase{}, false
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
