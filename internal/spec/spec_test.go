package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/mcp-bridge/mcp-bridge/internal/located"
)

var update = flag.Bool("update", false, "rewrite testdata/reference.md from the test spec")

// testSpec is a format with a key of every kind and every option.
var testSpec = &Spec{
	Root: Object("", "",
		String("name", "Its name.").Named("a name").Required("every file has a name"),
		Int("count", "How many.").AtLeast(1).Default("3"),
		Number("ratio", "A fraction.").Default("0.5").Check(func(s string) string {
			if s == "2" {
				return "2 is too much"
			}
			return ""
		}),
		Size("limit", "How much.").Default("1MiB"),
		Duration("wait", "How long.").Default("5s"),
		Duration("every", "How often; 0s: never.").Default("1m").Off(),
		Bool("on", "Whether it runs.").Default("true"),
		Enum("mode", "How it runs.", "fast", "slow").Named("a mode").Default("fast"),
		Enum("level", "How loud.", "MUST", "SHOULD").Refused(func(s string) string { return fmt.Sprintf("level %q, want MUST or SHOULD", s) }).DefaultIs("none"),
		List("tags", "Its tags.", String("", "").Named("a tag")).Named("a list of tags").Distinct().DefaultIs("none"),
		Map("env", "Variables.", String("", "").EmptyOK().Secret()).CheckKey(func(k string) string {
			if strings.Contains(k, "=") {
				return fmt.Sprintf("%q is not a variable name", k)
			}
			return ""
		}).DefaultIs("none"),
		Map("groups", "Groups of members.", List("", "", String("", "")).NamedFor(func(k string) string { return "the members of " + k })).DefaultIs("none"),
		Object("reach", "How to reach it.",
			String("url", "A URL.").Check(func(s string) string {
				if !strings.Contains(s, "://") {
					return fmt.Sprintf("%q is not a URL", s)
				}
				return ""
			}),
			List("command", "A program and its arguments.", String("", "")).NonEmpty(),
			String("dir", "Where it runs.").Only("a program's directory", "command").Default("."),
		).Choice("two ways: %s (line %d) and %s", "", "url", "command").DefaultIs("none"),
		List("items", "Its items.", Object("", "An item.",
			String("id", "The item's id.").Required("every item has an id"),
			OneOf("path", "One path or several.", String("", "").Named("a path"), List("", "", String("", "")).NonEmpty()).Named("a path, or a list of paths"),
			Any("value", "Anything.").DefaultIs("none"),
		).Unknown(func(k string) string { return "no " + k + " in an item" })).DistinctBy("id", "item").DefaultIs("none"),
		JSON("schema", "A JSON object.").DefaultIs("none"),
	).Rule(func(d *Decoder, v *Value) {
		if v.Int("count") > 9 {
			d.Fail(v.Get("count").Pos(), "count", "more than 9 with %s", v.Str("name"))
		}
	}),
	Title:       "test file",
	Description: "The engine's test format.",
	Noun:        "test file",
	Shape:       "a test file is a YAML mapping",
	Env:         true,
	Columns:     true,
}

func TestSpecSound(t *testing.T) {
	if err := testSpec.Sound(); err != nil {
		t.Error(err)
	}
}

// TestSoundFindsFaults checks that Sound reports a spec's own mistakes.
func TestSoundFindsFaults(t *testing.T) {
	bad := &Spec{Root: Object("", "",
		String("a", ""),
		Int("b", "B.").Default("x"),
		String("c", "C.").Only("why", "nope"),
		Enum("d", "D.", "x").Default("y"),
		List("e", "E.", Object("", "", String("id", "Id."))).DistinctBy("key", "e"),
		Object("f", "F.", String("g", "G.")).Choice("%s %d %s", "", "g", "h"),
		String("a", "A again."),
	)}
	err := bad.Sound()
	for _, want := range []string{"a: no doc", "b: spec: the default of b", "c: with nope", `d: default "y" is not an option`,
		"e: unique by key", "f: the choice names h", ": a twice"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Sound: %v\nwant %q", err, want)
		}
	}
}

