package conformance

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated part of docs/conformance.md")

// docsFile is the document whose requirement tables are generated.
const docsFile = "../docs/conformance.md"

// TestDocs checks that docs/conformance.md lists every requirement as the
// requirement files say; -update rewrites the list.
func TestDocs(t *testing.T) {
	suites, err := Suites()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := SpliceDocs(string(doc), Markdown(suites))
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
