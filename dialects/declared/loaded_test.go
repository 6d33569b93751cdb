package declared_test

import (
	"os"
	"reflect"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/dialects/declared"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// TestLoadedDeclaration checks that the loader reads examples/hook.yaml into
// the declaration these tests write out in Go, and that the codec accepts
// it.
func TestLoadedDeclaration(t *testing.T) {
	data, err := os.ReadFile(hookFile)
	if err != nil {
		t.Fatal(err)
	}
	s := &mappings.Set{}
	if err := s.Add("examples/hook.yaml", data); err != nil {
		t.Fatal(err)
	}
	var got *mappings.Declaration
	for _, d := range s.Declarations() {
		if d.Name == "hook" {
			got = d
		}
	}
	if got == nil {
		t.Fatal("no hook declaration loaded")
	}
	want := hookDecl()
	want.Line = got.Line
	if !reflect.DeepEqual(got, want) {
		t.Errorf("loaded declaration:\n got %+v\nwant %+v", got, want)
	}
	if _, err := declared.New(got, s.Vocabulary("hook")); err != nil {
		t.Error(err)
	}
}