// TestDecodeProblems checks each kind of problem, with its line and
// column, and that every problem of a file is listed in order.
func TestDecodeProblems(t *testing.T) {
	t.Setenv("SPEC_TEST_COUNT", "5")
	const name = "name: n\n"
	cases := []struct{ name, text, want string }{
		{"syntax", "name: [a\n", "t.yaml:1: did not find expected ',' or ']'"},
		{"empty", "", "t.yaml:1: empty test file"},
		{"only comments", "# nothing\n", "t.yaml:1: empty test file"},
		{"two documents", name + "---\nname: m\n", "t.yaml:2:1: a test file is one YAML document"},
		{"not a mapping", "- a\n", "t.yaml:1:1: a test file is a YAML mapping"},
		{"unknown key", name + "nmae: x\n", "t.yaml:2:1: nmae: unknown key (want name, count, ratio, limit, wait, every, on, mode, level, tags, env, groups, reach, items, schema)"},
		{"unknown key, named by the node", name + "items: [{id: a, colour: red}]\n", "t.yaml:2:17: items[0].colour: no colour in an item (want id, path, value)"},
		{"missing", "count: 2\n", "t.yaml:1:1: name: missing: every file has a name"},
		{"duplicate key", name + "count: 1\ncount: 2\n", "t.yaml:3:1: count: duplicate key (first at line 2)"},
		{"non-scalar key", name + "? [a]\n: b\n", "t.yaml:2:3: keys must be plain words"},
		{"wrong type", name + "count: [1]\n", "t.yaml:2:8: count: must be a whole number"},
		{"null", name + "count:\n", "t.yaml:2:7: count: must be a whole number"},
		{"below the least", name + "count: 0\n", `t.yaml:2:8: count: "0" is not a whole number of at least 1`},
		{"a number's check", name + "ratio: 2\n", "t.yaml:2:8: ratio: 2 is too much"},
		{"size", name + "limit: 1GiB\n", `t.yaml:2:8: limit: "1GiB" is not a size (integer bytes, or with KiB, MiB, KB, MB: 1MiB)`},
		{"duration", name + "wait: 30\n", `t.yaml:2:7: wait: "30" is not a duration (30s, 500ms, 2m)`},
		{"duration zero", name + "wait: 0s\n", `t.yaml:2:7: wait: must be more than 0, got "0s"`},
		{"duration off, negative", name + "every: -1s\n", `t.yaml:2:8: every: must be 0s (off) or more, got "-1s"`},
		{"bool", name + "on: yes\n", `t.yaml:2:5: on: "yes" is not true or false`},
		{"enum", name + "mode: quick\n", `t.yaml:2:7: mode: "quick" is not a mode (fast or slow)`},
		{"enum refused its own way", name + "level: MAY\n", `t.yaml:2:8: level: level "MAY", want MUST or SHOULD`},
		{"list type", name + "tags: a\n", "t.yaml:2:7: tags: must be a list of tags"},
		{"list item twice", name + "tags: [a, b, a]\n", `t.yaml:2:14: tags[2]: "a" is listed twice (first at line 2)`},
		{"item twice by key", name + "items:\n  - id: a\n  - id: a\n", `t.yaml:4:9: items[1].id: the item "a" is listed twice (first at line 3)`},
		{"map key check", name + "env: {A=B: x}\n", `t.yaml:2:7: env.A=B: "A=B" is not a variable name`},
		{"named by its key", name + "groups: {admins: x}\n", "t.yaml:2:18: groups.admins: must be the members of admins"},
		{"choice", name + "reach: {url: 'ws://h', command: [x]}\n", "t.yaml:2:24: reach.command: two ways: url (line 2) and command"},
		{"only with", name + "reach: {url: 'ws://h', dir: x}\n", "t.yaml:2:24: reach.dir: only with command: a program's directory"},
		{"empty list refused", name + "reach: {command: []}\n", "t.yaml:2:18: reach.command: must be a list"},
		{"a scalar's check", name + "reach: {url: h}\n", `t.yaml:2:14: reach.url: "h" is not a URL`},
		{"one of", name + "items: [{id: a, path: {x: y}}]\n", "t.yaml:2:23: items[0].path: must be a path, or a list of paths"},
		{"JSON", name + "schema: [a]\n", "t.yaml:2:9: schema: must be a mapping"},
		{"environment", name + "count: ${SPEC_TEST_UNSET}\n", "t.yaml:2:8: count: the environment variable SPEC_TEST_UNSET is not set (write $$ for a literal $)"},
		{"a rule", "name: n\ncount: ${SPEC_TEST_COUNT}0\n", "t.yaml:2:8: count: more than 9 with n"},
		{"every problem, in order", "count: 0\nmode: x\nname: [a]\n", "t.yaml:1:8: count: \"0\" is not a whole number of at least 1\n" +
			"t.yaml:2:7: mode: \"x\" is not a mode (fast or slow)\nt.yaml:3:7: name: must be a name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := testSpec.Decode("t.yaml", []byte(c.text))
			var es located.Errors
			if !errors.As(err, &es) || err.Error() != c.want {
				t.Errorf("got %v (%T)\nwant %s", err, err, c.want)
			}
			switch c.name {
			case "syntax", "not a mapping", "empty", "only comments":
				if v != nil {
					t.Error("a file that is no mapping has a value")
				}
			}
		})
	}
}

