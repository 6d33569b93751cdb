package main

import (
	"fmt"
	"io"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

func runValidate(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := newFlagSet("validate", "--dialect DIALECT|auto [--mapping FILE]... FILE...", stderr)
	dialect := fs.String("dialect", translate.Auto, "dialect of the messages, or auto to detect each")
	var maps fileList
	fs.Var(&maps, "mapping", "a mapping file to layer over the defaults (repeatable; later files win)")
	files, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	if len(files) == 0 {
		fs.Usage()
		return exitUsage
	}
	tr, ok := translator(maps, stderr)
	if !ok {
		return exitUsage
	}
	if *dialect != translate.Auto {
		if _, err := tr.Codec(*dialect); err != nil {
			fmt.Fprintf(stderr, "mcp-bridge: --dialect: %v\n", err)
			return exitUsage
		}
	}
	code := exitOK
	for _, f := range files {
		if !validateOne(tr, *dialect, f, stdin, stdout) {
			code = exitInvalid
		}
	}
	return code
}

// validateOne checks one file and prints its verdict; it reports validity.
func validateOne(tr *translate.Translator, dialect, file string, stdin io.Reader, stdout io.Writer) bool {
	name := displayName(file)
	msg, err := readInput(file, stdin)
	if err != nil {
		fmt.Fprintf(stdout, "%s: %v\n", name, err)
		return false
	}
	c, err := tr.Source(dialect, msg)
	if err != nil {
		fmt.Fprintf(stdout, "%s: %v\n", name, err)
		return false
	}
	problems := dialects.Check(c, msg)
	if len(problems) == 0 {
		fmt.Fprintf(stdout, "%s: ok (%s)\n", name, c.Name())
		return true
	}
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s: %s: %s\n", name, c.Name(), p)
	}
	return false
}
