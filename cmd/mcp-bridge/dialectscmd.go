package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/canonical"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
)

// runDialects lists the dialects with the words each uses for the canonical
// acts.
func runDialects(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("dialects", "", stderr)
	if _, help, err := parseInterspersed(fs, args); err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	m := mappings.MustDefaults()
	for _, name := range builtin.Names {
		t := m.Vocabulary(name).Table(canonical.KindAct)
		var acts []string
		for _, a := range canonical.Acts {
			w, exact, ok := t.Word(string(a))
			switch {
			case !ok:
				acts = append(acts, fmt.Sprintf("%s=(none)", a))
			case !exact:
				acts = append(acts, fmt.Sprintf("%s~%s", a, w))
			default:
				acts = append(acts, fmt.Sprintf("%s=%s", a, w))
			}
		}
		fmt.Fprintf(stdout, "%s\n  %s\n", name, strings.Join(acts, "\n  "))
	}
	fmt.Fprintln(stdout, "\n(act=word: written as word; act~word: written as the nearest word, with a warning; (none): cannot be sent)")
	return exitOK
}