// TestColumnsOff checks that a spec without Columns says file:line, and
// that its errors still hold the column.
func TestColumnsOff(t *testing.T) {
	s := *testSpec
	s.Columns = false
	_, err := s.Decode("t.yaml", []byte("name: n\n  # \ncount: 0\n"))
	var es located.Errors
	if !errors.As(err, &es) || err.Error() != `t.yaml:3: count: "0" is not a whole number of at least 1` || es[0].Column != 8 {
		t.Errorf("got %v, %+v", err, es)
	}
}

// TestDecodeValues checks the decoded values, their positions and the
// defaults filled in.
func TestDecodeValues(t *testing.T) {
	t.Setenv("SPEC_TEST_COUNT", "7")
	text := `name: n
count: ${SPEC_TEST_COUNT}
limit: 64KiB
every: 0
env: {A: ""}
reach:
  command: [run, -x]
items:
  - id: a
    path: x.y
    value: {k: [1, true]}
  - id: b
    path: [p, q]
schema: {type: object}
`
	v, err := testSpec.Decode("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		what      string
		got, want any
	}{
		{"count from the environment", v.Int("count"), 7},
		{"count as written", v.Get("count").Text(), "${SPEC_TEST_COUNT}"},
		{"count's place", v.Get("count").Pos(), Pos{Line: 2, Column: 8}},
		{"count's key's place", v.Get("count").KeyPos(), Pos{Line: 2, Column: 1}},
		{"a default", v.Get("ratio").Float(), 0.5},
		{"a default is not given", v.Get("ratio").Given(), false},
		{"a default has no place", v.Get("wait").Pos(), Pos{}},
		{"a size", v.Int("limit"), 64 << 10},
		{"off", v.Dur("every"), 0 * v.Dur("every")},
		{"a boolean's default", v.Bool("on"), true},
		{"an enum's default", v.Str("mode"), "fast"},
		{"absent, no default", v.Has("level"), false},
		{"an empty value", v.StrMap("env")["A"], ""},
		{"a list", strings.Join(v.Get("reach").Strs("command"), " "), "run -x"},
		{"a default beside a key it goes with", v.Get("reach").Str("dir"), "."},
		{"a form's key", v.List("items")[0].Get("path").String(), "x.y"},
		{"the other form", strings.Join(v.List("items")[1].Get("path").Strings(), ","), "p,q"},
		{"any value", fmt.Sprint(v.List("items")[0].Get("value").Any()), "map[k:[1 true]]"},
		{"JSON", string(v.Get("schema").JSON()), `{"type":"object"}`},
		{"written", v.Wrote("reach") && !v.Wrote("wait"), true},
		{"a path", v.Get("items").Path() + " " + v.List("items")[1].Get("id").Path(), "items items[1].id"},
	} {
		if fmt.Sprint(c.got) != fmt.Sprint(c.want) {
			t.Errorf("%s: %v, want %v", c.what, c.got, c.want)
		}
	}
}

// TestEmpty checks that a spec that lets a file be empty decodes it as
// the root's default.
func TestEmpty(t *testing.T) {
	s := &Spec{Root: List("", "", String("", "")).Distinct(), Noun: "list", Shape: "want a list", Empty: true}
	for text, want := range map[string]string{"": "<nil>", "[]": "[]", "[a, b]": "[a b]"} {
		v, err := s.Decode("l.yaml", []byte(text))
		got := "<nil>"
		if v != nil {
			got = fmt.Sprint(v.Strings())
		}
		if err != nil || got != want {
			t.Errorf("%q: %s %v, want %s", text, got, err, want)
		}
	}
	if _, err := s.Decode("l.yaml", []byte("a: b\n")); err == nil || err.Error() != "l.yaml:1: want a list" {
		t.Errorf("a mapping: %v", err)
	}
}

