package agentclient

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestAppendLine checks that each frame is appended as one line, also
// when its raw JSON values span several, and that a broken one is not.
func TestAppendLine(t *testing.T) {
	cases := []struct {
		frame, line string
		fails       bool
	}{
		{`{"a":1}`, "{\"a\":1}\n", false},
		{"{\"a\": {\n  \"b\": [1,\n 2]\n},\n\"s\": \"x\\ny\"}", "{\"a\":{\"b\":[1,2]},\"s\":\"x\\ny\"}\n", false},
		{"{\n", "", true},
	}
	for _, tc := range cases {
		dst := []byte("before\n")
		got, err := AppendLine(dst, []byte(tc.frame))
		switch {
		case tc.fails && err == nil:
			t.Errorf("%q: appended %q, want an error", tc.frame, got)
		case tc.fails && string(got) != "before\n":
			t.Errorf("%q: failed, but left %q", tc.frame, got)
		case !tc.fails && (err != nil || string(got) != "before\n"+tc.line):
			t.Errorf("%q: appended %q %v, want %q", tc.frame, got, err, tc.line)
		}
	}
}

// TestLineReader reads frames one a line: line endings, blank lines, a
// last line without an ending, lines over the limit and over the buffer.
func TestLineReader(t *testing.T) {
	type frame struct {
		data string
		size int
	}
	long := strings.Repeat("y", 100<<10)
	cases := []struct {
		name  string
		in    string
		limit int
		want  []frame
	}{
		{"lines", "{\"a\":1}\n[2]\r\n", 0, []frame{{`{"a":1}`, 7}, {"[2]", 3}}},
		{"blank lines", "\n  \n{}\n\r\n\t\n[]\n", 0, []frame{{"{}", 2}, {"[]", 2}}},
		{"spaces kept", " {} \n", 0, []frame{{" {} ", 4}}},
		{"no ending", "{}\n[1]", 0, []frame{{"{}", 2}, {"[1]", 3}}},
		{"over the limit", "123456\n12\n", 4, []frame{{"1234", 6}, {"12", 2}}},
		{"over the limit with \\r", "1234\r\n", 4, []frame{{"1234", 5}}},
		{"over the buffer", long + "\n{}\n", 0, []frame{{long, len(long)}, {"{}", 2}}},
		{"over the buffer and the limit", long + "\n{}\n", 10, []frame{{long[:10], len(long)}, {"{}", 2}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// one byte a read: lines come in pieces
			r := NewLineReader(iotest.OneByteReader(strings.NewReader(tc.in)), tc.limit)
			for _, want := range tc.want {
				data, size, err := r.Next()
				if err != nil || string(data) != want.data || size != want.size {
					t.Fatalf("Next: %.20q %d %v, want %.20q %d", data, size, err, want.data, want.size)
				}
			}
			if data, _, err := r.Next(); !errors.Is(err, io.EOF) {
				t.Errorf("after the last frame: %q %v, want io.EOF", data, err)
			}
		})
	}
}

// TestLineReaderError checks that a read error other than the end of the
// input is returned.
func TestLineReaderError(t *testing.T) {
	boom := errors.New("boom")
	r := NewLineReader(io.MultiReader(strings.NewReader("{}\n{"), iotest.ErrReader(boom)), 0)
	if data, _, err := r.Next(); err != nil || string(data) != "{}" {
		t.Fatalf("Next: %q %v", data, err)
	}
	if _, _, err := r.Next(); !errors.Is(err, boom) {
		t.Errorf("Next: %v, want %v", err, boom)
	}
}
