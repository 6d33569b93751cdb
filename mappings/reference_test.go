package mappings

import (
	"bytes"
	"flag"
	"os"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
)

var update = flag.Bool("update", false, "rewrite testdata/reference.md and docs/mappings.md's key reference from the spec")

// The markers around the key reference in docs/mappings.md.
const (
	mappingsDoc    = "../docs/mappings.md"
	referenceBegin = "<!-- BEGIN key reference: generated from mappings/spec.go; `go test ./mappings -run TestReference -update` rewrites it -->"
	referenceEnd   = "<!-- END key reference -->"
)

// TestReference fails when the golden reference page or docs/mappings.md's
// key reference is not what the spec generates; -update rewrites both.
func TestReference(t *testing.T) {
	doc, err := os.ReadFile(mappingsDoc)
	if err != nil {
		t.Fatal(err)
	}
	spliced, err := spec.Splice(doc, referenceBegin, referenceEnd, Reference())
	if err != nil {
		t.Fatalf("%s: %v", mappingsDoc, err)
	}
	for _, f := range []struct {
		name string
		want []byte
	}{{"testdata/reference.md", Reference()}, {mappingsDoc, spliced}} {
		got, _ := os.ReadFile(f.name)
		switch {
		case bytes.Equal(got, f.want):
		case *update:
			if err := os.WriteFile(f.name, f.want, 0o644); err != nil {
				t.Fatal(err)
			}
		default:
			t.Errorf("%s differs from what mappings/spec.go generates; run go test ./mappings -run TestReference -update", f.name)
		}
	}
}

// TestSpecSound checks that the spec's parts agree (internal/spec Sound).
func TestSpecSound(t *testing.T) {
	if err := file.Sound(); err != nil {
		t.Error(err)
	}
}
