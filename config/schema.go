package config

import (
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"
)

// Schema returns the JSON Schema (draft 2020-12) of a serve config file,
// generated from the spec, for editors. It checks what a schema can say:
// the keys, their types, enums and bounds, required keys, and which keys
// exclude or need others. The decoder checks the rest (addresses, URLs,
// dialects, agent ids).
func Schema() []byte {
	s := fieldSchema(spec)
	s["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	s["title"] = "mcp-bridge serve config"
	s["description"] = "The config file of `mcp-bridge serve`; docs/config.md is the reference."
	s["$defs"] = map[string]any{
		"env": map[string]any{
			"description": "An environment variable, ${NAME}, standing for the value.",
			"type":        "string",
			"pattern":     `\$\{[^}]+\}`,
		},
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		panic(fmt.Sprintf("config: the schema: %v", err))
	}
	return append(b, '\n')
}

// durationPattern matches a Go duration of one or more units.
const durationPattern = `^(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$`

// fieldSchema is the JSON Schema of a value of f.
func fieldSchema(f *field) map[string]any {
	s := kindSchema(f)
	switch f.kind {
	case kindInt, kindFloat, kindSize, kindDuration, kindBool, kindEnum:
		// Any of them may be written ${VAR}.
		s = map[string]any{"anyOf": []any{s, map[string]any{"$ref": "#/$defs/env"}}}
	}
	if f.doc != "" {
		s["description"] = f.doc
	}
	if f.def != "" {
		var def any
		if err := yaml.Unmarshal([]byte(f.def), &def); err != nil {
			panic(fmt.Sprintf("config: the default of %s is not YAML: %q", f.key, f.def))
		}
		s["default"] = def
	}
	return s
}

// kindSchema is the schema of f's kind, without its documentation.
func kindSchema(f *field) map[string]any {
	switch f.kind {
	case kindString:
		if f.allowEmpty {
			return map[string]any{"type": "string"}
		}
		return map[string]any{"type": "string", "minLength": 1}
	case kindInt:
		return map[string]any{"type": "integer", "minimum": f.min}
	case kindFloat:
		return map[string]any{"type": "number", "minimum": f.min}
	case kindSize:
		least := 1
		if f.zeroOff {
			least = 0
		}
		return map[string]any{"anyOf": []any{
			map[string]any{"type": "integer", "minimum": least},
			map[string]any{"type": "string", "pattern": `^[0-9]+ ?(KiB|MiB|KB|MB)?$`},
		}}
	case kindDuration:
		d := map[string]any{"type": "string", "pattern": durationPattern}
		if f.zeroOff {
			return map[string]any{"anyOf": []any{d, map[string]any{"const": 0}}}
		}
		return d
	case kindBool:
		return map[string]any{"type": "boolean"}
	case kindEnum:
		return map[string]any{"enum": f.options}
	case kindJSON:
		return map[string]any{"type": "object", "$ref": "https://json-schema.org/draft/2020-12/schema"}
	case kindList:
		s := map[string]any{"type": "array", "items": fieldSchema(f.elem)}
		if f.unique && f.uniqueBy == "" {
			s["uniqueItems"] = true
		}
		if f.nonEmpty {
			s["minItems"] = 1
		}
		return s
	case kindMap:
		return map[string]any{"type": "object", "additionalProperties": fieldSchema(f.elem)}
	case kindObject:
		return objectSchema(f)
	case kindOneOf:
		alts := make([]any, len(f.alts))
		for i, a := range f.alts {
			alts[i] = fieldSchema(a)
		}
		return map[string]any{"anyOf": alts}
	}
	panic(fmt.Sprintf("config: no schema for the kind of %s", f.key))
}

// objectSchema is the schema of an object: its keys, the required ones,
// and the rules between them.
func objectSchema(f *field) map[string]any {
	props := map[string]any{}
	var required []string
	dependent := map[string]any{}
	for _, c := range f.fields {
		props[c.key] = fieldSchema(c)
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
