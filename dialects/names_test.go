package dialects_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/jsonw"
)

// nameCall is a call of jsonw.Writer's Name or NameString with a string
// literal.
var nameCall = regexp.MustCompile(`\.Name(?:String)?\(("(?:[^"\\]|\\.)*")`)

// TestNamesPlain checks that every member name the codecs write with Name
// or NameString, which write it without escaping, needs none.
func TestNamesPlain(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range nameCall.FindAllSubmatch(src, -1) {
			k, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Errorf("%s: %s: %v", path, m[1], err)
				continue
			}
			if !jsonw.Plain(k) {
				t.Errorf("%s: the name %s needs escaping: write it with Key", path, m[1])
			}
			n++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("found no call of Name")
	}
}
