package schemafast

import (
	"strings"
	"testing"
)

// TestDoc: a Doc gives each value's kind and text where the message has
// it, members and items in order, and nothing for an invalid message.
func TestDoc(t *testing.T) {
	v := New(compile(t, `{"type": "object"}`))
	msg := []byte(` {"a\u0062" : [1, "x\ty", {}], "c":{"d":null,"e":true,"f":false}, "g":-2.5e1} `)
	r, d := v.CheckDoc(msg)
	if r != Valid || d == nil {
		t.Fatalf("CheckDoc = %v, %v", r, d)
	}
	defer d.Release()
	var got []string
	var walk func(x Value, depth int)
	walk = func(x Value, depth int) {
		b, e := d.Span(x)
		got = append(got, strings.Repeat(" ", depth)+string(msg[b:e]))
		if at, ok := d.ValueAt(b); !ok || at != x {
			t.Errorf("ValueAt(%d) = %d, %v; want %d", b, at, ok, x)
		}
		if k := d.Kind(x); k == Object || k == Array {
			d.Each(x, func(name, value Value) bool {
				if name >= 0 {
					got = append(got, strings.Repeat(" ", depth+1)+"name "+string(d.Text(name)))
				}
				walk(value, depth+1)
				return true
			})
		}
	}
	root, ok := d.ValueAt(1)
	if !ok || d.Kind(root) != Object {
		t.Fatalf("no object at the root: %v %v", root, ok)
	}
	walk(root, 0)
	want := []string{
		string(msg[1 : len(msg)-1]),
		" name ab", ` [1, "x\ty", {}]`, "  1", `  "x\ty"`, "  {}",
		" name c", ` {"d":null,"e":true,"f":false}`, "  name d", "  null", "  name e", "  true", "  name f", "  false",
		" name g", " -2.5e1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("read\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, ok := d.ValueAt(0); ok {
		t.Error("a value begins at a blank")
	}
	if _, ok := d.ValueAt(3); ok {
		t.Error("a value begins inside a name")
	}
	d.Each(root, func(name, value Value) bool {
		if !d.Escaped(name) {
			t.Errorf("the first name has an escape")
		}
		return false // stops at the first
	})

	for _, bad := range []string{`{"a":1,"a":2}`, `{`, `[1,]`, `"x"`} {
		if r, d := v.CheckDoc([]byte(bad)); r == Valid || d != nil {
			t.Errorf("CheckDoc(%s) = %v, %v", bad, r, d)
		}
	}
}
