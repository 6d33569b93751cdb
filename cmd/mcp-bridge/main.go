// Command mcp-bridge translates, validates and bridges messages between the
// agent dialects elizaacl, collab, bluelabel, fuse, swarm and a2a.
package main

import (
	"fmt"
	"io"
	"os"
	"sort"
)

// command is one subcommand of the binary.
type command struct {
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

func commands() map[string]command {
	return map[string]command{
		"translate": {"translate a message from one dialect to another", runTranslate},
		"validate":  {"check messages against their dialect's schema and rules", runValidate},
		"dialects":  {"list the dialects and what each can carry", runDialects},
		"mappings":  {"check mapping files, show the effective mapping, or print their JSON Schema", runMappings},
		"config":    {"check a serve config, show it with its defaults, or print its JSON Schema", runConfig},
		"version":   {"print the version", runVersion},
		"serve":     {"run the bridge: agents of every dialect connect and talk through it", runServe},
		"agent":     {"run a reference agent of any dialect", runAgent},
		"bench":     {"drive a bounded load through a bridge on loopback and report", runBench},
		"demo":      {"run a bridge and one agent per dialect, and show them talking", runDemo},

		"conformance": {"check an agent against its dialect's requirements, over the wire, or print their JSON Schema", runConformance},
	}
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program, minus the process: it returns the exit code.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcp-bridge: unknown command %q\n\n", args[0])
		usage(stderr)
		return exitUsage
	}
	return cmd.run(args[1:], stdin, stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcp-bridge <command> [flags] [args]")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "commands:")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-11s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run 'mcp-bridge <command> -h' for a command's flags.")
}
