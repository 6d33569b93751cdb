package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mcp-bridge/mcp-bridge/dialects"
	"github.com/mcp-bridge/mcp-bridge/dialects/builtin"
	"github.com/mcp-bridge/mcp-bridge/mappings"
	"github.com/mcp-bridge/mcp-bridge/translate"
)

// fileList is a repeatable flag of file names.
type fileList []string

func (f *fileList) String() string     { return strings.Join(*f, ",") }
func (f *fileList) Set(v string) error { *f = append(*f, v); return nil }

// loadMappings layers the named mapping files over the dialects' defaults.
func loadMappings(files []string) (*mappings.Set, error) {
	m := dialects.DefaultMappings()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := m.Add(f, data); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// translator returns a translator over the built-in and declared dialects
// with the mapping files layered in, or prints why not.
func translator(files []string, stderr io.Writer) (*translate.Translator, bool) {
	m, err := loadMappings(files)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --mapping: %v\n", err)
		return nil, false
	}
	reg, err := builtin.Registry(m)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --mapping: %v\n", err)
		return nil, false
	}
	return &translate.Translator{Registry: reg, Mappings: m}, true
}

func runMappings(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runSubcommand("mappings", []string{
		"check FILE...",
		"show [--dialect DIALECT] [--mapping FILE]...",
		"schema",
	}, map[string]subcommand{
		"check": func(args []string, _ func() int) int { return runMappingsCheck(args, stdout, stderr) },
		"show":  func(args []string, _ func() int) int { return runMappingsShow(args, stdout, stderr) },
		"schema": func(args []string, usage func() int) int {
			if len(args) > 0 {
				return usage()
			}
			_, _ = stdout.Write(mappings.Schema())
			return exitOK
		},
	}, args, stderr)
}

// runMappingsCheck layers each file over the defaults, in order, as
// translate would, and lists every problem.
func runMappingsCheck(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mappings check", "FILE...", stderr)
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
	m := dialects.DefaultMappings()
	code := exitOK
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err == nil {
			err = m.Add(f, data)
		}
		var es mappings.Errors
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
	if code == exitOK {
		if _, err := builtin.Registry(m); err != nil {
			fmt.Fprintln(stdout, err)
			code = exitInvalid
		}
	}
	return code
}

// runMappingsShow prints the effective tables as mapping-file YAML.
func runMappingsShow(args []string, stdout, stderr io.Writer) int {
	fs := newFlagSet("mappings show", "[--dialect DIALECT] [--mapping FILE]...", stderr)
	dialect := fs.String("dialect", "", "show only this dialect")
	var files fileList
	fs.Var(&files, "mapping", "a mapping file to layer over the defaults (repeatable; later files win)")
	pos, help, err := parseInterspersed(fs, args)
	if err != nil {
		if help {
			return exitOK
		}
		return exitUsage
	}
	if len(pos) > 0 {
		fs.Usage()
		return exitUsage
	}
	m, err := loadMappings(files)
	if err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --mapping: %v\n", err)
		return exitUsage
	}
	if err := m.Format(stdout, *dialect); err != nil {
		fmt.Fprintf(stderr, "mcp-bridge: --dialect: %v\n", err)
		return exitUsage
	}
	return exitOK
}
