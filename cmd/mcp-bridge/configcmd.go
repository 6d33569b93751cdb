package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/mcp-bridge/mcp-bridge/config"
)

// runConfig checks serve config files, shows the effective config, or
// prints the config's JSON Schema.
func runConfig(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runSubcommand("config", []string{
		"check [--mapping FILE]... FILE...",
		"show [--mapping FILE]... [FILE]",
		"schema",
	}, map[string]subcommand{
		"check": func(args []string, _ func() int) int { return runConfigCheck(args, stdout, stderr) },
		"show":  func(args []string, _ func() int) int { return runConfigShow(args, stdout, stderr) },
		"schema": func(args []string, usage func() int) int {
			if len(args) > 0 {
				return usage()
			}
			_, _ = stdout.Write(config.Schema())
			return exitOK
		},
	}, args, stderr)
}

// runConfigCheck checks each file as serve would, with the mapping files it
// names and those of --mapping, and lists every problem.
func runConfigCheck(args []string, stdout, stderr io.Writer) int {
	files, maps, code := configFlags("check", "[--mapping FILE]... FILE...", args, 1, -1, stderr)
	if code >= 0 {
		return code
	}
	code = exitOK
	for _, f := range files {
		_, err := config.LoadAll(f, maps)
		var es config.Errors
		switch {
		case err == nil:
			fmt.Fprintf(stdout, "%s: ok\n", f)
		case errors.As(err, &es):
			for _, e := range es {
				fmt.Fprintln(stdout, e)
			}
			code = exitInvalid
		default:
			fmt.Fprintf(stdout, "%s: %v\n", f, err)
			code = exitInvalid
		}
	}
	return code
}

// runConfigShow prints the effective config of a file, or of the embedded
// default, with the defaults filled in.
func runConfigShow(args []string, stdout, stderr io.Writer) int {
	files, maps, code := configFlags("show", "[--mapping FILE]... [FILE]", args, 0, 1, stderr)
	if code >= 0 {
		return code
	}
	file := ""
	if len(files) == 1 {
		file = files[0]
	}
	out, err := config.Effective(file, maps)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge config show: %v\n", err)
		return exitInvalid
	}
	_, _ = stdout.Write(out)
	return exitOK
}

// configFlags parses the flags of config check and show: --mapping, and
// from least to most files (most < 0: any number). It returns the exit
// code when the command is to stop there, else -1.
func configFlags(sub, synopsis string, args []string, least, most int, stderr io.Writer) ([]string, []string, int) {
	fs := newFlagSet("config "+sub, synopsis, stderr)
	var maps fileList
	fs.Var(&maps, "mapping", "a mapping file applied after the config's own, as with serve (repeatable)")
	files, help, err := parseInterspersed(fs, args)
	switch {
	case help:
		return nil, nil, exitOK
	case err != nil:
		return nil, nil, exitUsage
	case len(files) < least || most >= 0 && len(files) > most:
		fs.Usage()
		return nil, nil, exitUsage
	}
	return files, maps, -1
}
