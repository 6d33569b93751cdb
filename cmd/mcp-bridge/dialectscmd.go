package main

import (
	"io"

	"github.com/mcp-bridge/mcp-bridge/dialects"
)

// runDialects lists the registered dialects: what each is, and the word it
// uses for each canonical act.
func runDialects(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("dialects", "", stderr)
	if _, help, err := parseInterspersed(fs, args); err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	dialects.Describe(stdout, dialects.DefaultMappings())
	return exitOK
}
