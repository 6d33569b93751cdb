package a2a_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
	"github.com/tidwall/gjson"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/encode")

// TestEncodeGolden writes, for each act, an envelope from another dialect
// that holds every concept: the frame and the losses reported are kept in
// testdata/encode/ACT.txt (-update rewrites them).
func TestEncodeGolden(t *testing.T) {
	c := codec()
	for _, act := range canonical.Acts {
		t.Run(string(act), func(t *testing.T) {
			ctx := dialecttest.EncodeContext()
			out, err := c.Encode(nil, dialecttest.FullEnvelope(act), ctx)
			var b bytes.Buffer
			if err != nil {
				b.WriteString("error: " + err.Error() + "\n")
			} else {
				if err := json.Indent(&b, out, "", "  "); err != nil {
					t.Fatalf("%v\n%s", err, out)
				}
				b.WriteString("\n")
				for _, l := range ctx.Losses {
					b.WriteString(l.String() + "\n")
				}
			}
			file := filepath.Join("testdata", "encode", strings.ReplaceAll(string(act), "-", "_")+".txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Errorf("%s changed:\n%s", file, b.Bytes())
			}
		})
	}
}

// TestEncodeRefusal checks that the bridge's refusal of a request (no agent
// took it) is a JSON-RPC error, with a code that says why, whatever its act;
// an agent's failure stays a failed task.
func TestEncodeRefusal(t *testing.T) {
	cases := []struct {
		name    string
		act     canonical.Act
		code    canonical.ErrorCode
		refusal bool
		want    string // gjson path: value
		wantVal string
	}{
		{"not served", canonical.ActFailure, canonical.ErrNotFound, true, "error.code", "-32601"},
		{"unauthorized", canonical.ActRefuse, canonical.ErrUnauthorized, true, "error.code", "-31401"},
		{"unreadable", canonical.ActNotUnderstood, canonical.ErrInvalidMessage, true, "error.code", "-32600"},
		{"agent's failure", canonical.ActFailure, canonical.ErrNotFound, false, "result.task.status.state", "TASK_STATE_FAILED"},
	}
	c := codec()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := &canonical.Envelope{Act: tc.act, InReplyTo: "req-1",
				Error: &canonical.Error{Code: tc.code, Message: `no connected agent serves "horoscope"`}}
			out, err := c.Encode(nil, env, &dialects.EncodeContext{Refusal: tc.refusal})
			if err != nil {
				t.Fatal(err)
			}
			if p := c.Validate(out); len(p) != 0 {
				t.Fatalf("invalid: %v\n%s", p, out)
			}
			if got := gjson.GetBytes(out, tc.want).String(); got != tc.wantVal {
				t.Errorf("%s = %q, want %q\n%s", tc.want, got, tc.wantVal, out)
			}
			if got := gjson.GetBytes(out, "id").String(); got != "req-1" {
				t.Errorf("id %q, want req-1", got)
			}
			if tc.refusal && !strings.Contains(gjson.GetBytes(out, "error.message").String(), "horoscope") {
				t.Errorf("the error does not say why: %s", out)
			}
		})
	}
}
