package dialects

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// shapeAt returns the shape at a dotted path below sh, "*" standing for an
// array item.
func shapeAt(sh *shape, path string) *shape {
	if path == "" {
		return sh
	}
	for _, step := range strings.Split(path, ".") {
		if step == "*" {
			sh = sh.item()
		} else {
			sh = sh.member(step)
		}
	}
	return sh
}

func (m shapeMode) String() string {
	return [...]string{"free", "walk", "full"}[m]
}

func TestShapeOf(t *testing.T) {
	cases := []struct {
		name, schema string
		want         map[string]shapeMode
	}{
		{"a typed object is free", `{"properties": {"p": {"type": "object", "description": "d"}}}`,
			map[string]shapeMode{"": shapeWalk, "p": shapeFree, "p.x": shapeFree, "q": shapeFree, "*": shapeFree}},
		{"enum and const read whole", `{"properties": {"e": {"enum": [{"a": 1}]}, "c": {"const": [1]}}}`,
			map[string]shapeMode{"e": shapeFull, "e.a": shapeFull, "c.*": shapeFull}},
		{"uniqueItems and format read whole", `{"properties": {"u": {"uniqueItems": true}, "f": {"format": "date-time"}}}`,
			map[string]shapeMode{"u": shapeFull, "f": shapeFull}},
		{"patternProperties reads whole", `{"properties": {"p": {"patternProperties": {"^a": {"type": "string"}}}}}`,
			map[string]shapeMode{"": shapeWalk, "p": shapeFull, "p.b": shapeFull}},
		{"unevaluatedProperties reads whole", `{"properties": {"p": {"type": "object"}}, "unevaluatedProperties": false}`,
			map[string]shapeMode{"": shapeFull, "p": shapeFull}},
		{"additionalProperties shapes the other members", `{"properties": {"a": {"type": "object"}}, "additionalProperties": {"required": ["x"]}}`,
			map[string]shapeMode{"a": shapeFree, "b": shapeWalk, "b.x": shapeFree}},
		{"member-count keywords walk", `{"properties": {"p": {"minProperties": 1}, "r": {"required": ["x"]}, "a": {"maxItems": 2}}}`,
			map[string]shapeMode{"p": shapeWalk, "p.x": shapeFree, "r": shapeWalk, "r.x": shapeFree, "a": shapeWalk, "a.*": shapeFree}},
		{"every branch of if/then/else counts", `{
			"if": {"properties": {"k": {"const": 1}}},
			"then": {"properties": {"p": {"required": ["x"]}}},
			"else": {"properties": {"q": {"type": "array", "items": {"required": ["y"]}}}}}`,
			map[string]shapeMode{"k": shapeFull, "p": shapeWalk, "q": shapeWalk, "q.*": shapeWalk, "q.*.y": shapeFree, "r": shapeFree}},
		{"allOf, anyOf, oneOf and not count", `{
			"allOf": [{"properties": {"a": {"required": ["x"]}}}],
			"anyOf": [{"properties": {"b": {"required": ["x"]}}}],
			"oneOf": [{"properties": {"c": {"required": ["x"]}}}],
			"not": {"properties": {"d": {"required": ["x"]}}}}`,
			map[string]shapeMode{"a": shapeWalk, "b": shapeWalk, "c": shapeWalk, "d": shapeWalk, "e": shapeFree}},
		{"schemas of one member merge", `{"properties": {"p": {"type": "object"}}, "allOf": [{"properties": {"p": {"properties": {"q": {"enum": [1]}}}}}]}`,
			map[string]shapeMode{"p": shapeWalk, "p.q": shapeFull, "p.r": shapeFree}},
		{"a recursive $ref gives a finite shape", `{"$ref": "#/$defs/t", "$defs": {"t": {"properties": {"kids": {"items": {"$ref": "#/$defs/t"}}, "data": {"type": "object"}}}}}`,
			map[string]shapeMode{"kids.*.kids.*.kids": shapeWalk, "kids.*.data": shapeFree}},
		{"items, prefixItems and contains merge", `{"properties": {"a": {"prefixItems": [{"required": ["x"]}], "contains": {"properties": {"y": {"const": 1}}}}}}`,
			map[string]shapeMode{"a": shapeWalk, "a.*": shapeWalk, "a.*.y": shapeFull}},
		{"dependentSchemas apply in place", `{"dependentSchemas": {"a": {"properties": {"b": {"required": ["c"]}}}}}`,
			map[string]shapeMode{"": shapeWalk, "b": shapeWalk}},
		{"a false schema reads nothing", `{"properties": {"p": false}}`,
			map[string]shapeMode{"p": shapeFree}},
		{"true reads nothing", `true`, map[string]shapeMode{"": shapeFree}},
	}
	for _, c := range cases {
		s := NewSchema("shape", []byte(c.schema))
		if err := s.Err(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for path, want := range c.want {
			if got := shapeAt(s.shape, path).mode; got != want {
				t.Errorf("%s: shape at %q is %v, want %v", c.name, path, got, want)
			}
		}
	}
}

// TestShapeOfSwarm checks that the swarm schema leaves the members it
// only types out of the instance, and reads the ones it checks.
func TestShapeOfSwarm(t *testing.T) {
	doc, err := os.ReadFile("swarm/schema.json")
	if err != nil {
		t.Fatal(err)
	}
	s := NewSchema("swarm", doc)
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]shapeMode{
		"":                  shapeWalk,
		"message_type":      shapeFull,
		"payload":           shapeWalk,
		"payload.tools":     shapeWalk,
		"payload.arguments": shapeFree,
		"payload.result":    shapeFree,
		"payload.data":      shapeFree,
		"extra":             shapeFree,
	} {
		if got := shapeAt(s.shape, path).mode; got != want {
			t.Errorf("shape at %q is %v, want %v", path, got, want)
		}
	}
	msg, err := os.ReadFile("../translate/testdata/bench/swarm.json")
	if err != nil {
		t.Fatal(err)
	}
	inst, dups, ok := readInstance(msg, s.shape)
	if !ok || dups != nil {
		t.Fatalf("bench message: ok %v, duplicates %v", ok, dups)
	}
	payload := inst.(map[string]any)["payload"].(map[string]any)
	if args := payload["arguments"].(map[string]any); len(args) != 0 {
		t.Errorf("arguments read: %v", args)
	}
	if payload["tool_name"] != "build_report" || payload["timeout"] != any(json.Number("30")) {
		t.Errorf("payload = %v", payload)
	}
}
