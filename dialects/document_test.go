package dialects_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/tidwall/gjson"
)

// anySchema accepts every JSON value: the fast path then vouches for every
// message that is JSON in UTF-8 with no member given twice.
var anySchema = dialects.NewSchema("any", []byte(`{}`))

// docCases are messages whose values a Doc must read as gjson does: blanks
// around and inside, escapes in names and values, every kind of value,
// nesting, and members gjson would read in a path.
var docCases = []string{
	`{}`, `[]`, ` {"a":1} `, "\n\t{ \"a\" : [ 1 , { } , [ ] ] , \"b\" : { \"c\" : null } }\r\n",
	`{"a":"x","b":-0.5e3,"c":true,"d":false,"e":null,"f":{"g":[1,"2",{"h":3}]},"i":[]}`,
	`{"\u0061":1,"b\"c":"d\\e","\ud83d\ude00":"\u00e9\n","x.y":1,"*":2,"a-b_c":3,"0":4,"@this":5}`,
	`[{"a":1},[2,[3]],"s",4.25,true,false,null]`,
	`{"header":{"messageId":"m1","type":"REQUEST"},"body":{"action":"a","payload":{"k":[1,2,{"z":"\/"}]}}}`,
	`{"n":[1e400,-1e-400,123456789012345678901234567890,-0,0.1]}`,
}

// TestDocAsGjson: for each case, every object and array read by a Doc is
// read as gjson reads it.
func TestDocAsGjson(t *testing.T) {
	for _, c := range docCases {
		d := dialects.DocOf(anySchema, []byte(c))
		if d == nil {
			t.Fatalf("the fast path does not vouch for %s", c)
		}
		if !d.Located(d.Root()) {
			t.Fatalf("%s: the Doc does not read its root itself", c)
		}
		compareDoc(t, d, d.Root())
		d.Release()
	}
	// A Result that is not the message's own is gjson's to read.
	d := dialects.DocOf(anySchema, []byte(`{"a":{"b":1}}`))
	defer d.Release()
	other := gjson.Parse(`{"a":{"b":2}}`)
	if d.Located(other) {
		t.Fatal("a Doc reads a Result of another text itself")
	}
	compareDoc(t, d, other)
	var nilDoc *dialects.Doc
	compareDoc(t, nilDoc, other)
}

// FuzzDoc holds a Doc's ForEach and Get to gjson's on every message the
// fast path vouches for (DESIGN.md section 9): every object and array of
// the message, every member name and a few that are not there.
func FuzzDoc(f *testing.F) {
	for _, sm := range testSamples(f) {
		f.Add(sm.data)
	}
	for _, m := range append(append([]string{}, edgeMessages...), docCases...) {
		if len(m) <= 4096 {
			f.Add([]byte(m))
		}
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		d := dialects.DocOf(anySchema, msg)
		if d == nil {
			return
		}
		defer d.Release()
		compareDoc(t, d, d.Root())
	})
}

// compareDoc fails t unless d reads v, and every object and array within
// it, as gjson does.
func compareDoc(t *testing.T, d *dialects.Doc, v gjson.Result) {
	t.Helper()
	if v.Type != gjson.JSON {
		return
	}
	var want, got []gjson.Result
	v.ForEach(func(k, x gjson.Result) bool {
		want = append(want, k, x)
		return true
	})
	d.ForEach(v, func(k, x gjson.Result) bool {
		got = append(got, k, x)
		return true
	})
	if len(got) != len(want) {
		t.Fatalf("ForEach of %s: %d keys and values, gjson %d", v.Raw, len(got), len(want))
	}
	for i := range want {
		if !sameResult(got[i], want[i]) {
			t.Fatalf("ForEach of %s, #%d: %s, gjson %s", v.Raw, i, show(got[i]), show(want[i]))
		}
	}
	if v.IsObject() {
		names := []string{"", "absent", "a", "0", "a.b", "*", "#"}
		for i := 0; i < len(want); i += 2 {
			names = append(names, want[i].Str, want[i].Str+"x")
		}
		for _, name := range names {
			if g, w := d.Get(v, name), v.Get(name); !sameResult(g, w) {
				t.Fatalf("Get(%q) of %s: %s, gjson %s", name, v.Raw, show(g), show(w))
			}
		}
	}
	for i := 1; i < len(want); i += 2 {
		compareDoc(t, d, want[i])
		compareDoc(t, d, got[i])
	}
}

// sameResult reports whether a and b are the same Result.
func sameResult(a, b gjson.Result) bool {
	sameNum := a.Num == b.Num || (math.IsNaN(a.Num) && math.IsNaN(b.Num))
	return a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && sameNum && a.Index == b.Index &&
		len(a.Indexes) == len(b.Indexes)
}

func show(r gjson.Result) string {
	return fmt.Sprintf("{Type:%v Raw:%q Str:%q Num:%v Index:%d}", r.Type, r.Raw, r.Str, r.Num, r.Index)
}
