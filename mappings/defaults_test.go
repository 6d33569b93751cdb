package mappings

import (
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// builtinFile is the Go file whose blank imports make the built-in
// dialects; each such package embeds and registers its default mapping
// file, dialects/NAME/mapping.yaml. A dialect package it does not import
// (not yet built in) is not among the defaults.
const builtinFile = "../dialects/builtin/builtin.go"

// defaultFiles returns the built-in dialects' default mapping files.
func defaultFiles(tb testing.TB) []string {
	tb.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), builtinFile, nil, parser.ImportsOnly)
	if err != nil {
		tb.Fatal(err)
	}
	var files []string
	for _, im := range f.Imports {
		p, err := strconv.Unquote(im.Path.Value)
		if err != nil || im.Name == nil || im.Name.Name != "_" || !strings.HasPrefix(p, "github.com/mcp-bridge/mcp-bridge/dialects/") {
			continue
		}
		files = append(files, filepath.Join("..", "dialects", path.Base(p), "mapping.yaml"))
	}
	if len(files) == 0 {
		tb.Fatalf("%s imports no dialect", builtinFile)
	}
	return files
}

// testDefaults returns a set of the built-in dialects' default mapping
// files, layered as dialects.DefaultMappings layers them.
func testDefaults(tb testing.TB) *Set {
	tb.Helper()
	s := &Set{}
	for _, f := range defaultFiles(tb) {
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
