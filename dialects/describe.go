package dialects

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// Describe writes, for every registered dialect, what it is and the word it
// uses for each canonical act in m: "act=word" when it has the word,
// "act~word" when the nearest word is written with a warning, and
// "act=(none)" when it cannot send the act.
func Describe(w io.Writer, m *mappings.Set) {
	for _, r := range Records() {
		t := m.Vocabulary(r.Name).Table(canonical.KindAct)
		var acts []string
		for _, a := range canonical.Acts {
			word, exact, ok := t.Word(string(a))
			switch {
			case !ok:
				acts = append(acts, fmt.Sprintf("%s=(none)", a))
			case !exact:
				acts = append(acts, fmt.Sprintf("%s~%s", a, word))
			default:
				acts = append(acts, fmt.Sprintf("%s=%s", a, word))
			}
		}
		about := r.Summary
		if r.Spec != "" {
			about += " (" + r.Spec + ")"
		}
		fmt.Fprintf(w, "%s: %s\n  %s\n", r.Name, about, strings.Join(acts, "\n  "))
	}
	fmt.Fprintln(w, "\n(act=word: written as word; act~word: written as the nearest word, with a warning; (none): cannot be sent)")
}
