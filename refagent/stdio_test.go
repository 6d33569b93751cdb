package refagent

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
)

// TestServeStdioEnd checks that at the end of its input ServeStdio answers
// the requests it has read, slow ones included, before it returns; that
// blank lines are skipped, and a last line without a newline is read.
func TestServeStdioEnd(t *testing.T) {
	req := func(id, tool, args string) string {
		return string(encode(t, "swarm", &canonical.Envelope{Act: canonical.ActRequest, ID: id, Sender: canonical.Party{ID: "eddy"},
			Receiver: canonical.Address{Kind: canonical.AddressAgent, ID: "jules"}, Operation: op(tool), Arguments: canonical.JSON(args)}))
	}
	in := req("r1", "sleep", `{"ms":20}`) + "\n\n  \n" + req("r2", "echo", `{"k":[1,2]}`) // no final newline
	a, err := New(Options{ID: "jules", Dialect: "swarm"})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := a.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want the handshake and two replies:\n%s", len(lines), out.String())
	}
	replies := map[string]string{}
	for _, l := range lines[1:] {
		if !json.Valid([]byte(l)) {
			t.Fatalf("not one JSON message a line: %q", l)
		}
		r := decode(t, "swarm", []byte(l))
		replies[r.InReplyTo] = string(r.Result)
	}
	if replies["r1"] != `{"slept_ms":20}` || replies["r2"] != `{"k":[1,2]}` {
		t.Errorf("replies %v", replies)
	}
	checkValid(t, "swarm", "the agent", [][]byte{[]byte(lines[0]), []byte(lines[1]), []byte(lines[2])})
}

// TestLineWriter checks that each frame is written as one line, also when
// its raw JSON values span several.
func TestLineWriter(t *testing.T) {
	cases := []struct{ frame, line string }{
		{`{"a":1}`, "{\"a\":1}\n"},
		{"{\"a\": {\n  \"b\": [1,\n 2]\n},\n\"s\": \"x\\ny\"}", "{\"a\":{\"b\":[1,2]},\"s\":\"x\\ny\"}\n"},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		w := &lineWriter{w: &out}
		if err := w.write([]byte(tc.frame)); err != nil {
			t.Fatal(err)
		}
		if out.String() != tc.line {
			t.Errorf("wrote %q, want %q", out.String(), tc.line)
		}
	}
	if err := (&lineWriter{w: &bytes.Buffer{}}).write([]byte("{\n")); err == nil {
		t.Error("a broken frame over two lines was written")
	}
}
