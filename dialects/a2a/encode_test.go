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
	"github.com/mcp-bridge/mcp-bridge/dialects/dialecttest"
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
