package conformance

import (
	"fmt"
	"strings"
)

// The markers around the generated part of docs/conformance.md.
const (
	DocsBegin = "<!-- requirements: generated from dialects/*/conformance*.yaml by `go test ./conformance -run TestDocs -update`; do not edit by hand -->"
	DocsEnd   = "<!-- end of the generated requirements -->"
)

// Markdown returns the requirement tables of docs/conformance.md: for each
// dialect, then for each suite of over (A2A over HTTP), every requirement
// with its id, spec section, level, what it checks and where its level
// comes from; and the counts.
func Markdown(suites map[string]*Suite, over ...*Suite) string {
	var b strings.Builder
	all := make([]*Suite, 0, len(suites)+len(over))
	for _, d := range Dialects(suites) {
		all = append(all, suites[d])
	}
	all = append(all, over...)
	musts, shoulds, open := 0, 0, 0
	for _, s := range all {
		for _, r := range s.Requirements {
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
	for i, s := range all {
		title := s.Dialect
		if i >= len(suites) {
			title += " over HTTP (`--url http://...`)"
		}
		if strings.HasSuffix(s.Spec, ".md") {
			fmt.Fprintf(&b, "\n### %s\n\nSpec: [`%s`](../../shared/%s). ", title, s.Spec, s.Spec)
		} else {
			fmt.Fprintf(&b, "\n### %s\n\nSpec: %s. ", title, s.Spec) // not a file of the shared specs
		}
		fmt.Fprintf(&b, "A reply quotes %s in %s.", orList(s.Correlation.Request), orList(s.Correlation.Reply))
		switch {
		case i >= len(suites):
			fmt.Fprintf(&b, " The skills called are those of the agent's card, or `--op`.")
		case !s.Introduces():
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
