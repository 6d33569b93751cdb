package translate

import (
	"encoding/json"
	"reflect"
	"testing"

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
	`{ "a" : 1 , "b" : { "c" : [ 1 , 2 ] , "d" : "x" } , "e" : null }`,
	"{\n  \"a\": 1,\n  \"b\": {\n    \"c\": [1, 2],\n    \"d\": \"x\"\n  },\n  \"e\": null\n}",
	`{"a":1}`,
	`{}`,
	`{"q\"uote":1,"a":{"b\\":2,"c":3}}`,
}

// TestSpliceMatchesSjson: each splice edit gives the JSON value sjson gives.
func TestSpliceMatchesSjson(t *testing.T) {
	paths := []string{"a", "b", "b.c", "b.d", "e", "b.c.1", "b.new", "new", "a.c", "missing.deep"}
	for _, doc := range docs {
		for _, p := range paths {
			want, werr := sjson.Delete(doc, p)
			got, gerr := deleteText(doc, p)
			if (werr == nil) != (gerr == nil) || werr == nil && !sameJSON(t, got, want) {
				t.Errorf("delete %s from %s:\n got %s (%v)\nwant %s (%v)", p, doc, got, gerr, want, werr)
			}
			for _, with := range []string{`7`, `{"z":[true]}`, `"s"`} {
				want, werr := sjson.SetRaw(doc, p, with)
				got, gerr := setText(doc, p, with)
				if (werr == nil) != (gerr == nil) || werr == nil && !sameJSON(t, got, want) {
					t.Errorf("set %s=%s in %s:\n got %s (%v)\nwant %s (%v)", p, with, doc, got, gerr, want, werr)
				}
			}
		}
	}
}

func TestRenameText(t *testing.T) {
	cases := []struct{ doc, path, parent, key, want string }{
		{`{"code":"x","lang":"py"}`, "code", "", "code_to_debug", `{"code_to_debug":"x","lang":"py"}`},
		{`{"a":{"b":1,"c":2}}`, "a.c", "a", "d", `{"a":{"b":1,"d":2}}`},
		{`{ "a" : { "b" : 1 } }`, "a.b", "a", "q\"x", `{ "a" : { "q\"x" : 1 } }`},
		{`{"q\"uote":1}`, `q"uote`, "", "plain", `{"plain":1}`},
	}
	for _, c := range cases {
		got, ok := renameText(c.doc, c.path, c.parent, c.key)
		if !ok || got != c.want {
			t.Errorf("rename %s in %s: got %s %v, want %s", c.path, c.doc, got, ok, c.want)
		}
	}
	// A name already taken, a member not there, an array element: no splice.
	for _, c := range [][4]string{{`{"a":1,"b":2}`, "a", "", "b"}, {`{"a":1}`, "x", "", "y"}, {`{"a":[1,2]}`, "a.0", "a", "k"}} {
		if _, ok := renameText(c[0], c[1], c[2], c[3]); ok {
			t.Errorf("rename %s to %s in %s spliced", c[1], c[3], c[0])
		}
	}
	if got := wrapped(`k"ey`, `[1]`); got != `{"k\"ey":[1]}` {
		t.Errorf("wrapped = %s", got)
	}
}