// TestYAML checks the YAML of a decoded file: every key in the spec's
// order, defaults marked, secrets as written.
func TestYAML(t *testing.T) {
	t.Setenv("SPEC_TEST_SECRET", "s3cret")
	v, err := testSpec.Decode("t.yaml", []byte("env: {A: '${SPEC_TEST_SECRET}'}\nname: n\nlimit: 65536\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := v.YAML()
	if err != nil {
		t.Fatal(err)
	}
	want := `name: n
count: 3 # default
ratio: 0.5 # default
limit: 64KiB
wait: 5s # default
every: 1m # default
on: true # default
mode: fast # default
env:
  A: ${SPEC_TEST_SECRET}
`
	if string(out) != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
}

// TestSchema checks the JSON Schema against the decoder: what the decoder
// takes, the schema takes, and it refuses the mistakes it can see, where
// they are.
func TestSchema(t *testing.T) {
	t.Setenv("C", "4")
	var doc map[string]any
	if err := json.Unmarshal(testSpec.Schema(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["$schema"] != "https://json-schema.org/draft/2020-12/schema" || doc["title"] != "test file" {
		t.Errorf("head: %v %v", doc["$schema"], doc["title"])
	}
	s := compile(t, testSpec.Schema())
	good := []string{
		"name: n\n",
		"name: n\ncount: 4\nratio: 0.25\nlimit: 1MiB\nwait: 2m\nevery: 0\non: false\nmode: slow\nlevel: MUST\ntags: [a, b]\n",
		"name: n\ncount: ${C}\nenv: {A: ''}\ngroups: {g: [a]}\nreach: {command: [x], dir: d}\n",
		"name: n\nitems: [{id: a, path: p, value: [1]}, {id: b, path: [p, q]}]\nschema: {type: object}\n",
	}
	for _, text := range good {
		if _, err := testSpec.Decode("t.yaml", []byte(text)); err != nil {
			t.Errorf("%q: the decoder refuses it: %v", text, err)
		}
		if err := s.Validate(jsonOf(t, text)); err != nil {
			t.Errorf("%q: the schema refuses it: %v", text, err)
		}
	}
	bad := []struct{ text, at string }{
		{"count: 1\n", "/"},
		{"name: n\nnmae: x\n", "/"},
		{"name: n\ncount: 0\n", "/count"},
		{"name: n\nwait: 30\n", "/wait"},
		{"name: n\nlimit: 1GiB\n", "/limit"},
		{"name: n\nmode: quick\n", "/mode"},
		{"name: n\ntags: [a, a]\n", "/tags"},
		{"name: n\nreach: {url: 'ws://h', command: [x]}\n", "/reach"},
		{"name: n\nreach: {url: 'ws://h', dir: x}\n", "/reach"},
		{"name: n\nreach: {command: []}\n", "/reach/command"},
		{"name: n\nitems: [{path: p}]\n", "/items/0"},
		{"name: n\nitems: [{id: a, path: []}]\n", "/items/0/path"},
		{"name: n\nschema: [a]\n", "/schema"},
	}
	for _, c := range bad {
		err := s.Validate(jsonOf(t, c.text))
		var ve *jsonschema.ValidationError
		if !errors.As(err, &ve) {
			t.Errorf("%q: accepted", c.text)
			continue
		}
		if at := leaves(ve); !contains(at, c.at) {
			t.Errorf("%q: refused at %v, want %s", c.text, at, c.at)
		}
		if _, err := testSpec.Decode("t.yaml", []byte(c.text)); err == nil {
			t.Errorf("%q: the decoder takes what the schema refuses", c.text)
		}
	}
}

// TestReference checks the key reference of the test format against
// testdata/reference.md; -update rewrites it.
func TestReference(t *testing.T) {
	const golden = "testdata/reference.md"
	got := testSpec.Reference()
	want, _ := os.ReadFile(golden)
	if bytes.Equal(got, want) {
		return
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from the reference generated; run go test ./internal/spec -run TestReference -update", golden)
}

// TestSplice checks that a generated part replaces what is between its
// markers, and that missing markers are an error.
func TestSplice(t *testing.T) {
	got, err := Splice([]byte("a\n<!-- b -->\nold\n<!-- e -->\nz\n"), "<!-- b -->", "<!-- e -->", []byte("new\n"))
	if err != nil || string(got) != "a\n<!-- b -->\n\nnew\n<!-- e -->\nz\n" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := Splice([]byte("no markers"), "<!-- b -->", "<!-- e -->", nil); err == nil {
		t.Error("no markers: no error")
	}
}

// compile compiles a JSON Schema as an editor would.
func compile(t *testing.T, schema []byte) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("test.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("test.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// jsonOf is YAML text as the JSON value an editor checks.
func jsonOf(t *testing.T, text string) any {
	t.Helper()
	var x any
	if err := yaml.Unmarshal([]byte(text), &x); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(x)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// leaves are the instance locations of a validation error's causes.
func leaves(e *jsonschema.ValidationError) []string {
	if len(e.Causes) == 0 {
		return []string{"/" + strings.Join(e.InstanceLocation, "/")}
	}
	var out []string
	for _, c := range e.Causes {
		out = append(out, leaves(c)...)
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
