package jsonvalid

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// library is what Valid stands in front of: gjson's syntax check and
// utf8's.
func library(b []byte) bool { return gjson.ValidBytes(b) && utf8.Valid(b) }

// edges are inputs at the edges of JSON's grammar, of UTF-8 and of Valid's
// eight-byte reads.
var edges = []string{
	``, ` `, `{`, `}`, `[`, `]`, `{}`, `[]`, ` {} `, "\t[\n]\r", `{"a":1,}`, `[1,]`, `[,1]`, `{,}`, `{"a"}`, `{"a":}`,
	`01`, `-01`, `1.`, `.5`, `1e`, `1e+`, `-`, `--1`, `1.5e+3`, `-0.0E-0`, `1E5`, `0`, `-0`, `+1`, `0x1`, `1 2`,
	`{"a" 1}`, `{"a":1 "b":2}`, `{} {}`, `{}x`, `{}]`, "\ufeff{}", `nul`, `nulll`, `tru`, `true`, `false`, `True`,
	`null`, `"x"`, `"\q"`, `"\u12"`, `"\u12G4"`, `"\uD800"`, `"\uDC00\uD800"`, "\"\x01\"", "\"\x7f\"", "\"\xff\"",
	"\"\xc3\xa9\"", "\"\xed\xa0\x80\"", "\"\xe2\x82\"", "\"\xf4\x90\x80\x80\"", `"abcdefghijklmnopqrstuvwxyz\"0123456789"`,
	`"abcdefgh\\"`, `"abcdefgh`, `"abcdefg\`, "\"abcdefg\x00\"", "\"abcdefghijklmno\xc3\xa9\"", `{"a":1,"a":2}`,
	`[[[[[]]]]]`, `{"a":[1,2,{"b":[3,{"c":null}]}]}`, `[1e400,-1e-400,1e999999]`, "[1,\v2]", "\x00",
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat(`{"a":`, maxDepth) + "1" + strings.Repeat("}", maxDepth),
}

// samples returns every dialect's sample messages.
func samples(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "dialects", "*", "testdata", "samples", "*.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no samples: %v", err)
	}
	var out [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func TestValid(t *testing.T) {
	for _, e := range edges {
		same(t, []byte(e))
	}
	for _, s := range samples(t) {
		if !Valid(s) {
			t.Errorf("a sample is not valid: %.80s", s)
		}
		same(t, s)
	}
	// Past maxDepth Valid leaves the answer to the library.
	deep := []byte(strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1))
	if Valid(deep) || !library(deep) {
		t.Errorf("nested past maxDepth: Valid %v, library %v", Valid(deep), library(deep))
	}
}

// FuzzValid holds Valid to gjson and utf8 on any input: it accepts what
// they accept, no more, and no less but for values nested past maxDepth.
func FuzzValid(f *testing.F) {
	for _, e := range edges {
		f.Add([]byte(e))
	}
	for _, s := range samples(f) {
		f.Add(s)
	}
	f.Fuzz(same)
}

func same(t *testing.T, b []byte) {
	t.Helper()
	got, want := Valid(b), library(b)
	if got == want || (!got && bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) > maxDepth) {
		return
	}
	t.Errorf("Valid(%.80q) = %v; gjson and utf8 say %v", b, got, want)
}

func BenchmarkValid(b *testing.B) {
	msgs := samples(b)
	for _, side := range []struct {
		name  string
		valid func([]byte) bool
	}{{"jsonvalid", Valid}, {"library", library}} {
		b.Run(side.name, func(b *testing.B) {
			n := 0
			for _, m := range msgs {
				n += len(m)
			}
			b.SetBytes(int64(n))
			for b.Loop() {
				for _, m := range msgs {
					side.valid(m)
				}
			}
		})
	}
}
