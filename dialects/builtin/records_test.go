package builtin_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// TestPackages checks that every registered dialect's package documents
// itself: a page (README.md, headed by the dialect's name) beside its
// code, and the spec its record names.
func TestPackages(t *testing.T) {
	for _, r := range dialects.Records() {
		page, err := os.ReadFile(filepath.Join("..", r.Name, "README.md"))
		if err != nil {
			t.Errorf("%s: no page: %v", r.Name, err)
			continue
		}
		if !bytes.HasPrefix(page, []byte("# "+r.Name+"\n")) {
			t.Errorf("%s: the page does not start with # %s", r.Name, r.Name)
		}
		if r.Spec == "" || !bytes.Contains(page, []byte(r.Spec)) {
			t.Errorf("%s: the page does not name the spec %q", r.Name, r.Spec)
		}
	}
}
