package jsonw

import (
	"encoding/json"
	"math/bits"
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
	for _, s := range []string{"", "a\"b", "\xff\xfe", "héllo", "\u2028", "eight by", "sixteen plain by", "longer than eight\twith\x01a tab", "0123456é789abcdef\xe2\x80"} {
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
		if want := appendStringByByte(nil, s); string(b) != string(want) {
			t.Fatalf("%q -> %s, byte by byte %s", s, b, want)
		}
		if want := plainByByte(s); Plain(s) != want {
			t.Fatalf("Plain(%q) = %v, byte by byte %v", s, !want, want)
		}
	})
}

// TestPlain: Plain is true exactly when every byte is plain, at every
// place of a word and past the last whole word.
func TestPlain(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"", true}, {"swarm-agent", true}, {"sixteen plain by", true}, {"0f6a3c2e-9b1d-4e55-8c3a-2d7e4f1b9a60", true},
		{"a\"b", false}, {"eight by\\", false}, {"seven b\x1f", false}, {"é", false}, {"seventeen plain b\x7f", true},
		{"sixteen plain b\x80", false}, {"\u2028", false}, {"tab\there", false},
	} {
		if got := Plain(tc.s); got != tc.want {
			t.Errorf("Plain(%q) = %v, want %v", tc.s, got, tc.want)
		}
	}
}

// plainByByte is what Plain reports, a byte at a time.
func plainByByte(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isPlain(s[i]) {
			return false
		}
	}
	return true
}

// TestNotPlain: NotPlain's lowest mark is the first byte that is not plain
// (a quote, a backslash, a control character or a byte of a multi-byte
// character), and there is no mark when all eight are plain; every byte
// value at every place, among plain and unplain neighbours.
func TestNotPlain(t *testing.T) {
	fills := []byte{'a', ' ', '~', 0x00, '"', '\\', 0x1f, 0x80, 0xff}
	for _, fill := range fills {
		for at := range 8 {
			for c := range 256 {
				var w [8]byte
				for i := range w {
					if i < at {
						w[i] = 'x' // plain before the byte tried
					} else {
						w[i] = fill
					}
				}
				w[at] = byte(c)
				first := -1
				for i, b := range w {
					if !isPlain(b) {
						first = i
						break
					}
				}
				m := NotPlain(word(string(w[:])))
				switch {
				case first < 0 && m != 0:
					t.Fatalf("%q: all plain, mask %#x", w, m)
				case first >= 0 && (m == 0 || bits.TrailingZeros64(m)>>3 != first):
					t.Fatalf("%q: first not plain at %d, mask %#x", w, first, m)
				}
			}
		}
	}
}

// isPlain reports whether a JSON string holds c as it is, and c is a whole
// character.
func isPlain(c byte) bool { return c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\\' }

// appendStringByByte is AppendString as it was before it read eight bytes
// at a time: FuzzAppendString holds the two to the same bytes.
func appendStringByByte(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if isPlain(c) {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			start = i + 1
		}
		i += size
	}
	return append(append(dst, s[start:]...), '"')
}

// TestName checks that Name and NameString write what Key and StringField
// write for a plain name.
func TestName(t *testing.T) {
	for _, k := range []string{"", "id", "message_id", "@type", "a.b/c:d$e-f", "sixteen_plain_by"} {
		if !Plain(k) {
			t.Fatalf("%q is not plain", k)
		}
		a, b := New(nil), New(nil)
		a.Open()
		a.Key(k)
		a.Int(1)
		a.StringField(k, "v")
		a.StringField(k, "")
		a.Close()
		b.Open()
		b.Name(k)
		b.Int(1)
		b.NameString(k, "v")
		b.NameString(k, "")
		b.Close()
		if string(a.Buf) != string(b.Buf) {
			t.Errorf("Name(%q) wrote %s, Key %s", k, b.Buf, a.Buf)
		}
	}
}
