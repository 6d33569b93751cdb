package mappings

import (
	"os"
	"path/filepath"
	"testing"
)

// defaultFiles are the built-in dialects' default mapping files, which
// their packages embed and register.
const defaultFiles = "../dialects/*/mapping.yaml"

// testDefaults returns a set of the built-in dialects' default mapping
// files, layered as dialects.DefaultMappings layers them.
func testDefaults(tb testing.TB) *Set {
	tb.Helper()
	files, err := filepath.Glob(defaultFiles)
	if err != nil || len(files) == 0 {
		tb.Fatalf("no default mapping files (%s): %v", defaultFiles, err)
	}
	s := &Set{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			tb.Fatal(err)
		}
		if err := s.Add(f, data); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}
