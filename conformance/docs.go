package conformance

import (
	"fmt"
	"strings"
)

// The markers around the generated part of docs/conformance.md.
const (
	DocsBegin = "<!-- requirements: generated from dialects/*/conformance.yaml by `go test ./conformance -run TestDocs -update`; do not edit by hand -->"
	DocsEnd   = "<!-- end of the generated requirements -->"
)

// Markdown returns the requirement tables of docs/conformance.md: for each
// dialect, every requirement with its id, spec section, level, what it
// checks and where its level comes from; and the counts.
func Markdown(suites map[string]*Suite) string {
	var b strings.Builder
	musts, shoulds, open := 0, 0, 0
	for _, d := range Dialects(suites) {
		for _, r := range suites[d].Requirements {
			if r.Level == Must {
				musts++
			} else {
				shoulds++
			}
			if strings.HasPrefix(r.LevelNote, "open") {
				open++
			}
		}
	}
	fmt.Fprintf(&b, "%d requirements: %d MUST, %d SHOULD. The spec leaves the level open for %d of them (\"open:\" in the last column says how it was chosen).\n",
		musts+shoulds, musts, shoulds, open)
	for _, d := range Dialects(suites) {
		s := suites[d]
		if strings.HasSuffix(s.Spec, ".md") {
			fmt.Fprintf(&b, "\n### %s\n\nSpec: [`%s`](../../shared/%s). ", d, s.Spec, s.Spec)
		} else {
			fmt.Fprintf(&b, "\n### %s\n\nSpec: %s. ", d, s.Spec) // not a file of the shared specs
		}
		fmt.Fprintf(&b, "A reply quotes %s in %s.", orList(s.Correlation.Request), orList(s.Correlation.Reply))
		if !s.Introduces() {
			fmt.Fprintf(&b, " Its agents do not introduce themselves: give `--op`.")
		}
		b.WriteString("\n\n| id | section | level | what it checks | why this level |\n|---|---|---|---|---|\n")
		for _, r := range s.Requirements {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, cell(r.Section), r.Level, cell(r.Title), cell(r.LevelNote))
		}
	}
	return b.String()
}

// orList writes paths as `a` or `b`.
func orList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = "`" + p + "`"
	}
	return strings.Join(q, " or ")
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}

// SpliceDocs returns doc with the text between DocsBegin and DocsEnd
// replaced by generated.
func SpliceDocs(doc, generated string) (string, error) {
	i := strings.Index(doc, DocsBegin)
	j := strings.Index(doc, DocsEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("the document has no %q ... %q markers", DocsBegin, DocsEnd)
	}
	return doc[:i+len(DocsBegin)] + "\n\n" + generated + "\n" + doc[j:], nil
}
