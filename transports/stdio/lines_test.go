package stdio

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLineReader(t *testing.T) {
	huge := strings.Repeat("y", 3*chunkSize+5)
	type line struct {
		text string
		size int
	}
	for _, tc := range []struct {
		name  string
		in    string
		limit int
		want  []line
	}{
		{name: "lines", in: "{\"a\":1}\n{}\n", limit: 10, want: []line{{`{"a":1}`, 7}, {"{}", 2}}},
		{name: "empty lines kept for the caller", in: "\n\nab\n", limit: 10, want: []line{{"", 0}, {"", 0}, {"ab", 2}}},
		{name: "crlf", in: "ab\r\ncd\n", limit: 10, want: []line{{"ab", 2}, {"cd", 2}}},
		{name: "last line without newline", in: "ab\ncd", limit: 10, want: []line{{"ab", 2}, {"cd", 2}}},
		{name: "exactly the limit", in: "abcd\nabcd\r\n", limit: 4, want: []line{{"abcd", 4}, {"abcd", 4}}},
		{name: "one over the limit", in: "abcde\nok\n", limit: 4, want: []line{{"abcde", 5}, {"ok", 2}}},
		{name: "over the limit, kept short", in: "abcdefgh\nok\n", limit: 4, want: []line{{"abcde", 8}, {"ok", 2}}},
		{name: "over the limit across chunks", in: huge + "\nok\n", limit: 8, want: []line{{"yyyyyyyyy", len(huge)}, {"ok", 2}}},
		{name: "long line within the limit", in: huge + "\nok\n", limit: len(huge), want: []line{{huge, len(huge)}, {"ok", 2}}},
	} {
		for _, split := range []struct {
			name string
			r    func(io.Reader) io.Reader
		}{
			{"whole", func(r io.Reader) io.Reader { return r }},
			{"byte by byte", iotest.OneByteReader},
		} {
			t.Run(tc.name+"/"+split.name, func(t *testing.T) {
				lr := newLineReader(split.r(strings.NewReader(tc.in)), tc.limit)
				var got []line
				for {
					l, size, err := lr.next()
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, line{string(l), size})
					if cap(lr.buf) > 2*(tc.limit+1)+64 {
						t.Fatalf("holding %d bytes for a limit of %d", cap(lr.buf), tc.limit)
					}
				}
				if len(got) != len(tc.want) {
					t.Fatalf("got %d lines, want %d", len(got), len(tc.want))
				}
				for i := range got {
					if got[i] != tc.want[i] {
						t.Errorf("line %d: got %.20q (%d bytes), want %.20q (%d bytes)", i, got[i].text, got[i].size, tc.want[i].text, tc.want[i].size)
					}
				}
			})
		}
	}
}

func TestLineReaderError(t *testing.T) {
	// A line cut by a read error is dropped, not delivered as complete.
	boom := errors.New("boom")
	lr := newLineReader(io.MultiReader(strings.NewReader("ok\npart"), iotest.ErrReader(boom)), 10)
	if l, _, err := lr.next(); err != nil || string(l) != "ok" {
		t.Fatalf("first line: %q, %v", l, err)
	}
	if l, _, err := lr.next(); !errors.Is(err, boom) {
		t.Fatalf("cut line: %q, %v; want the read error", l, err)
	}
}
