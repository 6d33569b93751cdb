package mappings

import (
	"flag"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
)

var update = flag.Bool("update", false, "rewrite testdata/reference.md and docs/mappings.md's key reference from the spec")

// The markers around the key reference in docs/mappings.md.
const (
	mappingsDoc    = "../docs/mappings.md"
	referenceBegin = "<!-- BEGIN key reference: generated from mappings/spec.go; `go test ./mappings -run TestReference -update` rewrites it -->"
	referenceEnd   = "<!-- END key reference -->"
)

// TestReference fails when the golden reference page or the docs' key
// reference is not what the spec generates; -update rewrites both.
func TestReference(t *testing.T) {
	spectest.Reference(t, spectest.Page{Reference: Reference(), Golden: "testdata/reference.md", Doc: mappingsDoc,
		Begin: referenceBegin, End: referenceEnd, Update: *update, Hint: "run go test ./mappings -run TestReference -update"})
}

// TestSpecSound checks that the spec's parts agree (internal/spec Sound).
func TestSpecSound(t *testing.T) {
	if err := file.Sound(); err != nil {
		t.Error(err)
	}
}
