package schemafast

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// wellFormed reports what encoding/json makes of msg: one JSON value in
// UTF-8 with no member given twice in any object, and how deep it nests.
func wellFormed(msg []byte) (ok bool, depth int) {
	if !utf8.Valid(msg) || !json.Valid(msg) {
		return false, 0
	}
	type frame struct {
		object bool
		// names holds an object's member names; name is set when a member
		// name comes next.
		names map[string]bool
		name  bool
	}
	var stack []*frame
	d := json.NewDecoder(bytes.NewReader(msg))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return true, depth
		}
		if err != nil {
			return false, depth
		}
		if n := len(stack); n > 0 && stack[n-1].name {
			if k, isName := tok.(string); isName {
				top := stack[n-1]
				if top.names[k] {
					return false, depth
				}
				top.names[k] = true
				top.name = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{object: true, names: map[string]bool{}, name: true})
			depth = max(depth, len(stack))
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			depth = max(depth, len(stack))
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value ended: in an object, a member name comes next.
		if n := len(stack); n > 0 && stack[n-1].object {
			stack[n-1].name = true
		}
	}
}

// scanMessages are messages at the edges of JSON's grammar and of the
// scanner: escapes, numbers, whitespace, duplicates, nesting.
var scanMessages = []string{
	``, ` `, `{`, `}`, `[`, `]`, `{}`, `[]`, ` {} `, "\t[\n]\r", `{"a":1,}`, `[1,]`, `[,1]`, `{,}`,
	`01`, `-01`, `1.`, `.5`, `1e`, `1e+`, `-`, `--1`, `1.5e+3`, `-0.0E-0`, `1E5`, `0`, `-0`,
	`{"a" 1}`, `{"a":1 "b":2}`, `{} {}`, `{}x`, `{}]`, "\ufeff{}", `nul`, `nulll`, `tru`, `true`, `false`,
	`null`, `"x"`, `"\q"`, `"\u12"`, `"\u12G4"`, `"\uD800"`, "\"\x01\"", "\"\x7f\"", "\"\xff\"", "\"\xc3\xa9\"",
	"\"\xed\xa0\x80\"", `"abcdefghijklmnopqrstuvwxyz\"0123456789"`, `"abcdefgh\\"`, `"abcdefgh`,
	`{"a":1,"a":2}`, `{"a":1,"\u0061":2}`, `{"a":{"b":1},"b":{"a":1}}`, `[{"a":1},{"a":1}]`,
	`{"\ud800":1,"\udc00":2}`, `{"\ud800\u0041":1,"\ufffdA":2}`, `{"\ud83d\ude00":1,"😀":2}`,
	`{"x":{"y":{"z":1,"z":2}}}`, `[[[[[]]]]]`, `{"a":[1,2,{"b":[3,{"c":null}]}]}`, `[1e400,-1e-400,1e999999]`,
	strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth),
	strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1),
	strings.Repeat(`{"a":`, maxDepth+1) + "1" + strings.Repeat("}", maxDepth+1),
}

// manyNames returns an object of n members, the last given twice when dup
// is set; past smallObject names are sorted to find a repeat.
func manyNames(n int, dup bool) string {
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"m` + strings.Repeat("x", i) + `":1`)
	}
	if dup {
		b.WriteString(`,"m":2`)
	}
	b.WriteByte('}')
	return b.String()
}

func TestScan(t *testing.T) {
	msgs := append([]string{}, scanMessages...)
	for _, n := range []int{smallObject, smallObject + 1, 40} {
		msgs = append(msgs, manyNames(n, false), manyNames(n, true))
	}
	for _, m := range msgs {
		checkScan(t, []byte(m))
	}
}

// checkScan fails t unless scanning msg gives what wellFormed says.
func checkScan(t *testing.T, msg []byte) {
	t.Helper()
	var p pass
	got := p.scan(msg)
	ok, depth := wellFormed(msg)
	want := Invalid
	switch {
	case ok && depth > maxDepth:
		want = Unknown
	case ok:
		want = Valid
	}
	if got != want && !(want == Invalid && got == Unknown) {
		t.Errorf("scan(%.80q) = %v, want %v", msg, got, want)
	}
}

// FuzzScan compares the scanner with encoding/json on any input.
func FuzzScan(f *testing.F) {
	for _, m := range scanMessages {
		f.Add([]byte(m))
	}
	f.Fuzz(checkScan)
}
