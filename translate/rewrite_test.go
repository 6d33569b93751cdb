package translate

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/tidwall/sjson"
)

func sameJSON(t *testing.T, a, b string) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal([]byte(a), &va); err != nil {
		t.Fatalf("not JSON: %s: %v", a, err)
	}
	if err := json.Unmarshal([]byte(b), &vb); err != nil {
		t.Fatalf("not JSON: %s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

var docs = []string{
	`{"a":1,"b":{"c":[1,2],"d":"x"},"e":null}`,
	"{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [1, {\"z\": 0}],\n    \"d\": \"x\"\n  },\n  \"e\": null\n}",
	`{"a":1}`,
	`{}`,
	`{"q\"uote":1,"a":{"b\\":2,"c":3}}`,
}

// edited runs one edit on a payload whose arguments are doc and returns the
// arguments written back.
func edited(t *testing.T, doc string, e mappings.Edit) (string, error) {
	t.Helper()
	env := &canonical.Envelope{Arguments: canonical.JSON(doc)}
	p := &payload{env: env}
	err := p.apply(e)
	p.commit()
	return string(env.Arguments), err
}

func args(sub string) mappings.PayloadPath { return mappings.PayloadPath{Field: "arguments", Sub: sub} }

// TestEditsMatchSjson: set and delete through the edit model give the JSON
// value sjson gives, over paths into objects, arrays, and nowhere.
func TestEditsMatchSjson(t *testing.T) {
	paths := []string{"a", "b", "b.c", "b.d", "e", "b.c.1", "b.c.1.z", "b.new", "new", "new.deep", "q\"uote"}
	for _, doc := range docs {
		for _, path := range paths {
			want, werr := sjson.Delete(doc, path)
			got, gerr := edited(t, doc, mappings.Edit{Op: mappings.EditDelete, Path: args(path)})
			if (werr == nil) != (gerr == nil) || werr == nil && !sameJSON(t, got, want) {
				t.Errorf("delete %s from %s:\n got %s (%v)\nwant %s (%v)", path, doc, got, gerr, want, werr)
			}
			for _, with := range []string{`7`, `{"z":[true]}`, `"s"`} {
				want, werr := sjson.SetRaw(doc, path, with)
				got, gerr := edited(t, doc, mappings.Edit{Op: mappings.EditSet, Path: args(path), Value: canonical.JSON(with)})
				if (werr == nil) != (gerr == nil) || werr == nil && !sameJSON(t, got, want) {
					t.Errorf("set %s=%s in %s:\n got %s (%v)\nwant %s (%v)", path, with, doc, got, gerr, want, werr)
				}
			}
		}
	}
}

func TestEdits(t *testing.T) {
	doc := `{"code":"x","lang":"py","opts":{"a":1,"b":2},"list":[{"k":1}]}`
	cases := []struct {
		name string
		e    mappings.Edit
		want string
	}{
		{"rename keeps the position", mappings.Edit{Op: mappings.EditRename, Path: args("code"), Key: "code_to_debug"},
			`{"code_to_debug":"x","lang":"py","opts":{"a":1,"b":2},"list":[{"k":1}]}`},
		{"rename onto a taken name", mappings.Edit{Op: mappings.EditRename, Path: args("code"), Key: "lang"},
			`{"lang":"x","opts":{"a":1,"b":2},"list":[{"k":1}]}`},
		{"rename nested", mappings.Edit{Op: mappings.EditRename, Path: args("opts.b"), Key: "c"},
			`{"code":"x","lang":"py","opts":{"a":1,"c":2},"list":[{"k":1}]}`},
		{"rename in an array", mappings.Edit{Op: mappings.EditRename, Path: args("list.0.k"), Key: "j"},
			`{"code":"x","lang":"py","opts":{"a":1,"b":2},"list":[{"j":1}]}`},
		{"move into a new object", mappings.Edit{Op: mappings.EditMove, Path: args("opts.a"), To: args("deep.er.a")},
			`{"code":"x","lang":"py","opts":{"b":2},"list":[{"k":1}],"deep":{"er":{"a":1}}}`},
		{"wrap a member", mappings.Edit{Op: mappings.EditWrap, Path: args("opts"), Key: "options"},
			`{"code":"x","lang":"py","opts":{"options":{"a":1,"b":2}},"list":[{"k":1}]}`},
		{"wrap the field", mappings.Edit{Op: mappings.EditWrap, Path: args(""), Key: "task_parameters"},
			`{"task_parameters":{"code":"x","lang":"py","opts":{"a":1,"b":2},"list":[{"k":1}]}}`},
		{"unwrap to the field", mappings.Edit{Op: mappings.EditUnwrap, Path: args("opts")}, `{"a":1,"b":2}`},
		{"unwrap nested", mappings.Edit{Op: mappings.EditUnwrap, Path: args("opts.a")},
			`{"code":"x","lang":"py","opts":1,"list":[{"k":1}]}`},
		{"missing path changes nothing", mappings.Edit{Op: mappings.EditMove, Path: args("nope"), To: args("x")}, doc},
		{"delete the field", mappings.Edit{Op: mappings.EditDelete, Path: args("")}, ``},
	}
	for _, c := range cases {
		got, err := edited(t, doc, c.e)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if c.want == "" || got == "" {
			if got != c.want {
				t.Errorf("%s: got %q, want %q", c.name, got, c.want)
			}
			continue
		}
		if !sameJSON(t, got, c.want) {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// A path through a value that is not an object is an error, and the
	// field stays as it was.
	got, err := edited(t, doc, mappings.Edit{Op: mappings.EditSet, Path: args("code.x"), Value: `1`})
	if err == nil || err.Error() != "arguments.code is not an object" || !sameJSON(t, got, doc) {
		t.Errorf("set into a string: %v, %s", err, got)
	}
	// Moving to another field creates it; an untouched field keeps its text.
	env := &canonical.Envelope{Arguments: `{ "s" : 1 }`, Result: ` {"kept" :  true}`}
	p := &payload{env: env}
	if err := p.apply(mappings.Edit{Op: mappings.EditMove, Path: args("s"), To: mappings.PayloadPath{Field: "context", Sub: "s"}}); err != nil {
		t.Fatal(err)
	}
	p.commit()
	if !sameJSON(t, string(env.Arguments), `{}`) || env.Context != `{"s":1}` || env.Result != ` {"kept" :  true}` {
		t.Errorf("arguments %s context %s result %s", env.Arguments, env.Context, env.Result)
	}
}

// TestNamesKeepTheirText: an object an edit rebuilds writes its members'
// names as the source wrote them, and names edits give escaped.
func TestNamesKeepTheirText(t *testing.T) {
	cases := []struct {
		doc  string
		e    mappings.Edit
		want string
	}{
		{`{"\u0061":1, "b" : 2}`, mappings.Edit{Op: mappings.EditRename, Path: args("b"), Key: `q"u`}, `{"\u0061":1,"q\"u":2}`},
		{`{"\ud800\u0041":1}`, mappings.Edit{Op: mappings.EditSet, Path: args("n"), Value: `true`}, `{"\ud800\u0041":1,"n":true}`},
		{`{"a":{"\/":1}}`, mappings.Edit{Op: mappings.EditWrap, Path: args("a"), Key: "<w>"}, `{"a":{"<w>":{"\/":1}}}`},
	}
	for _, c := range cases {
		got, err := edited(t, c.doc, c.e)
		if err != nil || got != c.want {
			t.Errorf("%s %s: got %s (%v), want %s", c.e.Op, c.doc, got, err, c.want)
		}
	}
}
