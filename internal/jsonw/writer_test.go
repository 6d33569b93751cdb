package jsonw

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestWriterCommas(t *testing.T) {
	w := New([]byte("x:"))
	w.Open()
	w.StringField("a", "1")
	w.StringField("skipped", "")
	w.Key("b")
	w.OpenArray()
	w.Int(1)
	w.Float(2.5)
	w.Bool(true)
	w.Null()
	w.Open()
	w.Close()
	w.CloseArray()
	w.RawField("c", `{"d":[1,2]}`)
	w.RawField("skipped", "")
	w.Key("e")
	w.Raw("\n  3\n")
	w.Close()
	want := `x:{"a":"1","b":[1,2.5,true,null,{}],"c":{"d":[1,2]},"e":` + "\n  3\n}"
	if got := string(w.Buf); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAppendString(t *testing.T) {
	for _, s := range []string{"", "plain", `quote " and \ backslash`, "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "héllo ✓ 😀", "</script>&"} {
		b := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("%q -> %s: %v", s, b, err)
			continue
		}
		if back != s {
			t.Errorf("%q -> %s -> %q", s, b, back)
		}
	}
	if got := string(AppendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a\"b", "\xff\xfe", "héllo", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := AppendString(nil, s)
		var back string
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("%q -> %s: %v", s, b, err)
		}
		if utf8.ValidString(s) && back != s {
			t.Fatalf("%q -> %q", s, back)
		}
	})
}
