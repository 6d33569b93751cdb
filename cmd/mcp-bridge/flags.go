package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Exit codes.
const (
	exitOK      = 0 // success
	exitInvalid = 1 // invalid input, or data lost under --strict
	exitUsage   = 2 // bad command line
)

// newFlagSet returns a flag set that reports errors instead of exiting and
// prints its usage to w.
func newFlagSet(name, synopsis string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		fmt.Fprintf(w, "usage: mcp-bridge %s %s\n\nflags:\n", name, synopsis)
		fs.PrintDefaults()
	}
	return fs
}

// subcommand runs one subcommand of a command with its arguments; usage
// prints the command's usage and returns exitUsage.
type subcommand func(args []string, usage func() int) int

// runSubcommand runs the subcommand of cmd that args name. With none, an
// unknown one, or help asked for, it prints the usage made of synopses
// (one per subcommand, without "mcp-bridge cmd").
func runSubcommand(cmd string, synopses []string, subs map[string]subcommand, args []string, stderr io.Writer) int {
	usage := func() int {
		for i, s := range synopses {
			lead := "usage:"
			if i > 0 {
				lead = "      "
			}
			fmt.Fprintf(stderr, "%s mcp-bridge %s %s\n", lead, cmd, s)
		}
		return exitUsage
	}
	if len(args) == 0 {
		return usage()
	}
	if run, ok := subs[args[0]]; ok {
		return run(args[1:], usage)
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage()
		return exitOK
	}
	fmt.Fprintf(stderr, "mcp-bridge: %s: unknown subcommand %q\n", cmd, args[0])
	return usage()
}

// parseInterspersed parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. It reports whether
// parsing succeeded and whether help was asked for.
func parseInterspersed(fs *flag.FlagSet, args []string) (pos []string, help bool, err error) {
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err == flag.ErrHelp, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, false, nil
		}
		if rest[0] == "--" {
			return append(pos, rest[1:]...), false, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// readInput reads a named file, or standard input for "-".
func readInput(name string, stdin io.Reader) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}

// displayName is how a message source is named in output.
func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return strings.TrimPrefix(name, "./")
}
