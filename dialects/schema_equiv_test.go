package dialects_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/tidwall/gjson"
)

// declaredDialect is the dialect of dialects/declared/testdata: the one
// examples/hook.yaml declares.
const declaredDialect = "hook"

// testSchemas returns the schema of every built-in dialect and of the
// declared one, by dialect name, as their codecs give them.
func testSchemas(tb testing.TB) map[string]*dialects.Schema {
	tb.Helper()
	m := dialects.DefaultMappings()
	hook, err := os.ReadFile("../examples/hook.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Add("examples/hook.yaml", hook); err != nil {
		tb.Fatal(err)
	}
	reg, err := builtin.Registry(m)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]*dialects.Schema{}
	for _, c := range reg.Codecs() {
		s := dialects.NewSchema(c.Name(), c.Schema())
		if err := s.Err(); err != nil {
			tb.Fatal(err)
		}
		out[c.Name()] = s
	}
	if len(out) != len(dialects.Names())+1 {
		tb.Fatalf("got schemas of %d dialects, want %d", len(out), len(dialects.Names())+1)
	}
	return out
}

// sample is a message of the testdata of a dialect.
type sample struct {
	dialect, file string
	data          []byte
}

// testSamples returns every dialects/*/testdata/**/*.json of a dialect's
// package.
func testSamples(tb testing.TB) []sample {
	tb.Helper()
	var out []sample
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		parts := strings.Split(filepath.ToSlash(path), "/")
		if len(parts) < 3 || parts[1] != "testdata" {
			return nil
		}
		dialect := parts[0]
		if dialect == "declared" {
			dialect = declaredDialect
		} else if _, ok := dialects.RecordOf(dialect); !ok {
			return nil // not a dialect's package (sixth: the registry's test)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		out = append(out, sample{dialect: dialect, file: path, data: data})
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	if len(out) < 50 {
		tb.Fatalf("found only %d samples", len(out))
	}
	return out
}

// wrongValues replace a value in the variants of a sample.
var wrongValues = []string{`7`, `"x"`, `[]`, `null`, `{}`, `true`}

// variants returns msg with each member and each array item, at any depth,
// deleted in turn, and each value replaced by each of wrongValues.
func variants(msg []byte) [][]byte {
	var out [][]byte
	splice := func(from, to int, with string) {
		v := make([]byte, 0, len(msg)+len(with))
		v = append(v, msg[:from]...)
		v = append(v, with...)
		v = append(v, msg[to:]...)
		out = append(out, v)
	}
	// remove takes out msg[from:to], an item or member, with one comma
	// beside it.
	remove := func(from, to int) {
		after := to
		for after < len(msg) && isSpace(msg[after]) {
			after++
		}
		if after < len(msg) && msg[after] == ',' {
			splice(from, after+1, "")
			return
		}
		before := from
		for before > 0 && isSpace(msg[before-1]) {
			before--
		}
		if before > 0 && msg[before-1] == ',' {
			from = before - 1
		}
		splice(from, to, "")
	}
	var walk func(v gjson.Result)
	walk = func(v gjson.Result) {
		if v.Type != gjson.JSON {
			return
		}
		v.ForEach(func(k, m gjson.Result) bool {
			start, end := m.Index, m.Index+len(m.Raw)
			if k.Type == gjson.String {
				remove(k.Index, end)
			} else {
				remove(start, end)
			}
			for _, w := range wrongValues {
				if w != m.Raw {
					splice(start, end, w)
				}
			}
			walk(m)
			return true
		})
	}
	walk(gjson.ParseBytes(msg))
	return out
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// deep returns n arrays nested in one another.
func deep(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// edgeMessages are messages at the edges of what Check reads itself:
// invalid JSON, odd escapes and numbers, duplicates in parts no schema
// reads, nesting at encoding/json's limit.
var edgeMessages = []string{
	``, ` `, `{`, `}`, `{"a":1,}`, `[1,]`, `01`, `{"a" 1}`, `{} {}`, `{}x`, `{}]`, "\ufeff{}",
	"{\"a\":\"\x01\"}", `{"a":"\q"}`, `NaN`, `'a'`, `{"a":tru}`, `{"a":1}}`, `[-]`, `[1.]`, `[.5]`, `[1e]`,
	`[]`, `"x"`, `5`, `-0`, `null`, `true`, ` {} `, "\t{}\n", `{}`, `[{}]`,
	`{"a":1,"\u0061":2}`, `{"\ud800":1,"\ud800\u0041":2,"\udc00":3}`, `{"\u0000":1,"\u0000":2}`,
	`{"a":"\udc00\ud800","b":"\ud83d\ude00","c":"\\\"\/\b\f\n\r\t"}`,
	`{"n":[1.0,1e2,-0,1E+2,0.5e-3,123456789012345678901234567890,-1.5e-400]}`,
	"{\n  \"message_type\" : \"request\" ,\n \"sender_id\":\"a\",\"payload\":{ \"tool_name\" : \"t\" , \"arguments\" : { \"a\" : 1 , \"a\" : [ { \"c\" : 1 , \"c\" : 2 } , [ { \"d\" : 1 , \"d\" : 1 } ] ] } } }",
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","timeout":30.0,"arguments":{"x":{"y":{"z":1,"z":2}},"q":"\ud800","\u0061":1,"a":2}}}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","timeout":3e1}}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","timeout":1e400}}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","timeout":1e1000}}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","timeout":-1E-1000}}`,
	`{"message_type":"response","sender_id":"a","payload":{"success":true,"result":{"r":1,"r":2},"execution_time":-0}}`,
	`{"message_type":"response","sender_id":"a","payload":{"success":true,"result":{"n":1e1000001},"execution_time":-1e1000001}}`,
	`{"message_type":"handshake_request","sender_id":"a","payload":{"agent_id":"x","agent_name":"n","agent_role":"r","tools":["a","a"],"metadata":{"m":[1,1]}}}`,
	`{"message_type":"request","message_type":"error","sender_id":"a","payload":{"error_code":"E","error_message":"m"}}`,
	`{"type":"task_assignment","protocol_version":"1.3","sender_id":"ARCH","recipient_id":"CA","timestamp":"2026-01-10T14:30:00Z","task_id":"T-1","payload":{"type":"task_assignment","content":{"task_id":"T-1","description":"d","action":"a","dependencies":["A","B","A"],"parameters":{"p":1,"p":2}}}}`,
	`{"type":"task_assignment","protocol_version":"1.3","sender_id":"ARCH","recipient_id":"CA","timestamp":"2026-01-10T14:30:00Z","task_id":"T-1","payload":{"type":"task_assignment","payload":{"type":"task_assignment","content":{"task_id":"T-1","description":"d","action":"a","dependencies":["A","B"]}}}}`,
	`{"header":{"type":"REQUEST","priority":3.0},"body":{}}`,
	deep(10000), deep(10001), `{"a":` + deep(10001) + `}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","arguments":` + deep(9990) + `}}`,
	`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","arguments":` + deep(10001) + `}}`,
	`{"s":"` + strings.Repeat("[{", 6000) + `"}`,
	manyMembers(40, true), manyMembers(40, false),
}

