package spec

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Schema returns the JSON Schema (draft 2020-12) of the format's files, for
// editors. It checks what a schema can say: the keys, their types, enums
// and bounds, required keys, and which keys exclude or need others. The
// decoder checks the rest (the nodes' checks and rules).
func (s *Spec) Schema() []byte {
	g := schemaGen{env: s.Env}
	out := g.node(s.Root)
	out["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	if s.Title != "" {
		out["title"] = s.Title
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if s.Env {
		out["$defs"] = map[string]any{
			"env": map[string]any{
				"description": "An environment variable, ${NAME}, standing for the value.",
				"type":        "string",
				"pattern":     `\$\{[^}]+\}`,
			},
		}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("spec: the schema of %s: %v", s.Title, err))
	}
	return append(b, '\n')
}

// durationPattern matches a Go duration of one or more units.
const durationPattern = `^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`

// schemaGen writes the schemas of nodes.
type schemaGen struct {
	env bool // scalars other than strings may be written ${VAR}
}

// node is the JSON Schema of a value of f.
func (g schemaGen) node(f *Node) map[string]any {
	s := f.schema
	if s == nil {
		s = g.kind(f)
	} else {
		s = clone(s)
	}
	switch f.kind {
	case KindInt, KindFloat, KindSize, KindDuration, KindBool, KindEnum:
		if g.env {
			s = map[string]any{"anyOf": []any{s, map[string]any{"$ref": "#/$defs/env"}}}
		}
	}
	if f.doc != "" {
		s["description"] = f.doc
	}
	if f.def != "" {
		var def any
		if err := yaml.Unmarshal([]byte(f.def), &def); err != nil {
			panic(fmt.Sprintf("spec: the default of %s is not YAML: %q", f.key, f.def))
		}
		s["default"] = def
	}
	return s
}

// clone copies a schema's top level, so that a node's own schema is not
// changed by adding its description.
func clone(s map[string]any) map[string]any {
	out := make(map[string]any, len(s)+2)
	for k, v := range s {
		out[k] = v
	}
	return out
}

// kind is the schema of f's kind, without its documentation.
func (g schemaGen) kind(f *Node) map[string]any {
	switch f.kind {
	case KindString:
		if f.allowEmpty {
			return map[string]any{"type": "string"}
		}
		return map[string]any{"type": "string", "minLength": 1}
	case KindInt:
		return map[string]any{"type": "integer", "minimum": f.min}
	case KindFloat:
		return map[string]any{"type": "number", "minimum": f.min}
	case KindSize:
		least := 1
		if f.zeroOff {
			least = 0
		}
		return map[string]any{"anyOf": []any{
			map[string]any{"type": "integer", "minimum": least},
			map[string]any{"type": "string", "pattern": `^[0-9]+ ?(KiB|MiB|KB|MB)?$`},
		}}
	case KindDuration:
		d := map[string]any{"type": "string", "pattern": durationPattern}
		if f.zeroOff {
			return map[string]any{"anyOf": []any{d, map[string]any{"const": 0}}}
		}
		return d
	case KindBool:
		return map[string]any{"type": "boolean"}
	case KindEnum:
		return map[string]any{"enum": f.options}
	case KindJSON:
		return map[string]any{"type": "object"}
	case KindAny:
		return map[string]any{}
	case KindList:
		s := map[string]any{"type": "array", "items": g.node(f.items)}
		if f.unique && f.uniqueBy == "" {
			s["uniqueItems"] = true
		}
		if f.nonEmpty {
			s["minItems"] = 1
		}
		return s
	case KindMap:
		s := map[string]any{"type": "object", "additionalProperties": g.node(f.items)}
		if f.nonEmpty {
			s["minProperties"] = 1
		}
		return s
	case KindObject:
		return g.object(f)
	case KindOneOf:
		alts := make([]any, len(f.forms))
		for i, a := range f.forms {
			alts[i] = g.node(a)
		}
		return map[string]any{"anyOf": alts}
	}
	panic(fmt.Sprintf("spec: no schema for the kind of %s", f.key))
}

// object is the schema of an object: its keys, the required ones, and the
// rules between them.
func (g schemaGen) object(f *Node) map[string]any {
	props := map[string]any{}
	var required []string
	dependent := map[string]any{}
	for _, c := range f.keys {
		props[c.key] = g.node(c)
		if c.required != "" {
			required = append(required, c.key)
		}
		if len(c.with) > 0 {
			dependent[c.key] = anyRequired(c.with)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	if len(dependent) > 0 {
		s["dependentSchemas"] = dependent
	}
	if ch := f.choice; ch != nil {
		if ch.none != "" {
			one := make([]any, len(ch.keys))
			for i, k := range ch.keys {
				one[i] = map[string]any{"required": []string{k}}
			}
			s["oneOf"] = one
		} else {
			var pairs []any
			for i, a := range ch.keys {
				for _, b := range ch.keys[i+1:] {
					pairs = append(pairs, map[string]any{"not": map[string]any{"required": []string{a, b}}})
				}
			}
			s["allOf"] = pairs
		}
	}
	return s
}

// anyRequired is a schema that requires one of keys.
func anyRequired(keys []string) map[string]any {
	if len(keys) == 1 {
		return map[string]any{"required": keys}
	}
	alts := make([]any, len(keys))
	for i, k := range keys {
		alts[i] = map[string]any{"required": []string{k}}
	}
	return map[string]any{"anyOf": alts}
}
