package main

import (
	"fmt"
	"io"
	"runtime/debug"
	"strings"
)

// version and revision are set at build time by `make build` (-ldflags
// "-X main.version=... -X main.revision=..."), from `git describe` and
// `git rev-parse HEAD`; empty otherwise.
var version, revision = "", ""

func runVersion(_ []string, _ io.Reader, stdout, _ io.Writer) int {
	bi, _ := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionLine(bi, version, revision))
	return exitOK
}

// versionLine says which build this is: "mcp-bridge VERSION (revision REV,
// modified)". What Go stamped into the binary comes first: the module
// version and the VCS revision (go build in a git checkout, unless
// -buildvcs=false). The version and revision set at build time fill in
// what Go could not stamp (a git worktree, whose .git is a file, has no
// VCS stamp). With neither, the version is "(devel)" and no revision is
// given.
func versionLine(bi *debug.BuildInfo, version, revision string) string {
	modified := false
	if bi != nil {
		if v := bi.Main.Version; v != "" && v != "(devel)" {
			version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	var b strings.Builder
	b.WriteString("mcp-bridge " + version)
	if revision != "" {
		b.WriteString(" (revision " + revision)
		if modified {
			b.WriteString(", modified")
		}
		b.WriteString(")")
	}
	return b.String()
}
