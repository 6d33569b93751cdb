package main

import (
	"fmt"
	"io"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=..."; it
// falls back to the module version.
var version = ""

func runVersion(_ []string, _ io.Reader, stdout, _ io.Writer) int {
	v := version
	if v == "" {
		v = "(devel)"
		if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	fmt.Fprintf(stdout, "mcp-bridge %s\n", v)
	return exitOK
}