// manyMembers returns a swarm request whose free arguments object has n
// members, the last one given twice when dup is set.
func manyMembers(n int, dup bool) string {
	var b strings.Builder
	b.WriteString(`{"message_type":"request","sender_id":"a","payload":{"tool_name":"t","arguments":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"m` + strings.Repeat("x", i) + `":` + `{"k":1}`)
	}
	if dup {
		b.WriteString(`,"m":2`)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// compareCheck fails t unless Check gives what CheckBefore gives for msg.
func compareCheck(t *testing.T, what string, s *dialects.Schema, msg []byte) {
	t.Helper()
	want := dialects.CheckBefore(s, msg)
	got := s.Check(msg)
	if !reflect.DeepEqual(got, want) && !reflect.DeepEqual(dialecttest.Normalised(got), dialecttest.Normalised(want)) {
		t.Errorf("%s, %s schema:\n got %#v\nwant %#v\nmessage: %.300s", what, s.Dialect, got, want, msg)
	}
}

// TestSchemaCheckUnchanged checks that Check gives, problem for problem,
// what it gave when it decoded with encoding/json and walked the message
// again for duplicates: for every sample against every schema, for every
// variant of a sample against its dialect's schema, and for the edge
// messages against every schema.
func TestSchemaCheckUnchanged(t *testing.T) {
	schemas := testSchemas(t)
	names := make([]string, 0, len(schemas))
	for n := range schemas {
		names = append(names, n)
	}
	sort.Strings(names)
	variantsSeen := 0
	for _, sm := range testSamples(t) {
		own, ok := schemas[sm.dialect]
		if !ok {
			t.Fatalf("%s: no schema for dialect %s", sm.file, sm.dialect)
		}
		for _, n := range names {
			compareCheck(t, sm.file, schemas[n], sm.data)
		}
		for i, v := range variants(sm.data) {
			compareCheck(t, sm.file+" variant "+strconv.Itoa(i), own, v)
			variantsSeen++
		}
	}
	if variantsSeen < 10000 {
		t.Errorf("only %d variants", variantsSeen)
	}
	for i, m := range edgeMessages {
		for _, n := range names {
			compareCheck(t, "edge message "+strconv.Itoa(i), schemas[n], []byte(m))
		}
	}
	invalid := []byte("{\"message_type\":\"request\",\"\xff\":1}")
	for _, n := range names {
		compareCheck(t, "invalid UTF-8", schemas[n], invalid)
	}
}

// FuzzSchemaCheck checks that Check gives what CheckBefore gives for the
// schemas that state their message types as if/then entries on one member
// (Check validates against one type's branch, CheckBefore against the
// whole schema), on messages grown from the samples and the edge
// messages.
func FuzzSchemaCheck(f *testing.F) {
	schemas := testSchemas(f)
	for _, sm := range testSamples(f) {
		f.Add(sm.data)
	}
	for _, m := range edgeMessages {
		if len(m) <= 4096 {
			f.Add([]byte(m))
		}
	}
	check := []*dialects.Schema{schemas["swarm"], schemas["bluelabel"], schemas["elizaacl"], schemas["fuse"]}
	f.Fuzz(func(t *testing.T, msg []byte) {
		for _, s := range check {
			compareCheck(t, "fuzz input", s, msg)
		}
	})
}

// keywordSchema mixes keywords that read only a value's type (its contents
// left out of the instance), keywords that walk a value's members and
// items, and keywords that read a value whole.
const keywordSchema = `{
	"$schema": "https://json-schema.org/draft/2020-12/schema",
	"type": "object",
	"required": ["id"],
	"minProperties": 1,
	"maxProperties": 20,
	"properties": {
		"id": {"type": "string", "minLength": 2, "maxLength": 8, "pattern": "^[a-z]"},
		"n": {"type": "integer", "minimum": -5, "maximum": 1e3, "exclusiveMaximum": 999.5, "multipleOf": 0.5},
		"x": {"type": "number", "exclusiveMinimum": 0},
		"tags": {"type": "array", "minItems": 1, "maxItems": 4, "uniqueItems": true, "prefixItems": [{"const": "first"}], "items": {"type": "string"}},
		"pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}], "items": false},
		"kind": {"enum": [1, "two", null, true, {"a": [1]}]},
		"fixed": {"const": {"k": [1, 2.0, "s"]}},
		"any": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 10}]},
		"one": {"oneOf": [{"type": "integer"}, {"type": "number", "minimum": 5}]},
		"not": {"not": {"type": "null"}},
		"when": {"type": "string", "format": "date-time"},
		"free": {"type": "object"},
		"list": {"type": "array"},
		"ref": {"$ref": "#/$defs/node"},
		"meta": {"type": "object", "patternProperties": {"^x-": {"type": "string"}}, "propertyNames": {"maxLength": 10}, "additionalProperties": false},
		"deps": {"dependentRequired": {"a": ["b"]}, "dependentSchemas": {"c": {"required": ["d"]}}}
	},
	"additionalProperties": {"type": ["string", "number", "object", "array", "boolean"]},
	"dependentRequired": {"n": ["x"]},
	"dependentSchemas": {"tags": {"properties": {"kind": {"not": {"const": "two"}}}}},
	"if": {"properties": {"id": {"const": "ab"}}},
	"then": {"required": ["n"]},
	"else": {"properties": {"n": {"maximum": 100}}},
	"$defs": {
		"node": {"type": "object", "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/node"}, "free": true}, "additionalProperties": false}
	}
}`

// keywordMessages are the messages whose variants are checked against
// keywordSchema: one valid, others not.
var keywordMessages = []string{
	`{"id":"ab","n":10,"x":0.5,"tags":["first","b"],"pair":[1,"s"],"kind":{"a":[1]},"fixed":{"k":[1,2,"s"]},"any":12,"one":3,"not":1,"when":"2026-01-10T14:30:00Z","free":{"a":1,"a":2},"list":[{"b":1,"b":1}],"ref":{"v":1,"next":{"v":2,"next":{"v":3,"free":{"f":1}}}},"meta":{"x-a":"s"},"deps":{"a":1,"b":2,"c":3,"d":4},"extra":"e"}`,
	`{"id":"cd","n":150.0,"x":1e-3,"tags":["first","b","b"],"pair":[1.5,"s",3],"kind":"two","fixed":{"k":[1,2.5,"s"]},"any":9,"one":7.5,"not":null,"when":"today","meta":{"x-a":1,"y":2,"averyveryverylongname":"s"},"deps":{"a":1,"c":3}}`,
	`{"id":"ab","x":-1,"n":1e400,"tags":["first",2],"kind":1.0,"fixed":{"k":[1,2,"s"],"l":1},"one":5,"list":[],"ref":{"v":"1","w":2}}`,
}

// otherSchemas use keywords whose reach the shape does not follow
// (unevaluatedProperties, $dynamicRef), array keywords of both drafts, and
// a $ref loop.
var otherSchemas = []string{
	`{"type":"object","properties":{"a":{"type":"object"}},"unevaluatedProperties":false}`,
	`{"type":"object","properties":{"a":{"type":"array","contains":{"type":"integer"},"maxContains":1}}}`,
	`{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"array","items":[{"type":"integer"}],"additionalItems":false}},"dependencies":{"a":["b"]}}`,
	`{"$defs":{"n":{"$dynamicAnchor":"n","type":"object","properties":{"a":{"$dynamicRef":"#n"}}}},"$ref":"#/$defs/n"}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"allOf":[{"$ref":"#"}]}`,
}

// TestSchemaCheckUnchangedKeywords checks Check against CheckBefore for
// schemas beyond the dialects', whose keywords leave out, walk or read
// whole the values they apply to.
func TestSchemaCheckUnchangedKeywords(t *testing.T) {
	s := dialects.NewSchema("keywords", []byte(keywordSchema))
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	want := []dialects.Problem{{Path: "free.a", Message: "member given more than once"}, {Path: "list.0.b", Message: "member given more than once"}}
	if got := s.Check([]byte(keywordMessages[0])); !reflect.DeepEqual(got, want) {
		t.Errorf("first keyword message: got %v, want %v", got, want)
	}
	for i, m := range keywordMessages {
		compareCheck(t, "keyword message "+strconv.Itoa(i), s, []byte(m))
		for j, v := range variants([]byte(m)) {
			compareCheck(t, "keyword message "+strconv.Itoa(i)+" variant "+strconv.Itoa(j), s, v)
		}
	}
	for i, doc := range otherSchemas {
		s := dialects.NewSchema("other"+strconv.Itoa(i), []byte(doc))
		if err := s.Err(); err != nil {
			t.Fatal(err)
		}
		for _, m := range []string{`{"a":{"x":1,"x":2},"b":1}`, `{"a":[1,2],"b":1}`, `{"a":[1,"s",3]}`, `{"a":"!!","c":1}`, `{"a":{"a":{"a":[]}}}`} {
			compareCheck(t, "other schema "+strconv.Itoa(i), s, []byte(m))
		}
	}
}
