package conformance

import (
	"flag"
	"os"
	"testing"

	"github.com/mcp-bridge/mcp-bridge/internal/spec"
	"github.com/mcp-bridge/mcp-bridge/internal/spec/spectest"
)

var update = flag.Bool("update", false, "rewrite the generated parts of docs/conformance.md and testdata/reference.md")

// docsFile is the document whose requirement tables are generated.
const docsFile = "../docs/conformance.md"

// TestDocs checks that docs/conformance.md lists every requirement as the
// requirement files say (A2A over HTTP's too); -update rewrites the list.
func TestDocs(t *testing.T) {
	suites, err := Suites()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	overHTTP, err := A2AHTTPSuite()
	if err != nil {
		t.Fatal(err)
	}
	want, err := SpliceDocs(string(doc), Markdown(suites, overHTTP))
	if err != nil {
		t.Fatal(err)
	}
	if want == string(doc) {
		return
	}
	if *update {
		if err := os.WriteFile(docsFile, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s does not list the requirements as dialects/*/conformance.yaml have them; run go test ./conformance -run TestDocs -update", docsFile)
}

// The markers around the requirement file's key reference in
// docs/conformance.md.
const (
	referenceBegin = "<!-- BEGIN key reference: generated from conformance/requirement_file.go; `go test ./conformance -run TestReference -update` rewrites it -->"
	referenceEnd   = "<!-- END key reference -->"
)

// TestReference fails when the golden reference page or the docs' key
// reference is not what the spec generates; -update rewrites both.
func TestReference(t *testing.T) {
	spectest.Reference(t, spectest.Page{Reference: Reference(), Golden: "testdata/reference.md", Doc: docsFile,
		Begin: referenceBegin, End: referenceEnd, Update: *update, Hint: "run go test ./conformance -run TestReference -update"})
}

// TestSpecSound checks that the requirement file's spec agrees with itself
// (internal/spec Sound).
func TestSpecSound(t *testing.T) {
	for _, s := range []*spec.Spec{requirementFile, expectedFailures} {
		if err := s.Sound(); err != nil {
			t.Error(err)
		}
	}
}
