package schemafast

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// compile compiles doc as the dialects do: draft 2020-12 unless it says
// otherwise, formats asserted.
func compile(t *testing.T, doc string) *jsonschema.Schema {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.AssertFormat()
	if err := c.AddResource("urn:test", v); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("urn:test")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// library returns the library's verdict on msg: Valid when encoding/json
// reads it, no member is given twice and the schema accepts it.
func library(sch *jsonschema.Schema, msg []byte) Verdict {
	if ok, _ := wellFormed(msg); !ok {
		return Invalid
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(msg))
	if err != nil || sch.Validate(inst) != nil {
		return Invalid
	}
	return Valid
}

// keywordCases are schemas of one or a few keywords each, with messages
// and the verdict the fast path must give: the library's when it is not
// Unknown.
var keywordCases = []struct {
	schema string
	msgs   map[string]Verdict
}{
	{`{"type": "integer"}`, map[string]Verdict{
		`1`: Valid, `1.0`: Valid, `-0`: Valid, `1e2`: Valid, `15e-1`: Invalid, `1.5`: Invalid, `1e400`: Valid,
		`1e-400`: Invalid, `1e20000`: Unknown, `"1"`: Invalid, `null`: Invalid, `{}`: Invalid,
	}},
	{`{"type": ["number", "null"], "minimum": 0, "exclusiveMaximum": 300}`, map[string]Verdict{
		`0`: Valid, `-0`: Valid, `-0.0000001`: Invalid, `299.99999999999999999999`: Valid, `300`: Invalid,
		`3e2`: Invalid, `null`: Valid, `true`: Invalid, `"5"`: Invalid,
	}},
	{`{"maximum": 1e3, "exclusiveMinimum": -5.5}`, map[string]Verdict{
		`1000`: Valid, `1000.0000001`: Invalid, `-5.5`: Invalid, `-5.4`: Valid, `"x"`: Valid, `1e400`: Invalid,
	}},
	{`{"multipleOf": 0.5, "type": ["number", "string"]}`, map[string]Verdict{
		`1.5`: Unknown, `"x"`: Valid, `true`: Invalid,
	}},
	{`{"const": 1}`, map[string]Verdict{`1`: Valid, `1.0`: Valid, `1e0`: Valid, `10e-1`: Valid, `2`: Invalid, `"1"`: Invalid, `true`: Invalid}},
	{`{"const": "é\n"}`, map[string]Verdict{`"é\n"`: Valid, `"\u00e9\u000a"`: Valid, `"\u00e9\\n"`: Invalid, `"e\n"`: Invalid}},
	{`{"const": {"a": [1]}}`, map[string]Verdict{`{"a":[1]}`: Unknown, `[1]`: Invalid, `1`: Invalid}},
	{`{"const": null}`, map[string]Verdict{`null`: Valid, `false`: Invalid, `0`: Invalid}},
	{`{"enum": [1, "two", null, true, [1]]}`, map[string]Verdict{
		`1.00`: Valid, `"two"`: Valid, `"tw\u006f"`: Valid, `null`: Valid, `true`: Valid, `false`: Invalid,
		`[1]`: Unknown, `{}`: Invalid, `2`: Invalid,
	}},
	{`{"enum": ["a", "b", "c", "d", "e", "f", "g", "h", "i", 7]}`, map[string]Verdict{
		`"a"`: Valid, `"\u0069"`: Valid, `"j"`: Invalid, `7.0`: Valid, `8`: Invalid, `null`: Invalid,
	}},
	{`{"enum": []}`, map[string]Verdict{`1`: Invalid, `"a"`: Invalid}},
	{`{"type": "string", "minLength": 2, "maxLength": 3}`, map[string]Verdict{
		`"ab"`: Valid, `"a"`: Invalid, `"abcd"`: Invalid, `"éé"`: Valid, `"\ud83d\ude00"`: Invalid,
		`"\ud83d\ude00x"`: Valid, `"\ud800\u0041"`: Valid, `"\\n"`: Valid, `"😀😀😀😀"`: Invalid, `"\n\n\n"`: Valid,
	}},
	{`{"pattern": "^[A-Z0-9_-]+$"}`, map[string]Verdict{
		`"AB_1"`: Valid, `"ab"`: Invalid, `"A\u0042"`: Valid, `"A\nB"`: Invalid, `""`: Invalid, `5`: Valid,
	}},
	{`{"format": "date-time"}`, map[string]Verdict{
		`"2026-01-10T14:30:00Z"`: Valid, `"2026-02-29T14:30:00Z"`: Invalid, `"2024-02-29T14:30:00Z"`: Valid,
		`"1998-12-31T23:59:60Z"`: Valid, `"1998-12-31T22:59:60Z"`: Invalid, `"2026-01-10T14:30:00+0100"`: Invalid,
		`"2026-01-10T14:30:00\u002B01:00"`: Valid, `"yesterday"`: Invalid, `5`: Valid, `null`: Valid,
	}},
	{`{"format": "email"}`, map[string]Verdict{`"a@b.c"`: Valid, `"a"`: Invalid, `7`: Valid}},
	{`{"format": "no-such-format"}`, map[string]Verdict{`"a"`: Valid}},
	{`{"type": "object", "required": ["a", "b"], "properties": {"a": {"type": "string"}}, "additionalProperties": false, "patternProperties": {"^b": {"type": "integer"}}}`, map[string]Verdict{
		`{"a":"x","b":1}`: Valid, `{"\u0061":"x","b":1}`: Valid, `{"a":"x"}`: Invalid, `{"a":"x","b":1,"c":1}`: Invalid,
		`{"a":"x","b":1,"bb":2}`: Valid, `{"a":"x","b":1,"bb":"2"}`: Invalid, `{"a":1,"b":1}`: Invalid,
		`{"a":"x","b":1,"a":"y"}`: Invalid, `[]`: Invalid,
	}},
	{`{"properties": {"a": true, "b": false}, "additionalProperties": {"type": "number"}, "minProperties": 1, "maxProperties": 2}`, map[string]Verdict{
		`{"a":{}}`: Valid, `{"b":1}`: Invalid, `{"c":1}`: Valid, `{"c":"1"}`: Invalid, `{}`: Invalid, `{"a":1,"c":2,"d":3}`: Invalid, `7`: Valid,
	}},
	{`{"propertyNames": {"maxLength": 2, "pattern": "^[a-z]"}}`, map[string]Verdict{
		`{"ab":1}`: Valid, `{"abc":1}`: Invalid, `{"Ab":1}`: Invalid, `{"\u0061":1}`: Valid, `{}`: Valid,
	}},
	{`{"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}}`, map[string]Verdict{
		`{"a":1,"b":2}`: Valid, `{"a":1}`: Invalid, `{"b":1}`: Valid, `{"c":1,"d":1}`: Valid, `{"c":1}`: Invalid,
	}},
	{`{"$schema": "http://json-schema.org/draft-07/schema#", "dependencies": {"a": ["b"], "c": {"required": ["d"]}}, "items": [{"type": "integer"}], "additionalItems": false}`, map[string]Verdict{
		`{"a":1,"b":2}`: Valid, `{"a":1}`: Invalid, `{"c":1}`: Invalid, `[1]`: Valid, `[1,2]`: Invalid, `["1"]`: Invalid, `[]`: Valid,
	}},
	{`{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {"s": {"type": "string"}}, "$ref": "#/definitions/s", "type": "number"}`, map[string]Verdict{
		`"x"`: Valid, `1`: Invalid,
	}},
	{`{"type": "array", "minItems": 1, "maxItems": 3, "uniqueItems": true, "prefixItems": [{"const": "first"}], "items": {"type": "string"}}`, map[string]Verdict{
		`["first"]`: Valid, `["first","b"]`: Valid, `["first","b","b"]`: Invalid, `[]`: Invalid, `["first","b","c","d"]`: Invalid,
		`["x"]`: Invalid, `["first",2]`: Invalid, `["first","\u0062","b"]`: Invalid,
	}},
	{`{"uniqueItems": true}`, map[string]Verdict{
		`[1,1.0]`: Invalid, `[1,2]`: Valid, `[{"a":1},{"a":1}]`: Unknown, `[{"a":1},[1]]`: Valid, `[null,false,0,""]`: Valid,
		`[true,true]`: Invalid, `["a","\u0061"]`: Invalid,
	}},
	{`{"contains": {"type": "integer"}, "minContains": 2, "maxContains": 3}`, map[string]Verdict{
		`[1,2]`: Valid, `[1]`: Invalid, `[1,2,3,4]`: Invalid, `["a",1,"b",2]`: Valid, `{}`: Valid,
	}},
	{`{"contains": {"multipleOf": 2}}`, map[string]Verdict{`[1]`: Unknown, `["a"]`: Valid, `[]`: Invalid}},
	{`{"contains": {"const": 1}}`, map[string]Verdict{`[1]`: Valid, `[2]`: Invalid, `[]`: Invalid}},
	{`{"items": false}`, map[string]Verdict{`[]`: Valid, `[1]`: Invalid}},
	{`{"not": {"type": "null"}, "anyOf": [{"type": "string"}, {"minimum": 10}], "oneOf": [{"type": "integer"}, {"type": "number", "minimum": 15}]}`, map[string]Verdict{
		`12`: Valid, `17`: Invalid, `16.5`: Valid, `5`: Invalid, `"s"`: Invalid, `null`: Invalid,
	}},
	{`{"anyOf": [{"multipleOf": 2, "type": "number"}, {"type": "string"}]}`, map[string]Verdict{`"s"`: Valid, `1`: Unknown, `null`: Invalid}},
	{`{"oneOf": [{"multipleOf": 2}, {"type": "integer"}]}`, map[string]Verdict{`1.5`: Unknown, `"s"`: Valid}},
	{`{"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}`, map[string]Verdict{
		`{"t":"a","x":1}`: Valid, `{"t":"a"}`: Invalid, `{"t":"b","y":1}`: Valid, `{"t":"b","x":1}`: Invalid, `{"y":1}`: Valid,
	}},
	{`{"if": {"multipleOf": 2}, "then": {"type": "number"}, "else": {"type": "number"}}`, map[string]Verdict{`4`: Valid, `"s"`: Invalid}},
	{`{"if": {"multipleOf": 2}, "then": {"minimum": 3}}`, map[string]Verdict{`4`: Valid, `2`: Unknown, `5`: Valid, `"s"`: Valid}},
	{`{"$defs": {"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}}}}, "$ref": "#/$defs/node"}`, map[string]Verdict{
		`{"v":1,"next":{"v":2,"next":{"v":3}}}`: Valid, `{"v":1,"next":{"v":2,"next":{"v":"3"}}}`: Invalid,
	}},
	{`{"allOf": [{"$ref": "#"}], "type": "object"}`, map[string]Verdict{`{}`: Unknown}},
	{`{"type": "object", "unevaluatedProperties": false}`, map[string]Verdict{`{}`: Unknown}},
	// A condition on one member (the single-member path), nested as
	// collab's header.type, and with an escaped member name.
	{`{"allOf": [{"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}, "then": {"required": ["x"]}, "else": {"required": ["y"]}}]}`, map[string]Verdict{
		`{"t":"a","x":1}`: Valid, `{"t":"a","y":1}`: Invalid, `{"t":"b","y":1}`: Valid, `{"t":"b","x":1}`: Invalid,
		`{"y":1}`: Valid, `{"x":1}`: Invalid, `{"\u0074":"a","x":1}`: Valid, `{"t":1,"y":0}`: Valid, `[1]`: Valid, `"a"`: Valid,
	}},
	{`{"if": {"properties": {"h": {"properties": {"type": {"const": "REQ"}}, "required": ["type"]}}, "required": ["h"]}, "then": {"required": ["body"]}}`, map[string]Verdict{
		`{"h":{"type":"REQ"},"body":{}}`: Valid, `{"h":{"type":"REQ"}}`: Invalid, `{"h":{"type":"RES"}}`: Valid,
		`{"h":{}}`: Valid, `{"h":5}`: Invalid, `{}`: Valid,
	}},
	{`{"properties": {"t": {"type": "string"}}}`, map[string]Verdict{`{"t":"a"}`: Valid, `{"t":1}`: Invalid, `{}`: Valid, `1`: Valid}},
	// Required members, listed in properties or not; more than smallProps
	// properties.
	{`{"properties": {"a": {}, "b": {}}, "required": ["b", "c", "a"]}`, map[string]Verdict{
		`{"a":1,"b":2,"c":3}`: Valid, `{"a":1,"b":2}`: Invalid, `{"a":1,"c":3}`: Invalid, `{"c":3,"b":2}`: Invalid,
		`{}`: Invalid, `[]`: Valid, `{"a":1,"b":2,"c":3,"d":4}`: Valid,
	}},
	{`{"properties": {"a": {}, "b": {}, "c": {}, "d": {}, "e": {}, "f": {}, "g": {}, "h": {}, "i": {"type": "string"}}, "required": ["i", "a"]}`, map[string]Verdict{
		`{"i":"x","a":1}`: Valid, `{"i":1,"a":1}`: Invalid, `{"a":1}`: Invalid, `{"i":"x"}`: Invalid, `{"a":1,"z":0,"i":"y"}`: Valid,
	}},
	// An allOf of ifs on one member's string constant (keyed.go): each
	// type's then, the else of every other type, a type given twice, an
	// entry keyed on another member, an entry that is no such if.
	{`{"allOf": [
		{"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}, "then": {"required": ["x"]}},
		{"if": {"properties": {"t": {"const": "b"}}, "required": ["t"]}, "then": {"required": ["y"]}, "else": {"not": {"required": ["y"]}}},
		{"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}, "then": {"properties": {"x": {"type": "integer"}}}},
		{"if": {"properties": {"t": {"const": "é"}}, "required": ["t"]}, "else": {"properties": {"z": {"type": "null"}}}},
		{"if": {"properties": {"u": {"const": "c"}}, "required": ["u"]}, "then": {"required": ["w"]}},
		{"properties": {"x": {"minimum": 0}}}
	]}`, map[string]Verdict{
		`{"t":"a","x":1}`: Valid, `{"t":"a"}`: Invalid, `{"t":"a","x":"1"}`: Invalid, `{"t":"a","x":-1}`: Invalid,
		`{"t":"\u0061","x":1}`: Valid, `{"t":"\u0061"}`: Invalid, `{"t":"b","y":1}`: Valid, `{"t":"b"}`: Invalid,
		`{"t":"a","x":1,"y":1}`: Invalid, `{"y":1}`: Invalid, `{}`: Valid, `{"t":1,"y":0}`: Invalid, `{"t":["a"]}`: Valid,
		`{"t":"c","z":null}`: Valid, `{"t":"c","z":0}`: Invalid, `{"t":"é","z":0}`: Valid, `{"t":"\u00e9","z":0}`: Valid,
		`{"u":"c"}`: Invalid, `{"u":"c","w":1,"t":"b","y":2}`: Valid, `{"t":"b","y":1,"t2":"a"}`: Valid,
		`"a"`: Valid, `[{"t":"a"}]`: Valid, `null`: Valid,
	}},
	{`true`, map[string]Verdict{`{}`: Valid, `{"a":1,"a":1}`: Invalid, `[`: Invalid}},
	{`false`, map[string]Verdict{`{}`: Invalid}},
}

// TestKeywords checks the fast path's verdicts against the library's, and
// that it answers where it should.
func TestKeywords(t *testing.T) {
	for i, c := range keywordCases {
		sch := compile(t, c.schema)
		v := New(sch)
		for msg, want := range c.msgs {
			got := v.Check([]byte(msg))
			lib := library(sch, []byte(msg))
			if want != Unknown && want != lib {
				t.Fatalf("case %d %s: the test expects %v, the library says %v", i, msg, want, lib)
			}
			if got != want {
				t.Errorf("case %d, %s, message %s: got %v, want %v", i, c.schema, msg, got, want)
			}
		}
	}
}

// TestSingleMember: a node that says nothing but one member's schema takes
// the single-member path; one that says more does not.
func TestSingleMember(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"properties": {"t": {"const": "a"}}, "required": ["t"]}`: true,
		`{"properties": {"t": {"const": "a"}}}`:                    true,
		`{"properties": {"t": {}}, "required": ["u"]}`:             false,
		`{"properties": {"t": {}, "u": {}}}`:                       false,
		`{"properties": {"t": {}}, "type": "object"}`:              false,
		`{"properties": {"t": {}}, "additionalProperties": false}`: false,
		`{"properties": {"t": {}}, "minLength": 1}`:                false,
	} {
		v := New(compile(t, doc))
		if got := v.root.single != nil; got != want {
			t.Errorf("%s: single-member path %v, want %v", doc, got, want)
		}
	}
}

// TestKeyed: an allOf whose entries include two or more ifs on one
// member's string constant, and nothing but a then or an else beside, is
// checked by the member's value; other entries are not keyed.
func TestKeyed(t *testing.T) {
	const ifT = `"if": {"properties": {"t": {"const": "a"}}, "required": ["t"]}`
	for _, c := range []struct {
		second string
		want   int // keyed entries, 0: no keyed allOf
	}{
		{`{"if": {"properties": {"t": {"const": "b"}}, "required": ["t"]}, "then": {}}`, 2},
		{`{"if": {"properties": {"t": {"const": "b"}}, "required": ["t"]}, "else": {}}`, 2},
		{`{"if": {"properties": {"t": {"const": "b"}}}, "then": {}}`, 0},
		{`{"if": {"properties": {"t": {"const": 1}}, "required": ["t"]}, "then": {}}`, 0},
		{`{"if": {"properties": {"t": {"const": "b", "type": "string"}}, "required": ["t"]}, "then": {}}`, 0},
		{`{"if": {"properties": {"t": {"enum": ["b"]}}, "required": ["t"]}, "then": {}}`, 0},
		{`{"if": {"properties": {"u": {"const": "b"}}, "required": ["u"]}, "then": {}}`, 0},
		{`{"if": {"properties": {"t": {"const": "b"}}, "required": ["t"]}, "then": {}, "type": "object"}`, 0},
		{`{"type": "object"}`, 0},
	} {
		v := New(compile(t, `{"allOf": [{`+ifT+`, "then": {}}, `+c.second+`]}`))
		got := 0
		if k := v.root.keyed; k != nil {
			got = len(k.entries)
		}
		if got != c.want {
			t.Errorf("with %s: %d keyed entries, want %d", c.second, got, c.want)
		}
	}
	// The dialects' way, on a member in a nested object, with a $ref.
	v := New(compile(t, `{"$defs": {"a": {"required": ["x"]}}, "allOf": [{`+ifT+`, "then": {"$ref": "#/$defs/a"}},
		{"if": {"properties": {"t": {"const": "b"}}, "required": ["t"]}, "then": {"required": ["y"]}}]}`))
	if v.root.keyed == nil || v.root.keyed.name != "t" || len(v.root.keyed.others) != 0 {
		t.Fatalf("not keyed on t: %+v", v.root.keyed)
	}
	for msg, want := range map[string]Verdict{`{"t":"a","x":0}`: Valid, `{"t":"a","y":0}`: Invalid, `{"t":"b","y":0}`: Valid} {
		if got := v.Check([]byte(msg)); got != want {
			t.Errorf("%s: got %v, want %v", msg, got, want)
		}
	}
}

// TestUnchecked checks that a schema field the fast path does not know
// leaves it to the library.
func TestUnchecked(t *testing.T) {
	sch := compile(t, `{"type": "object"}`)
	if f := uncheckedField(sch); f != "" {
		t.Fatalf("a plain schema has unchecked field %s", f)
	}
	sch.DynamicAnchor = "x"
	if f := uncheckedField(sch); f != "DynamicAnchor" {
		t.Errorf("got unchecked field %q, want DynamicAnchor", f)
	}
	if got := New(sch).Check([]byte(`{}`)); got != Unknown {
		t.Errorf("got %v, want unknown", got)
	}
	// Content keywords are checked by the library, for strings only.
	sch = compile(t, `{"type": ["string", "integer"]}`)
	sch.ContentEncoding = &jsonschema.Decoder{Name: "base64"}
	v := New(sch)
	if got := v.Check([]byte(`"eA=="`)); got != Unknown {
		t.Errorf("a string under contentEncoding: got %v, want unknown", got)
	}
	if got := v.Check([]byte(`1`)); got != Valid {
		t.Errorf("a number under contentEncoding: got %v, want valid", got)
	}
}

// TestCheckNoAlloc checks that the common case allocates nothing.
func TestCheckNoAlloc(t *testing.T) {
	sch := compile(t, `{"type": "object", "required": ["id", "when"], "properties": {
		"id": {"type": "string", "pattern": "^[a-z]+$", "minLength": 1},
		"when": {"type": "string", "format": "date-time"},
		"n": {"type": "integer", "maximum": 300},
		"kind": {"enum": ["a", "b"]},
		"args": {"type": "object"}}}`)
	v := New(sch)
	msg := []byte(`{"id":"abc","when":"2026-01-10T14:30:00Z","n":30,"kind":"b","args":{"text":"a \"quoted\"\nline","list":[1,2.5,true,null]}}`)
	if got := v.Check(msg); got != Valid {
		t.Fatalf("got %v", got)
	}
	if n := testing.AllocsPerRun(100, func() { v.Check(msg) }); n != 0 {
		t.Errorf("%v allocations a check", n)
	}
}

// BenchmarkScan measures the scanner alone on a message of n strings.
func BenchmarkScan(b *testing.B) {
	var sb strings.Builder
	sb.WriteByte('{')
	for i := range 20 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(`"member` + strconv.Itoa(i) + `":"a string value of some length, forty bytes"`)
	}
	sb.WriteByte('}')
	msg := []byte(sb.String())
	var p pass
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		p.toks, p.names, p.prints = p.toks[:0], p.names[:0], p.prints[:0]
		if p.scan(msg) != Valid {
			b.Fatal("not valid")
		}
	}
}
